import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ListSchedulesCommand,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { CountingMetrics } from '../../../lib/adapters/aws/metrics.js';
import { scheduleName } from '../../../lib/adapters/aws/schedule-names.js';
import { ScheduleSync } from '../../../lib/adapters/aws/schedule-sync.js';
import type { DagSpec } from '../../../lib/engine/index.js';

const NOW = Date.UTC(2030, 0, 1);
const client = new SchedulerClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const scheduler = mockClient(client);

function dag(dagId: string, over: Partial<DagSpec> = {}): DagSpec {
  return {
    dagId,
    file: `${dagId}.ts`,
    schedule: { kind: 'cron', expr: '0 2 * * *', timezone: 'Europe/Paris' },
    timezone: 'Europe/Paris',
    catchup: false,
    maxActiveRuns: 1,
    maxActiveTasks: 16,
    maxParallelism: 1,
    params: {},
    tags: [],
    pausedOnCreation: false,
    tasks: [],
    ...over,
  };
}

let metrics: CountingMetrics;
let sync: ScheduleSync;

beforeEach(() => {
  scheduler.reset();
  metrics = new CountingMetrics();
  sync = new ScheduleSync({
    scheduler: client,
    groupName: 'airless-dags',
    targetQueueArn: 'arn:aws:sqs:us-east-1:1:ready',
    roleArn: 'arn:aws:iam::1:role/scheduler',
    dlqArn: 'arn:aws:sqs:us-east-1:1:ready-dlq',
    metrics,
  });
});

describe('ScheduleSync', () => {
  it('creates, updates, deletes and leaves unchanged schedules to match the DAGs', async () => {
    const etl = dag('etl');
    const reports = dag('reports', { schedule: { kind: 'rate', everyMs: 3600_000 } });
    const fresh = dag('fresh', { startDate: '2030-02-01T00:00:00Z', endDate: '2031-01-01T00:00:00Z' });
    const manual = dag('manual', { schedule: null });
    const ended = dag('ended', { endDate: '2029-12-31T00:00:00Z' });
    const opts = { now: NOW };
    const etlDescription = sync.desiredSchedule(etl, opts)!.Description;

    scheduler
      .on(ListSchedulesCommand)
      .resolvesOnce({ Schedules: [{ Name: 'etl' }, { Name: 'reports' }], NextToken: 'page2' })
      .resolvesOnce({ Schedules: [{ Name: 'ended' }, { Name: 'gone' }] });
    scheduler.on(GetScheduleCommand, { Name: 'etl' }).resolves({ Name: 'etl', Description: etlDescription });
    scheduler.on(GetScheduleCommand, { Name: 'reports' }).resolves({ Name: 'reports', Description: 'airless dag reports config:0000000000000000' });
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn' });
    scheduler.on(UpdateScheduleCommand).resolves({ ScheduleArn: 'arn' });
    scheduler.on(DeleteScheduleCommand).resolves({});

    const result = await sync.sync([etl, reports, fresh, manual, ended], opts);

    expect(result).toEqual({ created: ['fresh'], updated: ['reports'], deleted: ['ended', 'gone'], unchanged: ['etl'] });
    expect(scheduler).toHaveReceivedNthCommandWith(ListSchedulesCommand, 2, { GroupName: 'airless-dags', NextToken: 'page2' });
    expect(scheduler).toHaveReceivedCommandTimes(CreateScheduleCommand, 1);
    expect(scheduler).toHaveReceivedCommandWith(CreateScheduleCommand, {
      Name: 'fresh',
      GroupName: 'airless-dags',
      ScheduleExpression: 'cron(0 2 * * ? *)',
      ScheduleExpressionTimezone: 'Europe/Paris',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      StartDate: new Date('2030-02-01T00:00:00Z'),
      EndDate: new Date('2031-01-01T00:00:00Z'),
      Target: {
        Arn: 'arn:aws:sqs:us-east-1:1:ready',
        RoleArn: 'arn:aws:iam::1:role/scheduler',
        Input: '{"kind":"schedule","dagId":"fresh","tickAt":0}',
        DeadLetterConfig: { Arn: 'arn:aws:sqs:us-east-1:1:ready-dlq' },
        RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 86_400 },
      },
    });
    expect(scheduler).toHaveReceivedCommandTimes(UpdateScheduleCommand, 1);
    expect(scheduler).toHaveReceivedCommandWith(UpdateScheduleCommand, {
      Name: 'reports',
      ScheduleExpression: 'rate(1 hour)',
      State: 'ENABLED',
    });
    expect(scheduler).toHaveReceivedCommandTimes(DeleteScheduleCommand, 2);
    expect(scheduler).toHaveReceivedCommandWith(DeleteScheduleCommand, { Name: 'gone', GroupName: 'airless-dags' });
    // 2 lists + 2 gets + 1 create + 1 update + 2 deletes
    expect(metrics.get('scheduler.calls')).toBe(8);
  });

  it('leaves out a start date already passed, and disables paused DAGs', () => {
    const d = dag('etl', { startDate: '2029-01-01T00:00:00Z' });
    const input = sync.desiredSchedule(d, { now: NOW, isPaused: () => true })!;
    expect(input.StartDate).toBeUndefined();
    expect(input.State).toBe('DISABLED');
    expect(sync.desiredSchedule(dag('p', { pausedOnCreation: true }), { now: NOW })!.State).toBe('DISABLED');
  });

  it('changes the config hash when anything that matters changes, and only then', () => {
    const hash = (d: DagSpec, paused = false) =>
      sync.desiredSchedule(d, { now: NOW, isPaused: () => paused })!.Description!.slice(-16);
    const base = hash(dag('etl'));
    expect(hash(dag('etl'))).toBe(base);
    expect(hash(dag('etl', { tags: ['x'], description: 'other' }))).toBe(base);
    expect(hash(dag('etl'), true)).not.toBe(base);
    expect(hash(dag('etl', { endDate: '2031-01-01T00:00:00Z' }))).not.toBe(base);
    expect(hash(dag('etl', { schedule: { kind: 'cron', expr: '0 3 * * *', timezone: 'Europe/Paris' } }))).not.toBe(base);
  });

  it('hashes DAG ids that are not valid schedule names', async () => {
    scheduler.on(ListSchedulesCommand).resolves({ Schedules: [] });
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn' });
    const id = `${'very_long_dag_id_'.repeat(5)}x`;
    await sync.sync([dag(id)], { now: NOW });
    expect(scheduler).toHaveReceivedCommandWith(CreateScheduleCommand, { Name: scheduleName(id) });
    expect(scheduleName(id)).toHaveLength(64);
  });

  it('updates when a concurrent sync created the schedule first', async () => {
    scheduler.on(ListSchedulesCommand).resolves({ Schedules: [] });
    scheduler.on(CreateScheduleCommand).rejects(new ConflictException({ message: 'exists', $metadata: {} } as never));
    scheduler.on(UpdateScheduleCommand).resolves({ ScheduleArn: 'arn' });
    const result = await sync.sync([dag('etl')], { now: NOW });
    expect(result.updated).toEqual(['etl']);
    expect(scheduler).toHaveReceivedCommandTimes(UpdateScheduleCommand, 1);
  });
});
