/**
 * `airless build` as a user runs it (issue 23): a typed TaskFlow wiring whose types do not
 * match, and a call the Airflow SDK has but Airless refuses, each reported with
 * file:line:col, exit 2; the Airflow TypeScript SDK example type-checked by the same build
 * (one TypeScript program for all three files: it adds no error), then run through the real
 * bundle and isolation threads, down both sides of its condition.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const cwd = mkdtempSync(path.join(tmpdir(), 'airless-typed-'));

function airless(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/airless.mjs'), ...args], {
    cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1', ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, last: r.stdout.trim().split('\n').pop() ?? '' };
}

describe('typed DAG files built by the CLI', () => {
  it('refuses a wiring whose types do not match, and setVariable, with file:line:col and exit 2 (the SDK example beside them checks clean)', () => {
    const dir = path.join(cwd, 'dags');
    const wiring = [
      "import { dag } from 'airless';",
      "export default dag('wiring', {}, ({ task }) => {",
      "  const extract = task('extract', async () => ({ rows: [1, 2], source: 'db' }));",
      "  const double = task('double', async (_ctx, { n }: { n: number[] }) => n.length * 2);",
      '  const e = extract();',
      '  double({ n: e.source });',
      '});',
      '',
    ];
    const sdk = [
      "import { Dag, getClient } from '@apache-airflow/ts-sdk';",
      "export const dag = new Dag('sdk_writes', {});",
      "dag.task('w', async () => { await getClient().setVariable('k', 'v'); })();",
      '',
    ];
    spawnSync('mkdir', ['-p', dir]);
    writeFileSync(path.join(dir, 'wiring.ts'), wiring.join('\n'));
    writeFileSync(path.join(dir, 'sdk_writes.ts'), sdk.join('\n'));
    copyFileSync(path.join(ROOT, 'examples/airflow-ts-sdk/orders.ts'), path.join(dir, 'orders.ts'));
    const r = airless(['build', 'dags', '--out', 'out']);
    expect(r.code, r.stderr).toBe(2);
    // Two errors, none in orders.ts: the Airflow SDK example type-checks through the CLI's own resolution.
    expect(r.stderr).toMatch(/^airless: 2 type errors in DAG files/);
    expect(r.stderr).not.toMatch(/orders\.ts/);
    expect(r.stderr).toMatch(/dags\/wiring\.ts:6:12: error TS2322: Type 'Output<string>' is not assignable to type 'InputOf<number\[\]>'/);
    expect(r.stderr).toMatch(/dags\/sdk_writes\.ts:3:47: error TS2349: This expression is not callable\. +Type 'NotOnAirless<"setVariable: Airless tasks read variables but do not write them;/);
  });

  it('builds and runs the Airflow TypeScript SDK example down both sides of its condition and branch', () => {
    const examples = path.join(ROOT, 'examples/airflow-ts-sdk');
    // Type-checked by the build above (and by npm run typecheck): both runs skip the check.
    const first = airless(['run', examples, '--all', '--time-warp', '--json', '--no-typecheck']);
    expect(first.code, first.stderr).toBe(0);
    const states = (out: string) => Object.fromEntries(JSON.parse(out).tasks.map((t: { taskId: string; state: string }) => [t.taskId, t.state]));
    expect(states(first.last)).toMatchObject({ load: 'success', report_empty: 'skipped', publish_daily: 'success', publish_weekly: 'skipped', cleanup: 'success' });
    const vars = { AIRLESS_VAR_TS_SDK_EU_ORDERS: '0', AIRLESS_VAR_TS_SDK_US_ORDERS: '0', AIRLESS_VAR_TS_SDK_CADENCE: 'weekly', AIRLESS_CONN_TS_SDK_WAREHOUSE: 'postgres://u:p@db.example:5432/wh' };
    const other = airless(['run', examples, '--all', '--time-warp', '--json', '--no-typecheck'], vars);
    expect(other.code, other.stderr).toBe(0);
    const out = JSON.parse(other.last);
    expect(states(other.last)).toMatchObject({ load: 'skipped', report_empty: 'success', publish_daily: 'skipped', publish_weekly: 'success', cleanup: 'success' });
    expect(out.tasks.find((t: { taskId: string }) => t.taskId === 'cleanup').xcom).toEqual({ warehouse: 'db.example' });
  });
});
