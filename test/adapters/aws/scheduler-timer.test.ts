import {
  ConflictException,
  CreateScheduleCommand,
  SchedulerClient,
  ThrottlingException,
} from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { CountingMetrics } from '../../../lib/adapters/aws/metrics.js';
import { scheduleName } from '../../../lib/adapters/aws/schedule-names.js';
import { atExpression, SchedulerTimer } from '../../../lib/adapters/aws/scheduler-timer.js';
import { AirlessError } from '../../../lib/engine/index.js';
import type { Clock, FireMessage, Queue, QueueMessage } from '../../../lib/engine/index.js';

const NOW = Date.UTC(2030, 0, 1, 0, 0, 0);
const clock: Clock = { now: () => NOW, sleep: async () => {} };
const message: FireMessage = { kind: 'fire', dagId: 'etl', runId: 'r1', taskId: 'wait', tryNumber: 1, reason: 'retry' };

class FakeQueue implements Queue {
  sent: { messages: readonly QueueMessage[]; delayMs?: number }[] = [];
  async send(messages: readonly QueueMessage[], opts?: { delayMs?: number }): Promise<void> {
    this.sent.push({ messages, delayMs: opts?.delayMs });
  }
}

const client = new SchedulerClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const scheduler = mockClient(client);
let queue: FakeQueue;
let metrics: CountingMetrics;
let timer: SchedulerTimer;

beforeEach(() => {
  scheduler.reset();
  queue = new FakeQueue();
  metrics = new CountingMetrics();
  timer = new SchedulerTimer({
    scheduler: client,
    queue,
    groupName: 'airless-timers',
    targetQueueArn: 'arn:aws:sqs:us-east-1:123456789012:ready',
    roleArn: 'arn:aws:iam::123456789012:role/scheduler',
    dlqArn: 'arn:aws:sqs:us-east-1:123456789012:ready-dlq',
    clock,
    metrics,
  });
});

describe('SchedulerTimer', () => {
  it('creates a self-deleting one-time schedule for waits beyond 15 minutes', async () => {
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn' });
    const at = NOW + 3 * 3600_000 + 250; // sub-second part rounds up
    await timer.schedule('etl/r1/wait/retry/1', at, message);
    expect(scheduler).toHaveReceivedCommandTimes(CreateScheduleCommand, 1);
    expect(scheduler).toHaveReceivedCommandWith(CreateScheduleCommand, {
      Name: scheduleName('etl/r1/wait/retry/1'),
      GroupName: 'airless-timers',
      ScheduleExpression: 'at(2030-01-01T03:00:01)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      State: 'ENABLED',
      Target: {
        Arn: 'arn:aws:sqs:us-east-1:123456789012:ready',
        RoleArn: 'arn:aws:iam::123456789012:role/scheduler',
        Input: '{"kind":"fire","dagId":"etl","runId":"r1","taskId":"wait","tryNumber":1,"reason":"retry"}',
        DeadLetterConfig: { Arn: 'arn:aws:sqs:us-east-1:123456789012:ready-dlq' },
        RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 86_400 },
      },
    });
    expect(queue.sent).toEqual([]);
    expect(metrics.get('scheduler.calls')).toBe(1);
  });

  it('uses an SQS delay for waits up to 15 minutes, and sends past instants at once', async () => {
    await timer.schedule('a', NOW + 900_000, message);
    await timer.schedule('b', NOW + 1, message);
    await timer.schedule('c', NOW, message);
    await timer.schedule('d', NOW - 60_000, message);
    expect(queue.sent).toEqual([
      { messages: [message], delayMs: 900_000 },
      { messages: [message], delayMs: 1 },
      { messages: [message], delayMs: undefined },
      { messages: [message], delayMs: undefined },
    ]);
    expect(scheduler.calls()).toHaveLength(0);
    expect(metrics.get('scheduler.calls')).toBe(0);
  });

  it('treats an existing schedule as success (idempotent create)', async () => {
    scheduler.on(CreateScheduleCommand).rejects(new ConflictException({ message: 'exists', $metadata: {} } as never));
    await expect(timer.schedule('x', NOW + 3600_000, message)).resolves.toBeUndefined();
    expect(metrics.get('timer.already_scheduled')).toBe(1);
  });

  it('surfaces throttling as a retryable AirlessError', async () => {
    scheduler.on(CreateScheduleCommand).rejects(new ThrottlingException({ message: 'slow down', $metadata: {} } as never));
    const err = await timer.schedule('x', NOW + 3600_000, message).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AirlessError);
    expect((err as AirlessError).retryable).toBe(true);
    expect((err as Error).message).toMatch(/CreateSchedule airless-timers\/x/);
  });

  it('rejects an invalid message before calling anything', async () => {
    await expect(timer.schedule('x', NOW + 3600_000, { ...message, dagId: 'bad id' })).rejects.toThrow(/dagId/);
    expect(scheduler.calls()).toHaveLength(0);
  });

});

describe('schedule names', () => {
  it('keeps valid ids and hashes the rest into valid, distinct names', () => {
    expect(scheduleName('etl')).toBe('etl');
    expect(scheduleName('a.b_c-1')).toBe('a.b_c-1');
    const ids = ['etl/r1/t', 'etl-r1-t', 'etl:r1:t', 'x'.repeat(64), 'x'.repeat(65), 'x'.repeat(300), 'ü', ''];
    const names = ids.map(scheduleName);
    for (const name of names) expect(name).toMatch(/^[0-9a-zA-Z_.-]{1,64}$/);
    expect(new Set(names).size).toBe(ids.length);
    expect(scheduleName('etl/r1/t')).toMatch(/^etl-r1-t--[0-9a-f]{16}$/);
    expect(scheduleName('etl/r1/t')).toBe(scheduleName('etl/r1/t'));
  });

  it('never lets a kept id equal a hashed name', () => {
    const hashed = scheduleName('etl/r1/t');
    expect(scheduleName(hashed)).not.toBe(hashed);
    expect(scheduleName(hashed)).toMatch(/--[0-9a-f]{16}$/);
  });

  it('formats at() in UTC, rounded up to the second', () => {
    expect(atExpression(Date.UTC(2030, 5, 7, 8, 9, 10))).toBe('at(2030-06-07T08:09:10)');
    expect(atExpression(Date.UTC(2030, 5, 7, 8, 9, 10, 1))).toBe('at(2030-06-07T08:09:11)');
  });
});
