/**
 * The EventBridge Scheduler emulator through the gateway, driven by the real
 * @aws-sdk/client-scheduler, on a clock the test jumps (no real waiting).
 */
import {
  CreateScheduleCommand, CreateScheduleGroupCommand, DeleteScheduleCommand, DeleteScheduleGroupCommand, GetScheduleCommand,
  GetScheduleGroupCommand, ListScheduleGroupsCommand, ListSchedulesCommand, SchedulerClient, UpdateScheduleCommand,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scheduler } from '../../lib/rehearsal/gateway/scheduler/emulator.js';
import { startGateway, type Gateway, type PolicyDocument, type Principal, type ScheduleFire } from '../../lib/rehearsal/gateway/index.js';
import type { DeadLetter } from '../../lib/rehearsal/gateway/scheduler/dead-letter.js';

const ACCOUNT = '000000000000';
const T0 = Date.parse('2026-03-27T00:00:00Z');
const QUEUE = `arn:aws:sqs:us-east-1:${ACCOUNT}:ready`;
const TARGET_ROLE = `arn:aws:iam::${ACCOUNT}:role/scheduler-target`;
const doc = (...Statement: PolicyDocument['Statement'][]): PolicyDocument => ({ Version: '2012-10-17', Statement: Statement.flat() });

