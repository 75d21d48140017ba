/**
 * Scenario `paths`: the code paths the README and the faults do not reach, each checked by
 * what a user sees and by the gateway's decisions (which function made which call).
 * - A worker killed mid-try of a pooled task: the tick expires its lease, giving the task's
 *   pool slot back in the same transaction (the pool is all free again while the retry
 *   waits), and puts the 16-minute retry on a one-time schedule it creates.
 * - While that lease runs out, what only the poker may do: the tick's schedule is disabled,
 *   as an operator would (GetSchedule, then UpdateSchedule with State DISABLED; the
 *   Scheduler emulator skips disabled schedules), so no reconcile can get there first. Two
 *   runs of a sensor chain (`maxActiveRuns: 1`, the first with a 400 KB conf offloaded to
 *   `blobs/`): the second waits queued; the poker settles the last sensor of the first,
 *   ends it, then (startQueuedRuns) reads the DAG record and its spec from kv, lists the
 *   queued runs and starts the second, which it ends in turn (both "run finished" log lines
 *   are the poker's). A sensor followed by a 16-minute time sensor: the poker starts it
 *   and creates its one-time schedule. The tick is then re-enabled.
 * - A sensor that never holds, twice in a DAG at `maxActiveRuns: 1`: the tick times the
 *   first out, ends the run and starts the queued one (registering its sensor).
 * - A push that removes DAGs and changes a schedule; a run whose bundle was deleted (404,
 *   not 403).
 * Its calls feed the least-privilege analysis like the others'. Every wait is bounded in
 * rehearsal (virtual) time (c.until, c.runEnds, c.logLine), and no check depends on which of
 * two functions wins a race.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { PROJECT_ROOT } from '../rehearsal.js';
import type { ScenarioContext } from './context.js';
import { setTickSchedule } from './tick.js';

const runIdOf = (out: string[]) => /^run (\S+) of /.exec(out.find((l) => l.startsWith('run ')) ?? '')?.[1] ?? '';
const versionOf = (out: string[]) => /registered bundle (\S+)/.exec(out.find((l) => l.includes('registered bundle')) ?? '')?.[1] ?? '';
const SCENARIO_DAGS = join(PROJECT_ROOT, 'lib', 'rehearsal', 'scenarios', 'dags');

/** A DAG file with scheduled DAGs (written per push: the second one changes and drops some). */
function scheduledDags(dags: Record<string, string>): string {
  return [
    "import { dag } from 'airless';",
    ...Object.entries(dags).map(([id, schedule]) =>
      `export const ${id} = dag('${id}', { schedule: '${schedule}', startDate: '2026-02-01T00:00:00Z' }, ({ task }) => { task('work', async () => 'worked'); });`),
    "export default dag('rehearsal_missing', { schedule: null, defaultArgs: { retries: 0 } }, ({ task }) => { task('work', async () => 'never loads'); });",
  ].join('\n');
}

