/**
 * `airless run --conf` with params that have schemas (issue 23 §2), as a user runs it (a
 * real process): a conf that breaks a schema exits 2 with one line naming the param.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const DAGS = path.join(ROOT, 'test/fixtures/param-dags');
const cwd = mkdtempSync(path.join(tmpdir(), 'airless-params-'));

function airless(...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/airless.mjs'), ...args], { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('airless run --conf against param schemas', () => {
  it('a conf that breaks a schema: exit 2, one line naming the param', () => {
    const r = airless('run', DAGS, '--dag', 'report', '--no-typecheck', '--conf', '{"rows": 500}');
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^airless: Invalid input for param "rows": 500 is greater than 100$/);
  });

  it('a conf that fits runs, exit 0', () => {
    const r = airless('run', DAGS, '--dag', 'report', '--no-typecheck', '--conf', '{"rows": 7, "region": "us"}');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('14');
  });
});
