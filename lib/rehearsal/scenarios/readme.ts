/**
 * Scenario `readme`: the README's deploy section against the rehearsal, with the real
 * CLI: push, trigger (a retry on the way), runs, tasks, logs, clear; `reports` through
 * the pokers, a deferral and a signal; a deferral past 15 minutes through a one-time
 * schedule; a DAG fired by its own schedule.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { PROJECT_ROOT } from '../rehearsal.js';
import type { ScenarioContext } from './context.js';

const runIdOf = (out: string[]) => /^run (\S+) of /.exec(out.find((l) => l.startsWith('run ')) ?? '')?.[1] ?? '';

export async function readme(c: ScenarioContext): Promise<void> {
  const { r, cli, check, ports } = c;
  // Every wait below is bounded in rehearsal (virtual) time: c.until, c.runEnds, c.logLine.
  // The examples, less nightly_jobs when this stack's `jobs` does not name its Glue job:
  // a user's own app grants no job it did not name, and its worker is rightly denied.
  const examples = mkdtempSync(join(tmpdir(), 'airless-rehearsal-examples-'));
  cpSync(join(PROJECT_ROOT, 'examples', 'dags'), examples, { recursive: true });
  if (!JSON.stringify(r.template.template).includes('job/orders_extract')) {
    rmSync(join(examples, 'nightly_jobs.ts'), { force: true });
    c.log('  nightly_jobs left out: this stack\'s jobs do not name its Glue job orders_extract');
  }

  const push = await cli('push', [examples]);
  check(push.code === 0 && push.out.some((l) => l.startsWith('registered bundle')), `push examples/dags exits 0 and reports the registration (${push.error ?? push.out.at(-2) ?? ''})`);
  check(push.out.some((l) => /DAGs: added .*etl_daily/.test(l)), 'push prints what changed');
  const listed = await r.direct.s3.send(new ListObjectsV2Command({ Bucket: r.outputs.BucketName, Prefix: 'bundles/' }));
  check((listed.Contents ?? []).some((o) => o.Key?.endsWith('/registration.json')), 'register-bundle wrote registration.json');

  const etl = await cli('trigger', ['etl_daily'], { conf: '{"full":true}' });
  const etlRun = runIdOf(etl.out);
  check(etl.code === 0 && etlRun !== '', `trigger etl_daily starts a run (${etl.error ?? ''})`);
  // The file sensor's inbox as an absolute path: the rehearsal runs in the user's project, not beside examples/.
  const reports = await cli('trigger', ['reports'], { 'logical-date': '2026-01-01T00:00:00Z', conf: JSON.stringify({ inbox: join(PROJECT_ROOT, 'examples', 'data') }) });
  const reportsRun = runIdOf(reports.out);
  check(reports.code === 0 && reportsRun !== '', `trigger reports for 2026-01-01 starts a run (${reports.error ?? ''})`);

  const etlEnd = await c.runEnds('etl_daily', etlRun);
  check(etlEnd.state === 'success', `etl_daily ends in success (${etlEnd.state}: ${etlEnd.tasks.map((t) => `${t.taskId}=${t.state}`).join(' ')})`);
  const extract = etlEnd.tasks.find((t) => t.taskId === 'extract');
  check((extract?.tryNumber ?? 0) >= 2, `extract succeeded on a retry (try ${extract?.tryNumber})`);
  check((await cli('runs', ['etl_daily'])).code === 0, 'runs etl_daily');
  check((await cli('tasks', ['etl_daily', etlRun])).code === 0, 'tasks etl_daily <runId>');
  // A function's log lines reach its log group apart from its state writes (as CloudWatch's do).
  await c.logLine('Worker', [`"runId":"${etlRun}"`, '"taskId":"audit"', ' in eu'], "the audit task's line in the worker's log");
  const logs = await cli('logs', ['etl_daily', etlRun, 'audit']);
  check(logs.code === 0 && logs.out.some((l) => l.includes('for ') && l.includes(' in eu')), `airless logs shows the audit task's own line (${logs.out[0] ?? logs.error ?? ''})`);

  const cleared = await cli('clear', ['etl_daily', etlRun, 'transform']);
  check(cleared.code === 0 && cleared.out.some((l) => l.startsWith('cleared') && l.includes('transform') && l.includes('load')), `clear re-runs transform and its downstream (${cleared.out[0] ?? cleared.error ?? ''})`);
  const again = await c.runEnds('etl_daily', etlRun);
  const transform = again.tasks.find((t) => t.taskId === 'transform');
  check(again.state === 'success' && (transform?.tryNumber ?? 0) >= 2, `the cleared run succeeds again (transform try ${transform?.tryNumber})`);

  // Authoring parity (issue 13): mapping, a pool, maxActiveTisPerDagrun, callbacks, groups, setup/teardown, a short-circuit.
  const mapped = await cli('trigger', ['mapped_etl']);
  const mappedRun = runIdOf(mapped.out);
  check(mapped.code === 0 && mappedRun !== '', `trigger mapped_etl starts a run (${mapped.error ?? ''})`);
  const mappedEnd = await c.runEnds('mapped_etl', mappedRun);
  const instances = mappedEnd.tasks.filter((t) => t.taskId.startsWith('size#'));
  check(mappedEnd.state === 'success' && instances.length === 3 && instances.every((t) => t.state === 'success'),
    `mapped_etl ends in success with 3 size instances (${mappedEnd.state}: ${mappedEnd.tasks.map((t) => `${t.taskId}=${t.state}`).join(' ')})`);
  const pool = await ports.store.getPool('warehouse');
  check(pool?.free === 4, `the warehouse pool has its 4 slots back (${JSON.stringify(pool)})`);

  // Timed in virtual time: the sensors poke every 3 and 5 minutes, then a 10-minute deferral.
  await c.until(async () => (await ports.store.getTask({ dagId: 'reports', runId: reportsRun, taskId: 'approve' }))?.state === 'deferred', 'reports/approve to wait for its signal');
  check(true, 'reports passed both sensors (poker) and the 10-minute deferral; approve waits for its signal');
  const signal = await cli('signal', ['approve-2026-01-01'], { payload: '{"by":"me"}' });
  check(signal.code === 0, `signal approve-2026-01-01 (${signal.out[0] ?? signal.error ?? ''})`);
  const reportsEnd = await c.runEnds('reports', reportsRun);
  check(reportsEnd.state === 'success', `reports ends in success (${reportsEnd.tasks.map((t) => `${t.taskId}=${t.state}`).join(' ')})`);
  // The batched sensor's log: the poker's pokes of its target, under its try (issue 19).
  await c.logLine('Poker', ['"message":"sensor condition met"', `"runId":"${reportsRun}"`, '"taskId":"landed"'], "landed's outcome in the poker's log");
  const sensorLogs = await cli('logs', ['reports', reportsRun, 'landed']);
  check(sensorLogs.code === 0 && sensorLogs.out.some((l) => /try 1 {2}poke: condition met/.test(l)) && sensorLogs.out.some((l) => /try 1 {2}sensor condition met/.test(l)),
    `airless logs of a batched sensor shows the poker's poke of its target (${sensorLogs.out.length} lines${sensorLogs.error ? `: ${sensorLogs.error}` : ''})`);

  const dir = mkdtempSync(join(tmpdir(), 'airless-rehearsal-dags-'));
  try {
    cpSync(examples, dir, { recursive: true });
    cpSync(join(PROJECT_ROOT, 'lib', 'rehearsal', 'scenarios', 'dags', 'long_wait.ts'), join(dir, 'long_wait.ts'));
    const push2 = await cli('push', [dir]);
    check(push2.code === 0 && push2.out.some((l) => /added rehearsal_long_wait/.test(l)), 'a second push adds rehearsal_long_wait');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const long = runIdOf((await cli('trigger', ['rehearsal_long_wait'])).out);
  const longEnd = await c.runEnds('rehearsal_long_wait', long);
  const atSchedules = r.gateway.decisions.filter((d) => d.allowed && d.action === 'scheduler:CreateSchedule' && d.resource.includes(`/${r.outputs.SchedulerGroup}/`));
  check(longEnd.state === 'success' && atSchedules.length > 0, `a 20-minute deferral resumes through a one-time schedule (${atSchedules.length} created)`);

  await c.until(async () => (await ports.store.listRuns('branching')).some((run) => run.runType === 'scheduled' && run.state === 'success'), 'a scheduled run of branching');
  check(true, 'branching ran from its own EventBridge schedule');
  rmSync(examples, { recursive: true, force: true });
}
