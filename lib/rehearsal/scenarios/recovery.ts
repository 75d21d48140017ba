/**
 * Scenario `recovery`: the paths only failures reach, each checked by what a user sees and
 * by the gateway's decisions. The Lambda service refuses the tick for a while: EventBridge
 * Scheduler retries each fire, then puts it in the scheduler DLQ with the schedule's role.
 * Meanwhile a run's manifest is deleted: once the tick runs again it ends that run `failed`
 * with the reason (404 through s3:ListBucket, not a retried AccessDenied) and the queued run
 * starts. A sensor whose bundle code is gone fails its try from the poker. A duplicate S3
 * notification of a deleted manifest reports "not found" and changes nothing; one of an
 * older version never rolls the registry back.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { registrationKey, type RegisterResult } from '../../adapters/aws/register.js';
import type { ScenarioContext } from './context.js';

const runIdOf = (out: string[]) => /^run (\S+) of /.exec(out.find((l) => l.startsWith('run ')) ?? '')?.[1] ?? '';
const versionOf = (out: string[]) => /registered bundle (\S+)/.exec(out.find((l) => l.includes('registered bundle')) ?? '')?.[1] ?? '';
const FAR = Date.parse('2100-01-01T00:00:00Z');

/** The scenario's DAG file: `failing` makes the orphan's task fail (a 6-hour retry holds its run). */
function recoveryDags(o: { failing: boolean; late?: boolean }): string {
  return [
    "import { dag, defineSensor } from 'airless';",
    "export const holds = defineSensor('rehearsal_recovery_holds', async (pc: { n: number }) => pc.n >= 0);",
    `export const orphan = dag('rehearsal_orphan', { schedule: null, maxActiveRuns: 1 }, ({ task }) => { task('work', async () => ${o.failing ? "{ throw new Error('fails until a fixed version is pushed'); }" : "'fixed'"}, { retries: 1, retryDelay: '6h' }); });`,
    "export const sensed = dag('rehearsal_orphan_sensor', { schedule: null, defaultArgs: { retries: 0 } }, ({ sensor }) => { sensor('wait', { type: holds, pokeContext: { n: 1 } }, { pokeInterval: '1m', timeout: '1h' }); });",
    ...(o.late ? ["export const late = dag('rehearsal_late', { schedule: null }, ({ task }) => { task('work', async () => 'late'); });"] : []),
  ].join('\n');
}

