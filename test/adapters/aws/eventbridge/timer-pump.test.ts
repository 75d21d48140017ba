/**
 * The LocalStack timer pump on request mocks and a virtual clock: due one-time
 * schedules are delivered once and deleted, recurring ones fire once per tick (missed
 * ticks coalesced), disabled ones and non-SQS targets are left alone.
 */
import {
  DeleteScheduleCommand,
  GetScheduleCommand,
  type GetScheduleCommandOutput,
  ListSchedulesCommand,
  ResourceNotFoundException,
  SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { GetQueueUrlCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../../lib/adapters/clock.js';
import { TimerPump } from '../../../../lib/adapters/aws/eventbridge/timer-pump.js';

const scheduler = mockClient(SchedulerClient);
const sqs = mockClient(SQSClient);
const QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:ready';
const QUEUE_URL = 'http://localhost:4566/000000000000/ready';
const T0 = Date.parse('2030-01-01T00:00:00Z');

type Sched = GetScheduleCommandOutput & { Name: string; GroupName: string };
let schedules: Sched[];

function sched(s: Partial<Sched> & { Name: string; GroupName: string; ScheduleExpression: string }): Sched {
  return { State: 'ENABLED', CreationDate: new Date(T0), Target: { Arn: QUEUE_ARN, RoleArn: 'r', Input: `{"n":"${s.Name}"}` }, $metadata: {}, ...s };
}

beforeEach(() => {
  scheduler.reset();
  sqs.reset();
  schedules = [];
  scheduler.on(ListSchedulesCommand).callsFake((i: { GroupName: string }) => ({
    Schedules: schedules.filter((s) => s.GroupName === i.GroupName).map((s) => ({ Name: s.Name, GroupName: s.GroupName })),
  }));
  scheduler.on(GetScheduleCommand).callsFake((i: { Name: string; GroupName: string }) => {
    const s = schedules.find((x) => x.Name === i.Name && x.GroupName === i.GroupName);
    if (!s) throw new ResourceNotFoundException({ message: 'gone', $metadata: {} } as never);
    return s;
  });
  scheduler.on(DeleteScheduleCommand).callsFake((i: { Name: string; GroupName: string }) => {
    schedules = schedules.filter((x) => !(x.Name === i.Name && x.GroupName === i.GroupName));
    return {};
  });
  sqs.on(GetQueueUrlCommand).resolves({ QueueUrl: QUEUE_URL });
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm' });
});

const pump = () => new TimerPump({ scheduler: new SchedulerClient({ region: 'us-east-1' }), sqs: new SQSClient({ region: 'us-east-1' }), groups: ['A-timers', 'A-dags'] });
const bodies = () => sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input.MessageBody);

describe('TimerPump', () => {
  it('delivers a one-time schedule when due, then deletes it (ActionAfterCompletion DELETE)', async () => {
    schedules.push(sched({ Name: 'retry-1', GroupName: 'A-timers', ScheduleExpression: 'at(2030-01-01T00:20:00)', ActionAfterCompletion: 'DELETE' }));
    const p = pump();
    expect((await p.pumpOnce(T0 + 19 * 60_000)).delivered).toEqual([]);
    const r = await p.pumpOnce(T0 + 20 * 60_000);
    expect(r.delivered).toEqual([{ group: 'A-timers', name: 'retry-1', at: T0 + 20 * 60_000, kind: 'once' }]);
    expect(r.deleted).toEqual(['A-timers/retry-1']);
    expect(sqs).toHaveReceivedCommandWith(GetQueueUrlCommand, { QueueName: 'ready', QueueOwnerAWSAccountId: '000000000000' });
    expect(sqs).toHaveReceivedCommandWith(SendMessageCommand, { QueueUrl: QUEUE_URL, MessageBody: '{"n":"retry-1"}' });
    expect(scheduler).toHaveReceivedCommandWith(DeleteScheduleCommand, { GroupName: 'A-timers', Name: 'retry-1' });
    await p.pumpOnce(T0 + 21 * 60_000);
    expect(bodies()).toEqual(['{"n":"retry-1"}']);
  });

  it('delivers a kept one-time schedule once (ActionAfterCompletion NONE) and reads at() in its timezone', async () => {
    schedules.push(sched({ Name: 'once', GroupName: 'A-timers', ScheduleExpression: 'at(2030-01-01T01:00:00)', ScheduleExpressionTimezone: 'Europe/Berlin', ActionAfterCompletion: 'NONE' }));
    const p = pump();
    expect((await p.pumpOnce(T0 - 1)).delivered).toHaveLength(0); // 01:00 Berlin = 00:00Z
    expect((await p.pumpOnce(T0)).delivered).toHaveLength(1);
    expect((await p.pumpOnce(T0 + 60_000)).delivered).toHaveLength(0);
    expect(scheduler).not.toHaveReceivedCommand(DeleteScheduleCommand);
  });

  it('fires a cron DAG schedule at each tick in its timezone, once per tick', async () => {
    // 02:00 Europe/Berlin = 01:00Z in winter.
    schedules.push(sched({ Name: 'etl_daily', GroupName: 'A-dags', ScheduleExpression: 'cron(0 2 * * ? *)', ScheduleExpressionTimezone: 'Europe/Berlin' }));
    const p = pump();
    expect((await p.pumpOnce(T0 + 3_599_000)).delivered).toHaveLength(0);
    const r = await p.pumpOnce(T0 + 3_600_000);
    expect(r.delivered).toEqual([{ group: 'A-dags', name: 'etl_daily', at: T0 + 3_600_000, kind: 'recurring' }]);
    expect((await p.pumpOnce(T0 + 3_700_000)).delivered).toHaveLength(0);
    expect((await p.pumpOnce(T0 + 86_400_000 + 3_600_000)).delivered.map((d) => d.at)).toEqual([T0 + 86_400_000 + 3_600_000]);
    expect(bodies()).toEqual(['{"n":"etl_daily"}', '{"n":"etl_daily"}']);
  });

  it('coalesces ticks missed while the pump was down into one delivery of the latest', async () => {
    schedules.push(sched({ Name: 'every5', GroupName: 'A-dags', ScheduleExpression: 'rate(5 minutes)' }));
    const p = pump();
    const r = await p.pumpOnce(T0 + 23 * 60_000);
    expect(r.delivered.map((d) => d.at)).toEqual([T0 + 20 * 60_000]);
    expect((await p.pumpOnce(T0 + 24 * 60_000)).delivered).toHaveLength(0);
    expect((await p.pumpOnce(T0 + 25 * 60_000)).delivered.map((d) => d.at)).toEqual([T0 + 25 * 60_000]);
  });

  it('skips disabled schedules without a backlog on enabling, and targets that are not SQS queues', async () => {
    const paused = sched({ Name: 'paused', GroupName: 'A-dags', ScheduleExpression: 'rate(1 minute)', State: 'DISABLED' });
    schedules.push(paused, sched({ Name: 'tick', GroupName: 'A-dags', ScheduleExpression: 'rate(1 minute)', Target: { Arn: 'arn:aws:lambda:us-east-1:000000000000:function:tick', RoleArn: 'r' } }));
    const p = pump();
    const r = await p.pumpOnce(T0 + 10 * 60_000);
    expect(r.delivered).toEqual([]);
    expect(r.skipped.map((s) => s.name).sort()).toEqual(['A-dags/paused', 'A-dags/tick']);
    expect(r.skipped.find((s) => s.name === 'A-dags/tick')!.reason).toMatch(/not an SQS queue/);
    paused.State = 'ENABLED';
    expect((await p.pumpOnce(T0 + 10 * 60_000 + 30_000)).delivered).toHaveLength(0);
    expect((await p.pumpOnce(T0 + 11 * 60_000)).delivered.map((d) => [d.name, d.at])).toEqual([['paused', T0 + 11 * 60_000]]);
  });

  it('reads crons as Scheduler does: L, W and # fire (the rehearsal\'s reader), an unreadable expression is skipped with Scheduler\'s message', async () => {
    schedules.push(
      sched({ Name: 'month-end', GroupName: 'A-dags', ScheduleExpression: 'cron(0 9 L * ? *)' }),
      sched({ Name: 'first-monday', GroupName: 'A-dags', ScheduleExpression: 'cron(0 9 ? * 2#1 *)' }),
      sched({ Name: 'bad', GroupName: 'A-dags', ScheduleExpression: 'cron(0 9 * * * *)' }),
    );
    const p = pump();
    // 2030-01-07 is the first Monday of January 2030; 2030-01-31 its last day.
    const firstMonday = Date.parse('2030-01-07T09:00:00Z');
    const monthEnd = Date.parse('2030-01-31T09:00:00Z');
    const early = await p.pumpOnce(firstMonday - 1);
    expect(early.delivered).toEqual([]);
    expect(early.skipped).toEqual([{ name: 'A-dags/bad', reason: 'Invalid Schedule Expression cron(0 9 * * * *).' }]);
    expect((await p.pumpOnce(firstMonday)).delivered.map((d) => [d.name, d.at])).toEqual([['first-monday', firstMonday]]);
    expect((await p.pumpOnce(monthEnd - 1)).delivered).toEqual([]);
    expect((await p.pumpOnce(monthEnd)).delivered.map((d) => [d.name, d.at])).toEqual([['month-end', monthEnd]]);
  });

  it('respects StartDate and EndDate', async () => {
    schedules.push(sched({ Name: 'window', GroupName: 'A-dags', ScheduleExpression: 'cron(0 * * * ? *)', StartDate: new Date(T0 + 2 * 3_600_000), EndDate: new Date(T0 + 3 * 3_600_000) }));
    const p = pump();
    expect((await p.pumpOnce(T0 + 3_600_000)).delivered).toHaveLength(0);
    expect((await p.pumpOnce(T0 + 2 * 3_600_000)).delivered.map((d) => d.at)).toEqual([T0 + 2 * 3_600_000]);
    expect((await p.pumpOnce(T0 + 3 * 3_600_000)).delivered.map((d) => d.at)).toEqual([T0 + 3 * 3_600_000]);
    expect((await p.pumpOnce(T0 + 5 * 3_600_000)).delivered).toHaveLength(0);
  });

  it('runs on a virtual clock until aborted, surviving a failing cycle', async () => {
    schedules.push(sched({ Name: 'every1', GroupName: 'A-dags', ScheduleExpression: 'rate(1 minute)' }));
    sqs.on(SendMessageCommand).rejectsOnce(new Error('LocalStack hiccup')).resolves({ MessageId: 'm' });
    const clock = new VirtualClock(T0);
    const lines: string[] = [];
    const p = new TimerPump({ scheduler: new SchedulerClient({ region: 'us-east-1' }), sqs: new SQSClient({ region: 'us-east-1' }), groups: ['A-dags'], log: (l) => lines.push(l) });
    const done = p.run({ clock, intervalMs: 30_000, maxCycles: 6 });
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      clock.advanceBy(30_000);
    }
    await done;
    expect(lines.some((l) => /LocalStack hiccup/.test(l))).toBe(true);
    // Ticks at +1, +2 min: the first attempt at +1 failed and was retried at +1:30.
    expect(sqs.commandCalls(SendMessageCommand).length).toBeGreaterThanOrEqual(3);
    expect(lines.filter((l) => l.startsWith('delivered')).length).toBe(2);
  });
});
