/**
 * The poker schedule switch (lib/adapters/aws/poker-schedules.ts) against the rehearsal's
 * EventBridge Scheduler emulator through its IAM gateway: a switch writes back the whole
 * definition with only its State changed, a disabled poker stops firing, a switch to the
 * state it is in costs one read, and a role without the grants the stack gives fails as on AWS.
 */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SchedulerPokerSchedules } from '../../../lib/adapters/aws/poker-schedules.js';
import { NotFoundError } from '../../../lib/engine/index.js';
import { startGateway, type Gateway, type PolicyDocument, type Principal } from '../../../lib/rehearsal/gateway/index.js';

const ACCOUNT = '000000000000';
const GROUP = 'Airless-system';
const POKER_FN = `arn:aws:lambda:us-east-1:${ACCOUNT}:function:poker`;
const INVOKER = `arn:aws:iam::${ACCOUNT}:role/invoker`;
const doc = (...Statement: PolicyDocument['Statement'][]): PolicyDocument => ({ Version: '2012-10-17', Statement: Statement.flat() });
// The statements lib/infra/schedules.ts grantPokerSwitch gives.
const switchStatements = [
  { Effect: 'Allow', Action: ['scheduler:GetSchedule', 'scheduler:UpdateSchedule'], Resource: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/${GROUP}/poker-*` },
  { Effect: 'Allow', Action: 'iam:PassRole', Resource: INVOKER, Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } } },
] as PolicyDocument['Statement'][];
const tick: Principal = { accessKeyId: 'AKIATICK', name: 'Tick', roleArn: `arn:aws:iam::${ACCOUNT}:role/tick`, policies: [{ name: 'TickPolicy', document: doc(...switchStatements) }] };
const noPass: Principal = { accessKeyId: 'AKIANOPASS', name: 'NoPass', roleArn: `arn:aws:iam::${ACCOUNT}:role/nopass`, policies: [{ name: 'P', document: doc(switchStatements[0]!) }] };

describe('poker schedules on the Scheduler emulator', () => {
  const now = Date.parse('2026-11-25T10:00:30Z');
  let gw: Gateway;
  const clients: SchedulerClient[] = [];
  const switchAs = (p: Principal) => {
    const c = new SchedulerClient({ endpoint: gw.url, region: 'us-east-1', maxAttempts: 1, credentials: { accessKeyId: p.accessKeyId, secretAccessKey: 'x' } });
    clients.push(c);
    return new SchedulerPokerSchedules({ scheduler: c, groupName: GROUP });
  };

  beforeAll(async () => {
    gw = await startGateway({
      region: 'us-east-1', accountId: ACCOUNT, upstream: { dynamodb: 'http://127.0.0.1:1', sqs: 'http://127.0.0.1:1', s3: 'http://127.0.0.1:1' },
      resourcePolicies: {}, principals: [tick, noPass], clock: () => now,
    });
    gw.scheduler.createGroup(GROUP);
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await gw?.close();
  });
  beforeEach(() => {
    // As the stack deploys them: disabled, every minute, {"shard": i}, a DLQ and a retry policy.
    for (const shard of [0, 1]) {
      gw.scheduler.putSchedule({
        Name: `poker-${shard}`, GroupName: GROUP, ScheduleExpression: 'rate(1 minute)', State: 'DISABLED', FlexibleTimeWindow: { Mode: 'OFF' },
        Target: { Arn: POKER_FN, RoleArn: INVOKER, Input: JSON.stringify({ shard }), DeadLetterConfig: { Arn: `arn:aws:sqs:us-east-1:${ACCOUNT}:dlq` }, RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 } },
      });
    }
    gw.decisions.length = 0;
  });

  it('enables and disables one shard\'s poker, changing nothing but its State; a disabled poker never fires', async () => {
    const pokers = switchAs(tick);
    const before = gw.scheduler.getSchedule(GROUP, 'poker-1')!;
    expect(await pokers.isEnabled(1)).toBe(false);
    await pokers.setEnabled(1, true);
    const on = gw.scheduler.getSchedule(GROUP, 'poker-1')!;
    expect(on).toEqual({ ...before, State: 'ENABLED', LastModificationDate: on.LastModificationDate });
    expect(await pokers.isEnabled(1)).toBe(true);
    expect(await pokers.isEnabled(0)).toBe(false);
    expect(gw.scheduler.dueFires(now + 3 * 60_000).map((f) => f.target.Input)).toEqual(['{"shard":1}', '{"shard":1}', '{"shard":1}', '{"shard":1}']);

    await pokers.setEnabled(1, false);
    expect(gw.scheduler.getSchedule(GROUP, 'poker-1')).toMatchObject({ State: 'DISABLED', Target: before.Target, ScheduleExpression: 'rate(1 minute)' });
    expect(gw.scheduler.dueFires(now + 10 * 60_000)).toEqual([]);
    expect(gw.decisions.filter((d) => !d.allowed)).toEqual([]);
    expect(gw.decisions.map((d) => d.action)).toEqual(expect.arrayContaining(['scheduler:UpdateSchedule', 'iam:PassRole']));
  });

  it('switches to the state a schedule is in with one read and no update (racing switches stay cheap)', async () => {
    await switchAs(tick).setEnabled(0, false);
    expect(gw.decisions.map((d) => d.action)).toEqual(['scheduler:GetSchedule']);
  });

  it('fails as AWS does without iam:PassRole on the invoker role, and says which schedule is missing', async () => {
    await expect(switchAs(noPass).setEnabled(0, true)).rejects.toThrow(/not authorized to perform: iam:PassRole on resource: arn:aws:iam::000000000000:role\/invoker/);
    expect(gw.scheduler.getSchedule(GROUP, 'poker-0')).toMatchObject({ State: 'DISABLED' });
    await expect(switchAs(tick).setEnabled(7, true)).rejects.toThrow(NotFoundError);
    await expect(switchAs(tick).setEnabled(7, true)).rejects.toThrow(/no poker schedule Airless-system\/poker-7/);
    expect(await switchAs(tick).isEnabled(7)).toBeUndefined();
  });
});
