/**
 * `airless variables` and `airless connections` on the local file: set, get, list, delete;
 * --json never shows a secret; bad input is one line with exit 2.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const BIN = path.resolve('bin/airless.mjs');
let dir: string;

async function airless(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const r = await run(process.execPath, [BIN, ...args], { env: { ...process.env, AIRLESS_SECRETS_DIR: dir } });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}

beforeAll(async () => { dir = await mkdtemp(path.join(tmpdir(), 'airless-cli-sec-')); });
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

describe('airless variables / connections (local file)', () => {
  it('set, get, list, delete; --json masks secrets; errors are one line', async () => {
    expect((await airless('variables', 'set', 'bucket', 'raw-data')).code).toBe(0);
    expect((await airless('variables', 'set', 'slack_api_key', 'xoxb-12345')).code).toBe(0);
    expect((await airless('variables', 'get', 'bucket')).out).toBe('raw-data\n');
    expect(JSON.parse((await airless('variables', 'get', 'slack_api_key', '--json')).out)).toEqual({ key: 'slack_api_key', value: '***' });
    expect(JSON.parse((await airless('variables', 'list', '--json')).out)).toEqual(['bucket', 'slack_api_key']);
    expect((await airless('connections', 'set', 'wh', 'postgres://etl:p%40ss@dw:5439/analytics')).code).toBe(0);
    const shown = await airless('connections', 'get', 'wh', '--json');
    expect(JSON.parse(shown.out)).toMatchObject({ connId: 'wh', host: 'dw', port: 5439, login: 'etl', password: '***', schema: 'analytics' });
    expect(shown.out).not.toContain('p@ss');
    expect((await airless('connections', 'get', 'wh')).out).toContain('uri: postgres://etl:***@dw:5439/analytics');
    const bad = await airless('connections', 'set', 'x', 'not-a-uri');
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
    expect((await airless('variables', 'delete', 'bucket')).code).toBe(0);
    const gone = await airless('variables', 'get', 'bucket');
    expect([gone.code, gone.err.trim()]).toEqual([2, 'airless: variable "bucket" does not exist']);
  });

  it("connections get masks Airflow's sensitive fields in extras at any depth (keyfile_dict, service_account, nested passwords)", async () => {
    const extra = { project: 'p1', keyfile_dict: { type: 'service_account', private_key: '-----BEGIN KEY-----abc', n: 1 },
      service_account: 'robot@p1.iam', auth: { user: 'u', password: 'nested-pw-77' }, hosts: [{ api_key: 'key-in-a-list' }] };
    expect((await airless('connections', 'set', 'gcp', JSON.stringify({ conn_type: 'google_cloud_platform', extra }))).code).toBe(0);
    const json = await airless('connections', 'get', 'gcp', '--json');
    expect(JSON.parse(json.out).extra).toEqual({
      project: 'p1', keyfile_dict: { type: '***', private_key: '***', n: 1 }, service_account: '***', auth: { user: 'u', password: '***' }, hosts: [{ api_key: '***' }],
    });
    const text = await airless('connections', 'get', 'gcp');
    for (const out of [json.out, text.out]) for (const secret of ['BEGIN KEY', 'robot@', 'nested-pw-77', 'key-in-a-list']) expect(out).not.toContain(secret);
    expect(text.out).toContain('p1');
  });
});