const register: Principal = {
  accessKeyId: 'AKIAREGISTER', name: 'Register', roleArn: `arn:aws:iam::${ACCOUNT}:role/register`,
  policies: [{ name: 'RegisterPolicy', document: doc(
    { Sid: 'Schedules', Effect: 'Allow', Action: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:GetSchedule', 'scheduler:DeleteSchedule'], Resource: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/*/*` },
    { Sid: 'Groups', Effect: 'Allow', Action: ['scheduler:CreateScheduleGroup', 'scheduler:GetScheduleGroup', 'scheduler:DeleteScheduleGroup'], Resource: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule-group/*` },
    { Sid: 'List', Effect: 'Allow', Action: ['scheduler:ListSchedules', 'scheduler:ListScheduleGroups'], Resource: '*' },
    { Sid: 'Pass', Effect: 'Allow', Action: 'iam:PassRole', Resource: TARGET_ROLE, Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } } },
  ) }],
};
const noPass: Principal = {
  accessKeyId: 'AKIANOPASS', name: 'NoPass', roleArn: `arn:aws:iam::${ACCOUNT}:role/nopass`,
  policies: [{ name: 'NoPassPolicy', document: doc({ Effect: 'Allow', Action: 'scheduler:*', Resource: '*' }) }],
};
const target: Principal = {
  accessKeyId: 'AKIATARGET', name: 'SchedulerTarget', roleArn: TARGET_ROLE,
  policies: [{ name: 'TargetPolicy', document: doc({ Sid: 'SendReady', Effect: 'Allow', Action: 'sqs:SendMessage', Resource: QUEUE }) }],
  trustPolicy: doc({ Effect: 'Allow', Principal: { Service: 'scheduler.amazonaws.com' }, Action: 'sts:AssumeRole', Condition: { StringEquals: { 'aws:SourceAccount': ACCOUNT } } }),
};

const base = (over: Partial<CreateScheduleCommandInput> = {}): CreateScheduleCommandInput => ({
  Name: 'tick', GroupName: 'sys', ScheduleExpression: 'rate(5 minutes)', FlexibleTimeWindow: { Mode: 'OFF' },
  Target: { Arn: QUEUE, RoleArn: TARGET_ROLE, Input: '{"kind":"tick"}' }, ...over,
});

describe('rehearsal gateway: EventBridge Scheduler emulator', () => {
  let now = T0;
  let gw: Gateway;
  let client: SchedulerClient;
  const fired: ScheduleFire[] = [];

  beforeAll(async () => {
    gw = await startGateway({
      region: 'us-east-1', accountId: ACCOUNT, upstream: { dynamodb: 'http://127.0.0.1:1', sqs: 'http://127.0.0.1:1', s3: 'http://127.0.0.1:1' },
      resourcePolicies: {}, principals: [register, noPass, target], cliAllowAll: false, clock: () => now,
      onScheduleFire: async (f) => void fired.push(f),
    });
    client = new SchedulerClient({ endpoint: gw.url, region: 'us-east-1', maxAttempts: 1, credentials: { accessKeyId: register.accessKeyId, secretAccessKey: 'x' } });
    await client.send(new CreateScheduleGroupCommand({ Name: 'sys' }));
  });
  afterAll(async () => {
    client?.destroy();
    await gw?.close();
  });

  it('creates, gets, lists, updates and deletes schedules and groups', async () => {
    const { ScheduleArn } = await client.send(new CreateScheduleCommand(base({ Name: 'crud', Description: 'first' })));
    expect(ScheduleArn).toBe(`arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/sys/crud`);
    const got = await client.send(new GetScheduleCommand({ Name: 'crud', GroupName: 'sys' }));
    expect(got).toMatchObject({ Name: 'crud', GroupName: 'sys', State: 'ENABLED', ActionAfterCompletion: 'NONE', Description: 'first', Target: { Arn: QUEUE, RoleArn: TARGET_ROLE } });
    expect(got.CreationDate).toEqual(new Date(T0));
    await client.send(new UpdateScheduleCommand(base({ Name: 'crud', ScheduleExpression: 'rate(1 hour)', State: 'DISABLED' })));
    expect(await client.send(new GetScheduleCommand({ Name: 'crud', GroupName: 'sys' }))).toMatchObject({ ScheduleExpression: 'rate(1 hour)', State: 'DISABLED' });
    expect((await client.send(new ListSchedulesCommand({ GroupName: 'sys', State: 'DISABLED' }))).Schedules?.map((s) => s.Name)).toEqual(['crud']);
    expect((await client.send(new GetScheduleGroupCommand({ Name: 'sys' }))).State).toBe('ACTIVE');
    expect((await client.send(new ListScheduleGroupsCommand({}))).ScheduleGroups?.map((g) => g.Name)).toEqual(['default', 'sys']);
    await client.send(new DeleteScheduleCommand({ Name: 'crud', GroupName: 'sys' }));
    await expect(client.send(new GetScheduleCommand({ Name: 'crud', GroupName: 'sys' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await client.send(new CreateScheduleGroupCommand({ Name: 'gone' }));
    await client.send(new CreateScheduleCommand(base({ Name: 'in-gone', GroupName: 'gone' })));
    await client.send(new DeleteScheduleGroupCommand({ Name: 'gone' }));
    expect(gw.scheduler.getSchedule('gone', 'in-gone')).toBeUndefined();
  });

  it('lists with NamePrefix, GroupName, State and pagination', async () => {
    for (const n of ['p-1', 'p-2', 'p-3', 'q-1']) await client.send(new CreateScheduleCommand(base({ Name: n })));
    const first = await client.send(new ListSchedulesCommand({ GroupName: 'sys', NamePrefix: 'p-', MaxResults: 2 }));
    expect(first.Schedules?.map((s) => s.Name)).toEqual(['p-1', 'p-2']);
    const second = await client.send(new ListSchedulesCommand({ GroupName: 'sys', NamePrefix: 'p-', MaxResults: 2, NextToken: first.NextToken! }));
    expect(second.Schedules?.map((s) => s.Name)).toEqual(['p-3']);
    expect(second.NextToken).toBeUndefined();
    expect(second.Schedules?.[0]?.Target?.Arn).toBe(QUEUE);
    await expect(client.send(new ListSchedulesCommand({ GroupName: 'nope' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(client.send(new ListSchedulesCommand({ MaxResults: 101 }))).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringContaining('between 1 and 100') });
    for (const n of ['p-1', 'p-2', 'p-3', 'q-1']) await client.send(new DeleteScheduleCommand({ Name: n, GroupName: 'sys' }));
  });

  it.each([
    ['a name with a space', { Name: 'bad name' }, "at 'name'"],
    ['a name of 65 characters', { Name: 'x'.repeat(65) }, "at 'name'"],
    ['a group with a slash', { GroupName: 'a/b' }, "at 'groupName'"],
    ['a malformed at()', { ScheduleExpression: 'at(2026-13-01T00:00:00)' }, 'Invalid Schedule Expression'],
    ['an at() with a zone suffix', { ScheduleExpression: 'at(2026-04-01T00:00:00Z)' }, 'Invalid Schedule Expression'],
    ['a 5-field cron', { ScheduleExpression: 'cron(0 2 * * ?)' }, 'Invalid Schedule Expression'],
    ['a cron with both day fields', { ScheduleExpression: 'cron(0 2 * * * *)' }, 'Invalid Schedule Expression'],
    ['a cron with hour 25', { ScheduleExpression: 'cron(0 25 * * ? *)' }, 'Invalid Schedule Expression'],
    ['rate(0 minutes)', { ScheduleExpression: 'rate(0 minutes)' }, 'Invalid Schedule Expression'],
    ['rate in weeks', { ScheduleExpression: 'rate(1 week)' }, 'Invalid Schedule Expression'],
    ['an unknown time zone', { ScheduleExpressionTimezone: 'Mars/Olympus' }, 'Invalid timezone'],
    ['no FlexibleTimeWindow', { FlexibleTimeWindow: undefined }, "at 'flexibleTimeWindow'"],
    ['FLEXIBLE without a window', { FlexibleTimeWindow: { Mode: 'FLEXIBLE' } }, 'maximumWindowInMinutes'],
    ['a window of 1441 minutes', { FlexibleTimeWindow: { Mode: 'FLEXIBLE', MaximumWindowInMinutes: 1441 } }, 'maximumWindowInMinutes'],
    ['an unknown window mode', { FlexibleTimeWindow: { Mode: 'SOMETIMES' as 'OFF' } }, 'flexibleTimeWindow.mode'],
    ['no target RoleArn', { Target: { Arn: QUEUE, RoleArn: undefined as unknown as string } }, 'Invalid RoleArn'],
    ['a DLQ that is not a queue', { Target: { Arn: QUEUE, RoleArn: TARGET_ROLE, DeadLetterConfig: { Arn: 'arn:aws:sns:us-east-1:000000000000:t' } } }, 'DeadLetterConfig'],
    ['186 retry attempts', { Target: { Arn: QUEUE, RoleArn: TARGET_ROLE, RetryPolicy: { MaximumRetryAttempts: 186 } } }, 'maximumRetryAttempts'],
    ['ActionAfterCompletion KEEP', { ActionAfterCompletion: 'KEEP' as 'NONE' }, 'actionAfterCompletion'],
    ['an EndDate in the past', { ScheduleExpression: 'rate(1 hour)', EndDate: new Date(T0 - 1000) }, 'EndDate'],
    ['a StartDate 6 minutes ago', { ScheduleExpression: 'rate(1 hour)', StartDate: new Date(T0 - 6 * 60_000) }, 'StartDate'],
    ['State PAUSED', { State: 'PAUSED' as 'ENABLED' }, "at 'state'"],
  ] as [string, Partial<CreateScheduleCommandInput>, string][])('rejects %s with ValidationException', async (_, over, says) => {
    const err = await client.send(new CreateScheduleCommand(base({ Name: 'valid', ...over }))).catch((e: Error) => e);
    expect(err).toMatchObject({ name: 'ValidationException', $metadata: { httpStatusCode: 400 }, message: expect.stringContaining(says) });
  });

  it('raises ConflictException for an existing name and ResourceNotFoundException for a missing schedule or group', async () => {
    await client.send(new CreateScheduleCommand(base({ Name: 'twice' })));
    await expect(client.send(new CreateScheduleCommand(base({ Name: 'twice' })))).rejects.toMatchObject({ name: 'ConflictException', $metadata: { httpStatusCode: 409 } });
    // An SDK retry repeats the request's ClientToken: AWS answers it as the first time.
    await client.send(new CreateScheduleCommand(base({ Name: 'retried', ClientToken: 'token-1' })));
    expect((await client.send(new CreateScheduleCommand(base({ Name: 'retried', ClientToken: 'token-1' })))).ScheduleArn).toMatch(/schedule\/sys\/retried$/);
    await client.send(new DeleteScheduleCommand({ Name: 'retried', GroupName: 'sys' }));
    await expect(client.send(new CreateScheduleCommand(base({ Name: 'x', GroupName: 'missing' })))).rejects.toMatchObject({ name: 'ResourceNotFoundException', message: 'Schedule group missing does not exist.' });
    await expect(client.send(new UpdateScheduleCommand(base({ Name: 'never' })))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(client.send(new DeleteScheduleCommand({ Name: 'never', GroupName: 'sys' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(client.send(new GetScheduleGroupCommand({ Name: 'missing' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(client.send(new CreateScheduleGroupCommand({ Name: 'sys' }))).rejects.toMatchObject({ name: 'ConflictException' });
    await client.send(new DeleteScheduleCommand({ Name: 'twice', GroupName: 'sys' }));
  });

  it('checks iam:PassRole on the target role, as AWS does', async () => {
    const other = new SchedulerClient({ endpoint: gw.url, region: 'us-east-1', maxAttempts: 1, credentials: { accessKeyId: noPass.accessKeyId, secretAccessKey: 'x' } });
    const err = await other.send(new CreateScheduleCommand(base({ Name: 'nopass' }))).catch((e: Error) => e);
    other.destroy();
    expect(err).toMatchObject({ name: 'AccessDeniedException', $metadata: { httpStatusCode: 403 } });
    expect((err as Error).message).toBe(`User: arn:aws:sts::${ACCOUNT}:assumed-role/nopass/NoPass is not authorized to perform: iam:PassRole on resource: ${TARGET_ROLE} because no identity-based policy allows the iam:PassRole action`);
    expect(gw.decisions.at(-1)).toMatchObject({ principal: 'NoPass', action: 'iam:PassRole', allowed: false });
    expect(gw.scheduler.getSchedule('sys', 'nopass')).toBeUndefined();
    expect(gw.decisions).toContainEqual(expect.objectContaining({ principal: 'Register', action: 'iam:PassRole', allowed: true, matchedStatements: ['RegisterPolicy/Pass'] }));
  });

  it('fires rate(5 minutes) and cron(0 2 * * ? *) in Europe/Berlin at the right instants over a jumped clock (skipping the spring-forward gap)', async () => {
    now = T0;
    gw.scheduler.dueFires(now); // drain anything earlier tests left due
    await client.send(new CreateScheduleCommand(base({ Name: 'every5' })));
    await client.send(new CreateScheduleCommand(base({ Name: 'nightly', ScheduleExpression: 'cron(0 2 * * ? *)', ScheduleExpressionTimezone: 'Europe/Berlin' })));
    now = T0 + 12 * 60_000;
    expect(gw.scheduler.dueFires(now).map((f) => [f.name, new Date(f.fireTime).toISOString()])).toEqual([
      ['every5', '2026-03-27T00:00:00.000Z'], ['every5', '2026-03-27T00:05:00.000Z'], ['every5', '2026-03-27T00:10:00.000Z'],
    ]);
    await client.send(new DeleteScheduleCommand({ Name: 'every5', GroupName: 'sys' }));
    now = Date.parse('2026-03-31T12:00:00Z');
    expect(gw.scheduler.dueFires(now).map((f) => new Date(f.fireTime).toISOString())).toEqual([
      '2026-03-27T01:00:00.000Z', // 02:00 CET
      '2026-03-28T01:00:00.000Z',
      // 2026-03-29 02:00 does not exist in Berlin: EventBridge Scheduler skips it
      '2026-03-30T00:00:00.000Z', // 02:00 CEST
      '2026-03-31T00:00:00.000Z',
    ]);
    expect(gw.scheduler.dueFires(now)).toEqual([]);
    expect(gw.scheduler.nextDue()).toBe(Date.parse('2026-04-01T00:00:00Z'));
    await client.send(new DeleteScheduleCommand({ Name: 'nightly', GroupName: 'sys' }));
  });

  it('fires an at() once in its time zone; with ActionAfterCompletion DELETE it is gone afterwards', async () => {
    now = Date.parse('2026-06-01T00:00:00Z');
    await client.send(new CreateScheduleCommand(base({ Name: 'once-delete', ScheduleExpression: 'at(2026-06-01T10:00:00)', ScheduleExpressionTimezone: 'Europe/Berlin', ActionAfterCompletion: 'DELETE' })));
    await client.send(new CreateScheduleCommand(base({ Name: 'once-keep', ScheduleExpression: 'at(2026-06-01T08:30:00)' })));
    now = Date.parse('2026-06-01T08:10:00Z');
    expect(gw.scheduler.dueFires(now).map((f) => [f.name, new Date(f.fireTime).toISOString()])).toEqual([['once-delete', '2026-06-01T08:00:00.000Z']]);
    await expect(client.send(new GetScheduleCommand({ Name: 'once-delete', GroupName: 'sys' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    now = Date.parse('2026-06-02T00:00:00Z');
    expect(gw.scheduler.dueFires(now).map((f) => f.name)).toEqual(['once-keep']);
    expect(gw.scheduler.dueFires(now + 86_400_000)).toEqual([]);
    expect((await client.send(new GetScheduleCommand({ Name: 'once-keep', GroupName: 'sys' }))).Name).toBe('once-keep');
    await client.send(new DeleteScheduleCommand({ Name: 'once-keep', GroupName: 'sys' }));
  });

  it('delivers a fire only when the target role trusts the Scheduler and may send to the target', async () => {
    now = Date.parse('2026-07-01T00:00:00Z');
    await client.send(new CreateScheduleCommand(base({ Name: 'deliver', ScheduleExpression: 'at(2026-07-01T00:01:00)' })));
    await client.send(new CreateScheduleCommand(base({ Name: 'elsewhere', ScheduleExpression: 'at(2026-07-01T00:01:00)', Target: { Arn: `arn:aws:sqs:us-east-1:${ACCOUNT}:other`, RoleArn: TARGET_ROLE } })));
    now += 5 * 60_000;
    fired.length = 0;
    const r = await gw.scheduler.runDue(now);
    expect(r.delivered.map((f) => f.name)).toEqual(['deliver']);
    expect(fired).toEqual([expect.objectContaining({ name: 'deliver', target: expect.objectContaining({ Arn: QUEUE, RoleArn: TARGET_ROLE, Input: '{"kind":"tick"}' }) })]);
    expect(r.denied.map((f) => f.name)).toEqual(['elsewhere']);
    expect(gw.decisions).toContainEqual(expect.objectContaining({ principal: 'scheduler.amazonaws.com', action: 'sts:AssumeRole', resource: TARGET_ROLE, allowed: true }));
    expect(gw.decisions.at(-1)).toMatchObject({ principal: 'SchedulerTarget', action: 'sqs:SendMessage', resource: `arn:aws:sqs:us-east-1:${ACCOUNT}:other`, allowed: false });
  });

  it('a denied target goes straight to the dead-letter queue, and a DLQ the role may not send to is a recorded denial', async () => {
    now = Date.parse('2026-07-02T00:00:00Z');
    const dlq = `arn:aws:sqs:us-east-1:${ACCOUNT}:scheduler-dlq`;
    await client.send(new CreateScheduleCommand(base({ Name: 'denied-dlq', ScheduleExpression: 'at(2026-07-02T00:01:00)', Target: { Arn: `arn:aws:sqs:us-east-1:${ACCOUNT}:other`, RoleArn: TARGET_ROLE, DeadLetterConfig: { Arn: dlq } } })));
    now += 5 * 60_000;
    const r = await gw.scheduler.runDue(now);
    expect(r.denied.map((f) => f.name)).toEqual(['denied-dlq']);
    expect(r.deadLettered).toEqual([]);
    expect(gw.scheduler.nextRetry()).toBeUndefined();
    expect(gw.decisions.at(-1)).toMatchObject({ principal: 'SchedulerTarget', action: 'sqs:SendMessage', resource: dlq, allowed: false });
  });

  it('after a far clock jump keeps the newest maxFiresPerCall fires, oldest first', () => {
    let t = T0;
    const s = new Scheduler({ region: 'us-east-1', accountId: ACCOUNT, clock: () => t, authorizeFire: async () => true, maxFiresPerCall: 3 });
    s.create({ Name: 'every-minute', ScheduleExpression: 'rate(1 minute)', FlexibleTimeWindow: { Mode: 'OFF' }, Target: { Arn: QUEUE, RoleArn: TARGET_ROLE } });
    t = T0 + 10 * 60_000;
    expect(s.dueFires(t).map((f) => (f.fireTime - T0) / 60_000)).toEqual([8, 9, 10]);
    expect(s.nextDue()).toBe(T0 + 11 * 60_000);
  });
});

describe('rehearsal Scheduler emulator: failed deliveries, retries and the dead-letter queue', () => {
  const DLQ = `arn:aws:sqs:us-east-1:${ACCOUNT}:SchedulerDeadLetterQueue`;
  const FN = `arn:aws:lambda:us-east-1:${ACCOUNT}:function:tick`;
  const throttle = () => Object.assign(new Error('Rate Exceeded.'), { name: 'TooManyRequestsException' });

  /** An emulator on a fake clock whose target refuses the first `failures` attempts. */
  function emulator(policy: { MaximumRetryAttempts?: number; MaximumEventAgeInSeconds?: number }, failures: number, error: () => Error = throttle) {
    let t = T0;
    const authorized: string[] = [];
    const attempts: number[] = [];
    const sent: DeadLetter[] = [];
    const s = new Scheduler({
      region: 'us-east-1', accountId: ACCOUNT, clock: () => t,
      authorizeFire: async (f) => (authorized.push(f.target.Arn), true),
      onFire: async () => {
        attempts.push(t - T0 - 60_000);
        if (attempts.length <= failures) throw error();
      },
    });
    s.setDeadLetterSink(async (d) => void sent.push(d));
    s.create({ Name: 'tick', ScheduleExpression: 'at(2026-03-27T00:01:00)', FlexibleTimeWindow: { Mode: 'OFF' }, Target: { Arn: FN, RoleArn: TARGET_ROLE, Input: '{"kind":"tick"}', DeadLetterConfig: { Arn: DLQ }, RetryPolicy: policy } });
    /** runDue at each offset (ms after the fire time), in order. */
    const at = async (...offsets: number[]) => {
      for (const o of offsets) {
        t = T0 + 60_000 + o;
        await s.runDue(t);
      }
    };
    return { s, at, attempts, authorized, sent };
  }

  it('retries with back-off (10 s, 20 s) until MaximumRetryAttempts, then sends the input to the DLQ with the attributes AWS sets', async () => {
    const { s, at, attempts, authorized, sent } = emulator({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 }, 99);
    await at(0, 5_000);
    expect(s.nextRetry()).toBe(T0 + 70_000);
    await at(10_000, 29_000, 30_000, 120_000);
    expect(attempts).toEqual([0, 10_000, 30_000]);
    expect(s.nextRetry()).toBeUndefined();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      queueArn: DLQ, body: '{"kind":"tick"}',
      attributes: {
        ERROR_CODE: 'TooManyRequestsException', ERROR_MESSAGE: 'Rate Exceeded.', EXHAUSTED_RETRY_CONDITION: 'MaximumRetryAttempts',
        IS_PAYLOAD_TRUNCATED: 'false', RETRY_ATTEMPTS: '2', SCHEDULED_TIME: '2026-03-27T00:01:00Z',
        SCHEDULE_ARN: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/default/tick`, TARGET_ARN: FN,
      },
    });
    expect(sent[0].attributes.EXECUTION_ID).toMatch(/^[0-9a-f-]{36}$/);
    // The DLQ send was authorized as the schedule's role, after the three target attempts.
    expect(authorized).toEqual([FN, FN, FN, DLQ]);
    expect(s.deadLetters).toEqual(sent);
  });

  it('stops at MaximumEventAgeInSeconds when the next retry would come later', async () => {
    const { at, attempts, sent } = emulator({ MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 60 }, 99);
    await at(0, 10_000, 30_000);
    expect(attempts).toEqual([0, 10_000, 30_000]);
    expect(sent.map((d) => [d.attributes.EXHAUSTED_RETRY_CONDITION, d.attributes.RETRY_ATTEMPTS])).toEqual([['MaximumEventAgeInSeconds', '2']]);
  });

  it('delivers on a retry once the target accepts again: nothing goes to the DLQ', async () => {
    const { s, at, attempts, sent } = emulator({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 }, 1);
    await at(0, 10_000, 60_000);
    expect(attempts).toEqual([0, 10_000]);
    expect(sent).toEqual([]);
    expect(s.nextRetry()).toBeUndefined();
  });

  it('an error retrying cannot cure goes to the DLQ at once, without EXHAUSTED_RETRY_CONDITION', async () => {
    const gone = () => Object.assign(new Error('Function not found'), { name: 'ResourceNotFoundException', retryable: false });
    const { at, attempts, sent } = emulator({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 }, 99, gone);
    await at(0, 10_000);
    expect(attempts).toEqual([0]);
    expect(sent[0].attributes).toMatchObject({ ERROR_CODE: 'ResourceNotFoundException', RETRY_ATTEMPTS: '0' });
    expect(sent[0].attributes.EXHAUSTED_RETRY_CONDITION).toBeUndefined();
  });
});
