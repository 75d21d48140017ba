/**
 * The CLI end to end, as a user runs it: real processes, the example DAGs, exit codes
 * and the `--json` line. Runs use --time-warp, so retry delays cost no wall time.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const cwd = mkdtempSync(path.join(tmpdir(), 'airless-cli-'));

/** Type-checking is covered by build-hygiene and package tests; here it would only add seconds per call. */
const CHECKED = new Set(['run', 'build', 'dags', 'tasks', 'dev']);
function airless(...args: string[]) {
  const argv = CHECKED.has(args[0]) ? [...args, '--no-typecheck'] : args;
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/airless.mjs'), ...argv], {
    cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1' },
  });
  const lines = r.stdout.trim().split('\n');
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, last: lines[lines.length - 1] };
}
const examples = path.join(ROOT, 'examples/dags');

describe('airless CLI', () => {
  it('runs etl_daily to success with --json (retry included, no wall time)', () => {
    const r = airless('run', examples, '--dag', 'etl_daily', '--time-warp', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.last);
    expect(out).toMatchObject({ dagId: 'etl_daily', state: 'success' });
    const byId = Object.fromEntries(out.tasks.map((t: { taskId: string }) => [t.taskId, t]));
    expect(byId.extract).toMatchObject({ taskId: 'extract', state: 'success', tryNumber: 2 });
    expect(byId.full.state).toBe('skipped');
    expect(byId.delta.state).toBe('success');
  });

  it('follows the branch chosen by --conf', () => {
    const r = airless('run', examples, '--dag', 'etl_daily', '--time-warp', '--json', '--conf', '{"full":true}');
    const states = Object.fromEntries(JSON.parse(r.last).tasks.map((t: { taskId: string; state: string }) => [t.taskId, t.state]));
    expect(states).toMatchObject({ full: 'success', delta: 'skipped' });
  });

  it('prints live progress and a summary table for a person', () => {
    const r = airless('run', examples, '--dag', 'fan_out_in', '--time-warp');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/fan_out_in\.shard_c {2}running -> failed {2}try 1/);
    expect(r.stdout).toMatch(/publish +upstream_failed/);
    expect(r.stdout).toMatch(/report +success/);
  });

  it('exits 1 when the run fails', () => {
    const r = airless('run', path.join(ROOT, 'test/fixtures/cli-dags'), '--dag', 'always_fails', '--time-warp', '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.last)).toMatchObject({ state: 'failed', tasks: [{ taskId: 'a', state: 'failed', tryNumber: 2 }, { taskId: 'b', state: 'upstream_failed' }] });
  });

  it('exits 2 for an unknown DAG, bad --conf, and an invalid DAG folder', () => {
    const unknown = airless('run', examples, '--dag', 'nope', '--time-warp');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown dag nope');
    const conf = airless('run', examples, '--dag', 'etl_daily', '--conf', '{oops');
    expect(conf.code).toBe(2);
    expect(conf.stderr).toContain('--conf must be a JSON object');
    const dir = mkdtempSync(path.join(tmpdir(), 'airless-bad-'));
    writeFileSync(path.join(dir, 'cyclic.ts'), `import { dag } from 'airless';
export default dag('cyclic', {}, ({ task }) => { const a = task('a', async () => 1); const b = task('b', async () => 2); a.before(b); b.before(a); });\n`);
    const bad = airless('build', dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/cyclic\.ts: dag cyclic: .*cycle/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });

  it('lists DAGs and tests one task in process', () => {
    const list = airless('dags', 'list', examples, '--json');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.last).map((d: { dagId: string }) => d.dagId)).toEqual(
      expect.arrayContaining(['etl_daily', 'fan_out_in', 'branching', 'hourly_catchup', 'reports']));
    const t = airless('tasks', 'test', examples, 'fan_out_in', 'shard_a');
    expect(t.code).toBe(0);
    expect(t.stdout).toContain('fan_out_in.shard_a succeeded, returned 10');
    const f = airless('tasks', 'test', examples, 'fan_out_in', 'shard_c');
    expect(f.code).toBe(1);
    expect(f.stdout).toContain('shard c is corrupt');
  });

  it('runs every example under --time-warp with a signal sent before the wait', () => {
    const r = airless('run', examples, '--all', '--time-warp', '--mock-operators', '--json', '--logical-date', '2026-01-01T00:00:00Z', '--signal', 'approve-{{ ds }}={"by":"ci"}');
    const runs = JSON.parse(r.last).runs as { dagId: string; state: string }[];
    expect(runs.map((x) => [x.dagId, x.state])).toEqual(expect.arrayContaining([
      ['etl_daily', 'success'], ['fan_out_in', 'success'], ['branching', 'success'], ['hourly_catchup', 'success'], ['nightly_jobs', 'success'],
    ]));
    expect(r.code === 0).toBe(runs.every((x) => x.state === 'success'));
  });
  it('runs many runs at once with --runs and reports throughput', () => {
    const r = airless('run', path.join(ROOT, 'examples/throughput'), '--dag', 'chain10', '--runs', '20', '--time-warp', '--quiet');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^20 runs, 200 task instances in \d+ ms of wall time: \d+ tasks\/s \(20 succeeded\)$/m);
    const bad = airless('run', path.join(ROOT, 'examples/throughput'), '--dag', 'chain10', '--runs', 'many');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--runs must be a whole number');
  });
});

