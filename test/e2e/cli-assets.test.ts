/**
 * `airless run` and assets, as a user runs it (real processes, built bundles, isolated
 * tries): the runs a producer's asset events trigger run in the same process and are
 * listed with their run type; `--no-follow` leaves them out.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const cwd = mkdtempSync(path.join(tmpdir(), 'airless-assets-cli-'));
const examples = path.join(ROOT, 'examples/assets');

function airless(...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/airless.mjs'), ...args, '--no-typecheck'], {
    cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1' },
  });
  const lines = r.stdout.trim().split('\n');
  return { code: r.status, stderr: r.stderr, last: lines[lines.length - 1]! };
}

describe('airless run with assets', () => {
  it('runs the producer, then every run its asset events trigger, each listed with its run type', () => {
    const r = airless('run', examples, '--dag', 'ingest_orders', '--time-warp', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const runs = JSON.parse(r.last).runs as { dagId: string; runType: string; state: string; tasks: { taskId: string; xcom?: unknown }[] }[];
    expect(runs.map((x) => `${x.dagId}:${x.runType}:${x.state}`).sort()).toEqual([
      'clean_orders:asset_triggered:success', 'dashboard_refresh:asset_triggered:success', 'dashboard_refresh:asset_triggered:success',
      'ingest_orders:manual:success', 'orders_report:asset_triggered:success',
    ]);
    // The extra set in the producer's thread reached the consumer's thread as its triggering event.
    expect(runs.find((x) => x.dagId === 'clean_orders')!.tasks[0]).toMatchObject({ taskId: 'clean', xcom: 120 });
    expect(runs.find((x) => x.dagId === 'orders_report')!.tasks[0]!.xcom).toEqual({ 's3://lake/clean/orders': 1, 's3://lake/raw/customers': 1 });
  });

  it('--no-follow runs only the runs asked for', () => {
    const r = airless('run', examples, '--dag', 'ingest_orders', '--time-warp', '--json', '--no-follow');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.last)).toMatchObject({ dagId: 'ingest_orders', runType: 'manual', state: 'success' });
  });
});