export async function recovery(c: ScenarioContext): Promise<void> {
  const { r, cli, check, ports } = c;
  const fn = (prefix: string) => [...r.functions.values()].find((f) => f.spec.logicalId.includes(prefix))!;
  const allowedBy = (who: string, action: string, resource: string) =>
    r.gateway.decisions.filter((d) => d.allowed && d.principal.includes(who) && d.action === action && d.resource.includes(resource)).length;
  const bucket = r.outputs.BucketName;
  const dir = mkdtempSync(join(tmpdir(), 'airless-rehearsal-recovery-'));
  const push = async (dags: string) => {
    writeFileSync(join(dir, 'recovery.ts'), dags);
    const p = await cli('push', [dir], { 'no-typecheck': true });
    return { ...p, version: versionOf(p.out) };
  };
  // A verdict read while register-bundle still writes it is not there yet: the local S3
  // server may answer a partial body, which is no JSON.
  const registration = async (version: string): Promise<RegisterResult | undefined> => {
    const o = await r.direct.s3.send(new GetObjectCommand({ Bucket: bucket, Key: registrationKey(version) })).catch(() => undefined);
    try {
      return o?.Body ? JSON.parse(await o.Body.transformToString()) as RegisterResult : undefined;
    } catch {
      return undefined;
    }
  };
  /** The verdict on a version once it reads whole. */
  const verdict = async (version: string, what: string): Promise<RegisterResult> => {
    let got: RegisterResult | undefined;
    await c.until(async () => (got = await registration(version)) !== undefined, what);
    return got!;
  };
  try {
    const v1 = await push(recoveryDags({ failing: true }));
    check(v1.code === 0 && v1.version !== '', `push registers the recovery DAGs (${v1.error ?? v1.version})`);

    // The Lambda service refuses the tick (a throttle) from before the run starts, so no
    // tick container has read this version's manifest when it is deleted.
    const tick = fn('Tick');
    r.refuseInvocations('Tick', FAR);
    await c.until(() => tick.inFlight === 0, 'the tick in flight to end');
    const tickInvocations = tick.invocations;
    const run1 = runIdOf((await cli('trigger', ['rehearsal_orphan'])).out);
    await c.until(async () => (await ports.store.getTask({ dagId: 'rehearsal_orphan', runId: run1, taskId: 'work' }))?.state === 'up_for_retry', 'the orphan\'s first try to fail');
    await r.direct.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: `bundles/${v1.version}/manifest.json` }));
    const v2 = await push(recoveryDags({ failing: false }));
    const run2 = runIdOf((await cli('trigger', ['rehearsal_orphan'])).out);
    const queued = (await ports.store.getRun('rehearsal_orphan', run2))?.state;
    await c.until(() => r.gateway.scheduler.deadLetters.some((d) => d.fire.target.Arn === tick.spec.arn), 'a refused tick fire in the scheduler DLQ');
    check(v2.code === 0 && run1 !== '' && queued === 'queued' && tick.invocations === tickInvocations,
      `while the tick is refused: the orphan run holds its only slot, a run of the fixed version ${v2.version} waits queued, the tick ran ${tick.invocations - tickInvocations} times`);

    // Invocations accepted again: the next tick ends the orphan and starts the queued run.
    r.refuseInvocations('Tick', r.clock.now());
    const end1 = await c.runEnds('rehearsal_orphan', run1);
    const failed1 = await ports.store.getRun('rehearsal_orphan', run1);
    check(end1.state === 'failed' && /bundle version .* is gone .*not found/.test(failed1?.error ?? '') && allowedBy('Tick', 's3:ListBucket', bucket) > 0,
      `the tick ends the run whose manifest was deleted: ${failed1?.error ?? end1.state}`);
    const end2 = await c.runEnds('rehearsal_orphan', run2);
    const runs = await cli('runs', ['rehearsal_orphan']);
    check(end2.state === 'success' && runs.out.some((l) => l.startsWith(`${run1}: run failed: its bundle version`)),
      `its slot given back, the queued run of the fixed version succeeds; \`airless runs\` shows why the orphan failed`);

    const dlq = r.resources.queues.find((q) => q.arn.includes('SchedulerDeadLetterQueue'))!;
    const got = await r.direct.sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq.localUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageAttributeNames: ['All'], AttributeNames: ['All'] }));
    const letters = (got.Messages ?? []).map((m) => ({ body: m.Body, a: Object.fromEntries(Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue])) }));
    const first = letters.find((l) => l.a.TARGET_ARN === tick.spec.arn);
    check(first !== undefined && first.a.ERROR_CODE === 'TooManyRequestsException' && first.a.EXHAUSTED_RETRY_CONDITION === 'MaximumRetryAttempts'
      && first.a.RETRY_ATTEMPTS === '2' && (first.a.SCHEDULE_ARN ?? '').includes(':schedule/') && first.body !== undefined
      && allowedBy('InvokerRole', 'sqs:SendMessage', 'SchedulerDeadLetterQueue') > 0,
      `each refused tick fire is retried twice, then lands in the scheduler DLQ with its input and attributes, sent as the schedule's role (${letters.length} dead letters; ${first ? `${first.a.ERROR_CODE}, ${first.a.EXHAUSTED_RETRY_CONDITION}, ${first.a.RETRY_ATTEMPTS} retries` : 'none for the tick'})`);
    check(tick.invocations > tickInvocations, `the stack recovers: the tick ran ${tick.invocations - tickInvocations} times since invocations were accepted again`);

    // A sensor whose bundle code is gone before the poker first loads that version.
    await r.direct.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: `bundles/${v2.version}/bundle.mjs` }));
    const sensed = runIdOf((await cli('trigger', ['rehearsal_orphan_sensor'])).out);
    const sensedEnd = await c.runEnds('rehearsal_orphan_sensor', sensed);
    const wait = sensedEnd.tasks.find((t) => t.taskId === 'wait');
    check(sensedEnd.state === 'failed' && wait?.state === 'failed' && /not found/.test(wait.error ?? '') && allowedBy('Poker', 's3:ListBucket', bucket) > 0,
      `a sensor whose bundle was deleted fails its try from the poker with "not found" (${wait?.error ?? wait?.state ?? 'no task'})`);

    // S3 delivers notifications at least once: a duplicate after the manifest is gone is
    // recognised by the verdict already written, and changes nothing.
    const register = fn('RegisterBundle');
    let before = register.invocations;
    await r.redeliverNotification(bucket, `bundles/${v1.version}/manifest.json`);
    await c.until(() => register.invocations > before && register.inFlight === 0, 'the duplicate notification to be handled');
    check((await verdict(v1.version, `the verdict on ${v1.version}`)).ok === true && (await ports.store.getDag('rehearsal_orphan'))?.bundleVersion === v2.version,
      `a duplicate notification of ${v1.version}, whose manifest is gone, is ignored: the registry stays at ${v2.version}`);
    // A manifest gone before its first registration: "not found" (404 through s3:ListBucket), nothing registered.
    const lost = '000000000000-00000000';
    await r.redeliverNotification(bucket, `bundles/${lost}/manifest.json`);
    const vanished = await verdict(lost, 'the notification of a vanished manifest to be handled');
    check(vanished.ok === false && /not found/.test(vanished.error ?? '') && (await ports.store.getDag('rehearsal_orphan'))?.bundleVersion === v2.version
      && allowedBy('RegisterBundle', 's3:ListBucket', bucket) > 0,
      `a notification whose manifest vanished before registration reports "${vanished.error ?? ''}" and registers nothing`);

    // A stale duplicate of an older version that still exists never rolls the registry back.
    const v3 = await push(recoveryDags({ failing: false, late: true }));
    before = register.invocations;
    await r.redeliverNotification(bucket, `bundles/${v2.version}/manifest.json`);
    await c.until(() => register.invocations > before && register.inFlight === 0, 'the stale notification to be handled');
    const orphanDag = await ports.store.getDag('rehearsal_orphan');
    check(v3.code === 0 && orphanDag?.bundleVersion === v3.version && (await ports.store.getDag('rehearsal_late')) !== undefined && (await verdict(v2.version, `the verdict on ${v2.version}`)).ok === true,
      `a stale notification of ${v2.version} after ${v3.version} is ignored: the registry stays at ${orphanDag?.bundleVersion}`);
  } finally {
    r.refuseInvocations('Tick', 0);
    rmSync(dir, { recursive: true, force: true });
  }
}
