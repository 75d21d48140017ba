/**
 * `airless dev` and assets, on real time: a producer's run triggers the DAGs scheduled on
 * its assets in the dev process, and `airless assets list|emit|events --dev` act on it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin/airless.mjs');
const cwd = mkdtempSync(path.join(tmpdir(), 'airless-dev-assets-'));
const env = { ...process.env, NO_COLOR: '1' };

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

async function until(what: () => boolean, label: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let dev: ChildProcess | undefined;
afterAll(() => { dev?.kill('SIGKILL'); });

describe('airless dev with assets', () => {
  it('runs what a producer\'s asset events trigger, and answers assets list|emit|events --dev', async () => {
    cpSync(path.join(ROOT, 'examples/assets'), path.join(cwd, 'dags'), { recursive: true });
    let out = '';
    dev = spawn(process.execPath, [BIN, 'dev', 'dags', '--no-typecheck', '--port', '0'], { cwd, env });
    dev.stdout!.on('data', (d) => { out += d; });
    dev.stderr!.on('data', (d) => { out += d; });
    await until(() => existsSync(path.join(cwd, '.airless', 'dev.json')) && out.includes('control endpoint'), 'the announcement');

    expect(cli('trigger', 'ingest_orders', '--dev').code).toBe(0);
    await until(() => /run {2}orders_report\/asset_triggered__\S+ {2}running -> success/.test(out), 'the report the ingest triggers');
    await until(() => /run {2}clean_orders\/asset_triggered__\S+ {2}running -> success/.test(out), 'the cleaning');

    const list = JSON.parse(cli('assets', 'list', '--dev', '--json').out);
    expect(list.map((a: { uri: string }) => a.uri).sort()).toEqual(['s3://lake/clean/orders', 's3://lake/raw/customers', 's3://lake/raw/orders']);
    expect(list.every((a: { lastEvent: unknown }) => a.lastEvent !== null)).toBe(true);

    const emitted = cli('assets', 'emit', 's3://lake/raw/orders', '--extra', '{"rows":7}', '--dev');
    expect(emitted.code, emitted.err).toBe(0);
    expect(emitted.out).toMatch(/recorded; queued for clean_orders; runs due for clean_orders/);
    await until(() => (out.match(/run {2}clean_orders\/asset_triggered__\S+ {2}running -> success/g) ?? []).length === 2, 'the second cleaning');
    const events = JSON.parse(cli('assets', 'events', 's3://lake/raw/orders', '--dev', '--json').out);
    // Newest first: the emitted one, then the ingest's (the dev's own scheduled run of it may have produced one too).
    expect(events[0]).toMatchObject({ origin: 'cli', extra: { rows: 7 } });
    expect(events.length).toBeGreaterThanOrEqual(2);
    for (const e of events.slice(1)) expect(e).toMatchObject({ origin: 'task', source: { dagId: 'ingest_orders', taskId: 'orders' }, extra: { rows: 120 } });
    expect(cli('assets', 'emit', 's3://lake/nope', '--dev').code).toBe(2);
  }, 120_000);
});
