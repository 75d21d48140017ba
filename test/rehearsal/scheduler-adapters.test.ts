/**
 * Airless's own Scheduler adapters (the one-time timer and the DAG schedule sync) against
 * the emulator through the gateway: the requests the deployed code makes are accepted,
 * fire when AWS would, and a role without the grants fails as on AWS.
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduleSync } from '../../lib/adapters/aws/schedule-sync.js';
import { SchedulerTimer } from '../../lib/adapters/aws/scheduler-timer.js';
import type { DagSpec } from '../../lib/engine/index.js';
import type { Queue } from '../../lib/engine/index.js';
import { startGateway, type Gateway, type PolicyDocument, type Principal } from '../../lib/rehearsal/gateway/index.js';

const ACCOUNT = '000000000000';
const QUEUE = `arn:aws:sqs:us-east-1:${ACCOUNT}:ready`;
const DLQ = `arn:aws:sqs:us-east-1:${ACCOUNT}:ready-dlq`;
const ROLE = `arn:aws:iam::${ACCOUNT}:role/scheduler-target`;
const doc = (...Statement: PolicyDocument['Statement'][]): PolicyDocument => ({ Version: '2012-10-17', Statement: Statement.flat() });
const worker: Principal = {
  accessKeyId: 'AKIAWORKER', name: 'Worker', roleArn: `arn:aws:iam::${ACCOUNT}:role/worker`,
  policies: [{ name: 'WorkerPolicy', document: doc(
    { Sid: 'Timers', Effect: 'Allow', Action: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'], Resource: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/airless-timers/*` },
    { Sid: 'Pass', Effect: 'Allow', Action: 'iam:PassRole', Resource: ROLE },
  ) }],
};
const register: Principal = {
  accessKeyId: 'AKIAREGISTER', name: 'Register', roleArn: `arn:aws:iam::${ACCOUNT}:role/register`,
  policies: [{ name: 'RegisterPolicy', document: doc(
    { Sid: 'Dags', Effect: 'Allow', Action: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:GetSchedule', 'scheduler:DeleteSchedule'], Resource: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/airless-dags/*` },
    { Sid: 'List', Effect: 'Allow', Action: 'scheduler:ListSchedules', Resource: '*' },
    { Sid: 'Pass', Effect: 'Allow', Action: 'iam:PassRole', Resource: ROLE },
  ) }],
};
const registerNoList: Principal = { ...register, accessKeyId: 'AKIANOLIST', name: 'RegisterNoList', policies: [{ name: 'RegisterPolicy', document: doc((register.policies[0]!.document.Statement as never[]).filter((s: { Sid: string }) => s.Sid !== 'List')) }] };
const targetRole: Principal = {
  accessKeyId: 'AKIATARGET', name: 'SchedulerRole', roleArn: ROLE,
  policies: [{ name: 'Send', document: doc({ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: QUEUE }) }],
};

const noQueue: Queue = { send: async () => { throw new Error('a long timer must not use the queue'); } } as unknown as Queue;

function dag(dagId: string, over: Partial<DagSpec> = {}): DagSpec {
  return {
    dagId, file: `${dagId}.ts`, schedule: { kind: 'cron', expr: '0 2 * * *', timezone: 'Europe/Berlin' }, timezone: 'Europe/Berlin',
    catchup: false, maxActiveRuns: 1, maxActiveTasks: 16, maxParallelism: 1, params: {}, tags: [], pausedOnCreation: false, tasks: [], ...over,
  };
}

describe('rehearsal gateway: Airless\'s Scheduler adapters against the emulator', () => {
  let now = Date.parse('2026-11-22T10:00:00Z');
  let gw: Gateway;
  const clients: SchedulerClient[] = [];
  const clientFor = (p: Principal) => {
    const c = new SchedulerClient({ endpoint: gw.url, region: 'us-east-1', maxAttempts: 1, credentials: { accessKeyId: p.accessKeyId, secretAccessKey: 'x' } });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    gw = await startGateway({
      region: 'us-east-1', accountId: ACCOUNT, upstream: { dynamodb: 'http://127.0.0.1:1', sqs: 'http://127.0.0.1:1', s3: 'http://127.0.0.1:1' },
      resourcePolicies: {}, principals: [worker, register, registerNoList, targetRole], clock: () => now,
    });
    gw.scheduler.createGroup('airless-timers');
    gw.scheduler.createGroup('airless-dags');
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await gw?.close();
  });

  it('a deferral past 15 minutes becomes an at() schedule that fires once and deletes itself', async () => {
    const timer = new SchedulerTimer({ scheduler: clientFor(worker), queue: noQueue, groupName: 'airless-timers', targetQueueArn: QUEUE, roleArn: ROLE, dlqArn: DLQ, clock: { now: () => now, sleep: async () => {} } });
    const at = now + 20 * 60_000 + 500;
    await timer.schedule('etl/run1/extract/1', at, { kind: 'schedule', dagId: 'etl', tickAt: 0 });
    await timer.schedule('etl/run1/extract/1', at, { kind: 'schedule', dagId: 'etl', tickAt: 0 }); // retried call: Conflict absorbed
    const [s] = gw.scheduler.listSchedules();
    expect(s).toMatchObject({ GroupName: 'airless-timers', ActionAfterCompletion: 'DELETE', Target: { Arn: QUEUE, RoleArn: ROLE, DeadLetterConfig: { Arn: DLQ } } });
    expect(gw.scheduler.dueFires(at - 1000)).toEqual([]);
    now = at + 60_000;
    const fires = gw.scheduler.dueFires(now);
    expect(fires.map((f) => f.fireTime)).toEqual([Math.ceil(at / 1000) * 1000]); // never early
    expect(await gw.scheduler.authorizeFire(fires[0]!)).toBe(true);
    expect(gw.scheduler.listSchedules()).toEqual([]);
  });

  it('register-bundle\'s schedule sync creates, updates and deletes DAG schedules the emulator accepts', async () => {
    const sync = new ScheduleSync({ scheduler: clientFor(register), groupName: 'airless-dags', targetQueueArn: QUEUE, roleArn: ROLE, dlqArn: DLQ });
    const first = await sync.sync([dag('etl_daily'), dag('hourly', { schedule: { kind: 'rate', everyMs: 3_600_000 } })], { now });
    expect(first.created.sort()).toEqual(['etl_daily', 'hourly']);
    const second = await sync.sync([dag('etl_daily', { schedule: { kind: 'cron', expr: '30 6 * * 1-5', timezone: 'Europe/Berlin' } })], { now });
    expect(second).toMatchObject({ updated: ['etl_daily'], deleted: [expect.any(String)] });
    const [s] = gw.scheduler.listSchedules().filter((x) => x.GroupName === 'airless-dags');
    expect(s).toMatchObject({ ScheduleExpression: 'cron(30 6 ? * 2-6 *)', ScheduleExpressionTimezone: 'Europe/Berlin' });
    // Monday 2026-11-23 06:30 in Berlin (CET) is 05:30 UTC.
    const fires = gw.scheduler.dueFires(Date.parse('2026-11-23T06:00:00Z')).filter((f) => f.group === 'airless-dags');
    expect(fires.map((f) => new Date(f.fireTime).toISOString())).toEqual(['2026-11-23T05:30:00.000Z']);
  });

  it('without the list grant, the sync fails with the SDK\'s AccessDeniedException naming scheduler:ListSchedules', async () => {
    const sync = new ScheduleSync({ scheduler: clientFor(registerNoList), groupName: 'airless-dags', targetQueueArn: QUEUE, roleArn: ROLE, dlqArn: DLQ });
    await expect(sync.sync([dag('etl_daily')], { now })).rejects.toThrow(/AccessDeniedException: User: arn:aws:sts::000000000000:assumed-role\/register\/RegisterNoList is not authorized to perform: scheduler:ListSchedules on resource: \*/);
    expect(gw.decisions.filter((d) => !d.allowed).map((d) => `${d.principal} ${d.action}`)).toEqual(['RegisterNoList scheduler:ListSchedules']);
  });
});