export async function paths(c: ScenarioContext): Promise<void> {
  const { r, cli, check, ports } = c;
  const fn = (prefix: string) => [...r.functions.values()].find((f) => f.spec.logicalId.includes(prefix))!;
  const allowedBy = (who: string, action: string, resource: string) =>
    r.gateway.decisions.filter((d) => d.allowed && d.principal.includes(who) && d.action === action && d.resource.includes(resource)).length;
  const dir = mkdtempSync(join(tmpdir(), 'airless-rehearsal-paths-'));
  try {
    cpSync(join(PROJECT_ROOT, 'examples', 'dags'), dir, { recursive: true });
    for (const f of ['crash.ts', 'sensors.ts']) cpSync(join(SCENARIO_DAGS, f), join(dir, f));
    // Schedules that start after the scenario ends: a scheduled (or caught-up) run on the
    // second push's version would load its bundle into a warm worker before the
    // missing-bundle step deletes it.
    writeFileSync(join(dir, 'scheduled.ts'), scheduledDags({ rehearsal_removed: '0 6 * * *', rehearsal_changed: '0 6 * * *' }));
    // --no-typecheck: `npm run typecheck` covers these files; the readme scenario pushes with it.
    const push = await cli('push', [dir], { 'no-typecheck': true });
    check(push.code === 0 && push.out.some((l) => l.includes('rehearsal_removed')), `push registers the scenario DAGs (${push.error ?? ''})`);

    // A worker killed mid-try of a pooled task: the tick expires its lease (15 minutes
    // on, so the sensor chain below runs meanwhile), fails the try and gives the pool slot
    // back in one transaction and, the retry being 16 minutes away, puts it on a one-time schedule.
    const slots = (await ports.store.getPool('rehearsal_crash'))?.slots;
    const crash = runIdOf((await cli('trigger', ['rehearsal_crash'])).out);
    const worker = fn('Worker');
    const crashKey = { dagId: 'rehearsal_crash', runId: crash, taskId: 'crash' };
    // Its first try holds its worker until killed (dags/crash.ts): the kill cannot miss it.
    await c.until(async () => (await ports.store.getTask(crashKey))?.state === 'running' && worker.inFlight > 0, 'the crash task to run');
    const held = (await ports.store.getPool('rehearsal_crash'))?.free;
    const killed = worker.expireInFlight();

    const timer = await pokerOnly(c);

    // A sensor that never holds, twice at maxActiveRuns 1: the second run waits queued.
    const timeout = runIdOf((await cli('trigger', ['rehearsal_sensor_timeout'])).out);
    const timeoutQueued = runIdOf((await cli('trigger', ['rehearsal_sensor_timeout'])).out);
    check(crash !== '' && timer !== '' && timeout !== '' && timeoutQueued !== '', 'trigger the crash and sensor DAGs');

    await c.until(async () => (await ports.store.getTask(crashKey))?.state === 'up_for_retry', 'the tick to expire the killed try');
    const freed = (await ports.store.getPool('rehearsal_crash'))?.free;
    check(slots === 2 && held === 1 && freed === slots && allowedBy('Tick', 'dynamodb:UpdateItem', 'StateKv') > 0,
      `the tick's lease expiry gives the killed try's pool slot back with the task (pool rehearsal_crash: ${held} of ${slots} free while running, ${freed} while the retry waits)`);
    const crashEnd = await c.runEnds('rehearsal_crash', crash);
    const crashTry = crashEnd.tasks.find((t) => t.taskId === 'crash')?.tryNumber;
    const freeAtEnd = (await ports.store.getPool('rehearsal_crash'))?.free;
    check(killed > 0 && crashEnd.state === 'success' && crashTry === 2 && freeAtEnd === slots && allowedBy('Tick', 'scheduler:CreateSchedule', `/${r.outputs.SchedulerGroup}/`) > 0
      && allowedBy('Tick', 'dynamodb:GetItem', 'StateTasks') > 0,
      `a killed try is recovered by the tick's lease expiry and retried 16 minutes later from a one-time schedule the tick created (${killed} killed; ${crashEnd.state}, try ${crashTry}; ${freeAtEnd} of ${slots} pool slots free)`);

    const timerEnd = await c.runEnds('rehearsal_sensor_timer', timer);
    const later = timerEnd.tasks.find((t) => t.taskId === 'later');
    check(timerEnd.state === 'success' && later?.state === 'success' && (later.endedAt ?? 0) - (later.startedAt ?? 0) >= 16 * 60_000,
      `the 16-minute time sensor the poker started resumes from its one-time schedule (${timerEnd.tasks.map((t) => `${t.taskId}=${t.state}`).join(' ')})`);
    const timeoutEnd = await c.runEnds('rehearsal_sensor_timeout', timeout);
    const never = timeoutEnd.tasks.find((t) => t.taskId === 'never');
    const queuedEnd = await c.runEnds('rehearsal_sensor_timeout', timeoutQueued);
    const [first, next] = [await ports.store.getRun('rehearsal_sensor_timeout', timeout), await ports.store.getRun('rehearsal_sensor_timeout', timeoutQueued)];
    // Only the tick times sensors out: it ended the first run and, the DAG being at
    // maxActiveRuns 1, listed its queued runs and started the next, whose root sensor it
    // registered (its line is in the tick's log).
    const startedByTick = await c.logLine('Tick', ['"message":"sensor waits for the poker"', `"runId":"${timeoutQueued}"`], "the queued run's sensor registered by the tick");
    check(timeoutEnd.state === 'failed' && never?.state === 'failed' && queuedEnd.state === 'failed' && (next?.startedAt ?? 0) >= (first?.endedAt ?? Infinity)
      && startedByTick !== '' && allowedBy('Tick', 'dynamodb:DeleteItem', 'StateTriggers') > 0 && allowedBy('Tick', 'dynamodb:Query', 'StateRuns') > 0,
      `a sensor that never holds is timed out by the tick, which ends the run and starts the queued one (${never?.state}: ${never?.error ?? ''}; next started ${(next?.startedAt ?? 0) - (first?.endedAt ?? 0)} ms after)`);

    // A push without most DAGs and with one schedule changed: the removed DAGs leave the
    // registry and EventBridge, the changed schedule is updated in place.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    writeFileSync(join(dir, 'scheduled.ts'), scheduledDags({ rehearsal_changed: '0 7 * * *' }));
    const push2 = await cli('push', [dir], { 'no-typecheck': true });
    const version = versionOf(push2.out);
    const dagSchedules = r.gateway.scheduler.listSchedules().filter((s) => s.GroupName === r.outputs.DagScheduleGroup);
    const changed = dagSchedules.find((s) => s.Name.includes('rehearsal_changed'));
    check(push2.code === 0 && push2.out.some((l) => /removed .*rehearsal_removed/.test(l)) && (await ports.store.getDag('rehearsal_removed')) === undefined
      && !dagSchedules.some((s) => s.Name.includes('rehearsal_removed')) && (changed?.ScheduleExpression ?? '').includes('0 7'),
      `a push that drops DAGs removes them and their schedules, and updates a changed schedule (${changed?.ScheduleExpression ?? 'no schedule'}; ${dagSchedules.length} DAG schedules left)`);

    // The bundle of a pinned version is gone: S3 answers 404 to a role that may list the
    // bucket, and the task fails saying so (without ListBucket it would be AccessDenied).
    await r.direct.s3.send(new DeleteObjectCommand({ Bucket: r.outputs.BucketName, Key: `bundles/${version}/bundle.mjs` }));
    const missing = runIdOf((await cli('trigger', ['rehearsal_missing'])).out);
    const missingEnd = await c.runEnds('rehearsal_missing', missing);
    const work = missingEnd.tasks[0];
    const pinned = (await ports.store.getRun('rehearsal_missing', missing))?.bundleVersion;
    check(missingEnd.state === 'failed' && /not found/.test(work?.error ?? '') && allowedBy('Worker', 's3:ListBucket', r.outputs.BucketName) > 0,
      `a run whose bundle was deleted fails with "not found" (bundle ${pinned}, deleted ${version}: ${work?.error ?? work?.state ?? 'no task'})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What only the poker may do, with the tick's schedule disabled so that no reconcile can
 * get there first (the tick and the poker fire at the same virtual minute, and either
 * could decide a task both see ready): the poker ends a run whose last task is a batched
 * sensor and starts the run queued behind it, and starts a 16-minute time sensor after a
 * sensor, on a one-time schedule it creates. Returns the time sensor's run.
 */
async function pokerOnly(c: ScenarioContext): Promise<string> {
  const { r, cli, check, ports } = c;
  await setTickSchedule(c, 'DISABLED');
  const from = r.gateway.decisions.length;
  const conf = JSON.stringify({ padding: 'c'.repeat(400_000) });
  const first = runIdOf((await cli('trigger', ['rehearsal_sensor_chain'], { conf })).out);
  const second = runIdOf((await cli('trigger', ['rehearsal_sensor_chain'])).out);
  const waiting = first !== '' && second !== '' ? (await ports.store.getRun('rehearsal_sensor_chain', second))?.state : undefined;
  check(waiting === 'queued', `two runs of a DAG at maxActiveRuns 1: the second waits (${waiting ?? 'not triggered'})`);
  const timer = runIdOf((await cli('trigger', ['rehearsal_sensor_timer'])).out);
  const firstEnd = await c.runEnds('rehearsal_sensor_chain', first);
  const secondEnd = await c.runEnds('rehearsal_sensor_chain', second);
  await c.until(async () => (await ports.store.getTask({ dagId: 'rehearsal_sensor_timer', runId: timer, taskId: 'later' }))?.state === 'deferred', 'the poker to start the time sensor');
  // Which function ended each run: the one whose log has the run's "run finished" line.
  for (const run of [first, second]) await c.logLine('', ['"message":"run finished"', `"runId":"${run}"`], `the "run finished" line of run ${run}`);
  const endedBy = (runId: string) => [...r.functions.values()].map((f) => f.spec.logicalId)
    .filter((id) => r.logs.lines(id).some((l) => l.includes('"message":"run finished"') && l.includes(`"runId":"${runId}"`)));
  const step = r.gateway.decisions.slice(from);
  const byPoker = (action: string, resource: string, since = 0, until = Number.POSITIVE_INFINITY) =>
    step.filter((d) => d.allowed && d.principal.includes('Poker') && d.action === action && d.resource.includes(resource) && d.at >= since && d.at <= until).length;
  await setTickSchedule(c, 'ENABLED');
  const a = await ports.store.getRun('rehearsal_sensor_chain', first);
  const b = await ports.store.getRun('rehearsal_sensor_chain', second);
  const [byA, byB] = [endedBy(first), endedBy(second)];
  check(firstEnd.state === 'success' && byA.length === 1 && byA[0].includes('Poker') && byB.length === 1 && byB[0].includes('Poker')
    && byPoker('dynamodb:UpdateItem', 'StateRuns') > 0 && byPoker('s3:GetObject', '/blobs/conf/') > 0,
    `a sensor chain ends in success, both runs ended by the poker (its log says "run finished": ${byA.join(',') || 'nobody'}, ${byB.join(',') || 'nobody'}), the first one's 400 KB conf read from blobs/ (${firstEnd.tasks.map((t) => `${t.taskId}=${t.state}`).join(' ')})`);
  // Between the first run's end and the second's start, the poker read the DAG record and
  // its spec (kv) and listed the queued runs: startQueuedRuns.
  const [ended, started] = [a?.endedAt ?? Number.POSITIVE_INFINITY, b?.startedAt ?? 0];
  const reads = { dags: byPoker('dynamodb:GetItem', 'StateDags', ended, started), kv: byPoker('dynamodb:GetItem', 'StateKv', ended, started), runs: byPoker('dynamodb:Query', 'StateRuns', ended, started) };
  check(secondEnd.state === 'success' && started >= ended && reads.dags > 0 && reads.kv > 0 && reads.runs > 0,
    `the poker ends the first run and starts the queued one (second started ${started - ended} ms after the first ended; poker calls in between: dags GetItem ${reads.dags}, kv GetItem ${reads.kv}, runs Query ${reads.runs})`);
  check(byPoker('scheduler:CreateSchedule', `/${r.outputs.SchedulerGroup}/`) > 0,
    'the poker settles a sensor and starts the 16-minute time sensor after it on a one-time schedule it creates (past SQS\'s 15-minute delay)');
  return timer;
}