describe('airless CLI for people', () => {
  it('prints a summary table for --all, XComs in the task table and --json, and zoned timestamps', () => {
    const all = airless('run', examples, '--all', '--time-warp', '--mock-operators', '--logical-date', '2026-01-01', '--signal', 'approve-{{ ds }}={"by":"ci"}');
    expect(all.stdout).toMatch(/^dag +run +state +tasks +ok +failed +duration/m);
    expect(all.stdout).toMatch(/^etl_daily +manual__2026-01-01T00:00:00\.000Z +success +7 +6 +0/m);
    const one = airless('run', examples, '--dag', 'etl_daily', '--time-warp');
    expect(one.stdout).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}Z {2}run {2}etl_daily/m);
    expect(one.stdout).toMatch(/^transform +success +1 +\S+ +84$/m);
    expect(one.stdout).toMatch(/of virtual time/);
    const json = JSON.parse(airless('run', examples, '--dag', 'etl_daily', '--time-warp', '--json').last);
    expect(json.tasks.find((t: { taskId: string }) => t.taskId === 'extract')).toMatchObject({ xcom: { rows: 42 }, tryNumber: 2 });
  });

  it('lists DAGs with their next run and paused state', () => {
    const r = airless('dags', 'list', examples);
    expect(r.stdout).toMatch(/^dag +schedule +next run +state +tasks +file/m);
    expect(r.stdout).toMatch(/^etl_daily +0 2 \* \* \* \(Europe\/Berlin\) +\d{4}-\d{2}-\d{2} \d{2}:\d{2}Z +active +7/m);
  });

  it('answers --version, help <command> and <command> --help', () => {
    expect(airless('--version').stdout).toMatch(/^airless \d+\.\d+\.\d+/);
    const help = airless('help', 'run');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--logical-date ISO');
    expect(airless('tasks', 'test', '--help').stdout).toMatch(/^Usage: airless tasks test <dir> <dag> <task>/);
    const bad = airless('run', examples, '--dag', 'etl_daily', '--logical-date', '2026-02-30');
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('airless run on DynamoDB Local', () => {
  it('gives the same result and exit code with --store dynamodb-local (started and stopped for the run)', () => {
    const mem = JSON.parse(airless('run', examples, '--dag', 'etl_daily', '--time-warp', '--json', '--logical-date', '2026-01-01').last);
    const r = airless('run', examples, '--dag', 'etl_daily', '--time-warp', '--json', '--logical-date', '2026-01-01', '--store', 'dynamodb-local');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const ddb = JSON.parse(r.last);
    const strip = (x: { tasks: { taskId: string; state: string; tryNumber: number; xcom?: unknown }[] }) =>
      x.tasks.map(({ taskId, state, tryNumber, xcom }) => ({ taskId, state, tryNumber, xcom }));
    expect(strip(ddb)).toEqual(strip(mem));
    expect(ddb.state).toBe('success');
    const fails = airless('run', path.join(ROOT, 'test/fixtures/cli-dags'), '--dag', 'always_fails', '--time-warp', '--json', '--store', 'dynamodb-local');
    expect(fails.code).toBe(1);
  }, 120_000);
});
