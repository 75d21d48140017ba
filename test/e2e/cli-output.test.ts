/**
 * What `airless` prints, as a user runs it (real processes): every XCom value the codec
 * keeps shows in the table and in `--json` (defect 1 of issue 19); a secret a task read is
 * masked in whatever the task prints, in its thread or in process, and `--json` keeps stdout
 * for the document alone (defect 4); a run id outside the grammar and a conf nested too
 * deeply are refused with exit 2 and one line (defects 2 and 3).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const DAGS = path.join(ROOT, 'test/fixtures/output-dags');
const cwd = mkdtempSync(path.join(tmpdir(), 'airless-out-'));
const SECRET = 'tok-e2e-9f8e7d6c';

function airless(...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/airless.mjs'), ...args], {
    cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1', AIRLESS_VAR_API_TOKEN: SECRET, AIRLESS_SECRETS_DIR: cwd },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('airless run prints every XCom value', () => {
  it('in the summary table and in tasks test, exit 0', () => {
    const r = airless('run', DAGS, '--dag', 'odd_values', '--time-warp', '--no-typecheck');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The table's xcom column is 40 characters wide.
    expect(r.stdout).toMatch(/bigint +success +1 +\S+ +\{"total":\{"\$bigint":"123456789012345678…/);
    expect(r.stdout).toMatch(/circular +success +1 +\S+ +\{"name":"loop","self":\{"\$ref":"\$"\}\}/);
    expect(r.stdout).toMatch(/kinds +success +1 +\S+ +\{"seen":\{"\$map":\[\["a",\{"\$set":\[1\]\}\]\]\},"…/);
    const t = airless('tasks', 'test', DAGS, 'odd_values', 'circular', '--no-typecheck');
    expect(t.code).toBe(0);
    expect(t.stdout).toContain('odd_values.circular succeeded, returned {"name":"loop","self":{"$ref":"$"}}');
  }, 120_000);
});

describe('--json', () => {
  it('is exactly one JSON document on stdout, XCom values included, task output masked on stderr', () => {
    const r = airless('run', DAGS, '--all', '--time-warp', '--no-typecheck', '--json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const tasks = Object.fromEntries(doc.runs.flatMap((run: { tasks: { taskId: string; xcom: unknown }[] }) => run.tasks.map((t) => [t.taskId, t.xcom])));
    expect(tasks).toMatchObject({
      bigint: { total: { $bigint: '12345678901234567890' } }, circular: { name: 'loop', self: { $ref: '$' } },
      kinds: { seen: { $map: [['a', { $set: [1] }]] }, missing: { $undefined: true }, ratio: { $number: 'NaN' } },
      in_thread: 'printed', in_process: 'printed',
    });
    expect(r.stdout).not.toContain(SECRET);
    expect(r.stderr).not.toContain(SECRET);
    for (const where of ['thread', 'process']) {
      for (const how of ['console.log', 'console.error', 'stdout.write', 'stderr.write']) expect(r.stderr).toContain(`${where} ${how} ***`);
    }
  }, 120_000);
});

describe('a task that read a secret', () => {
  it('prints it masked on the terminal, from its thread and in process', () => {
    const r = airless('run', DAGS, '--dag', 'prints_secret', '--time-warp', '--no-typecheck');
    expect(r.code).toBe(0);
    const all = r.stdout + r.stderr;
    expect(all).not.toContain(SECRET);
    expect(r.stdout).toContain('thread console.log ***');
    expect(r.stdout).toContain('process stdout.write ***');
    expect(r.stderr).toContain('thread console.error ***');
    expect(all).toMatch(/where: 'process', token: '\*\*\*'/);
  }, 120_000);
});

describe('bad input', () => {
  it('a run id outside the grammar: exit 2, one line, nothing sent', () => {
    const r = airless('trigger', 'odd_values', '--run-id', 'nightly@1', '--dev');
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual(['airless trigger: --run-id is not a valid run id: use 1-250 characters from A-Z a-z 0-9 _ . ~ : + -, got "nightly@1" (see airless help trigger)']);
  });

  it('a --conf nested more than 1000 levels: exit 2, one line', () => {
    const r = airless('run', DAGS, '--dag', 'odd_values', '--no-typecheck', '--conf', `${'{"a":'.repeat(1500)}1${'}'.repeat(1500)}`);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^airless run: --conf must be a JSON object nested at most 1000 levels deep, got "\{\\"a\\":.*… \(9001 characters\)" \(see airless help run\)$/);
  });
});
