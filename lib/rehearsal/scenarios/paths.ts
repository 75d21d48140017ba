/**
 * Scenario `paths`: the code paths the README and the faults do not reach, each checked by
 * what a user sees. A worker killed mid-try whose lease the tick expires (a slot
 * transaction, then a 16-minute retry the tick puts on a one-time schedule); sensors the
 * poker settles into another sensor (ending the run) and into a time sensor (a one-time
 * schedule), with a run conf offloaded to `blobs/`; a sensor the tick times out; a push
 * that removes DAGs and changes a schedule; a run whose bundle was deleted (404, not 403).
 * Its calls feed the least-privilege analysis like the others'.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { PROJECT_ROOT } from '../rehearsal.js';
import type { ScenarioContext } from './context.js';

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

    // A worker killed mid-try: the tick expires its lease, fails the try in a slot
    // transaction and, the retry being 16 minutes away, puts it on a one-time schedule.
    const crash = runIdOf((await cli('trigger', ['rehearsal_crash'])).out);
    const worker = fn('Worker');
    await r.until(async () => (await ports.store.getTask({ dagId: 'rehearsal_crash', runId: crash, taskId: 'crash' }))?.state === 'running' && worker.inFlight > 0, 'the crash task to run');
    const killed = worker.expireInFlight();

    // Sensors, meanwhile: a chain the poker ends (with a 400 KB conf, offloaded to blobs/),
    // a sensor followed by a 16-minute time sensor, a sensor that never holds.
    const conf = JSON.stringify({ padding: 'c'.repeat(400_000) });
    const chain = runIdOf((await cli('trigger', ['rehearsal_sensor_chain'], { conf })).out);
    const timer = runIdOf((await cli('trigger', ['rehearsal_sensor_timer'])).out);
    const timeout = runIdOf((await cli('trigger', ['rehearsal_sensor_timeout'])).out);
    check(crash !== '' && chain !== '' && timer !== '' && timeout !== '', 'trigger the crash and sensor DAGs');

    const crashEnd = await c.runEnds('rehearsal_crash', crash, 120_000);
    const crashTry = crashEnd.tasks.find((t) => t.taskId === 'crash')?.tryNumber;
    check(killed > 0 && crashEnd.state === 'success' && crashTry === 2 && allowedBy('Tick', 'scheduler:CreateSchedule', `/${r.outputs.SchedulerGroup}/`) > 0
      && allowedBy('Tick', 'dynamodb:GetItem', 'StateTasks') > 0,
      `a killed try is recovered by the tick's lease expiry and retried 16 minutes later from a one-time schedule the tick created (${killed} killed; ${crashEnd.state}, try ${crashTry})`);

    const chainEnd = await c.runEnds('rehearsal_sensor_chain', chain, 120_000);
    check(chainEnd.state === 'success' && allowedBy('Poker', 'dynamodb:UpdateItem', 'StateRuns') > 0 && allowedBy('Poker', 's3:GetObject', '/blobs/conf/') > 0,
      `a sensor chain ends in success, the run ended by the poker, its 400 KB conf read from blobs/ (${chainEnd.tasks.map((t) => `${t.taskId}=${t.state}`).join(' ')})`);
    const timerEnd = await c.runEnds('rehearsal_sensor_timer', timer, 120_000);
    check(timerEnd.state === 'success' && allowedBy('Poker', 'scheduler:CreateSchedule', `/${r.outputs.SchedulerGroup}/`) > 0,
      `a 16-minute time sensor after a sensor resumes from a one-time schedule the poker created (${timerEnd.tasks.map((t) => `${t.taskId}=${t.state}`).join(' ')})`);
    const timeoutEnd = await c.runEnds('rehearsal_sensor_timeout', timeout, 120_000);
    const never = timeoutEnd.tasks.find((t) => t.taskId === 'never');
    check(timeoutEnd.state === 'failed' && never?.state === 'failed' && allowedBy('Tick', 'dynamodb:DeleteItem', 'StateTriggers') > 0,
      `a sensor that never holds is timed out by the tick (${never?.state}: ${never?.error ?? ''})`);

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
