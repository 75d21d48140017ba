/**
 * The {@link Timer} port on AWS: waits up to `maxQueueDelayMs` (15 minutes) ride on an SQS
 * message delay; longer ones become EventBridge Scheduler one-time schedules that put the
 * message on the ready queue and delete themselves. See docs/adr/0003-timers-and-queue.md.
 */
import {
  ConflictException,
  CreateScheduleCommand,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { encodeQueueMessage } from '../../engine/index.js';
import type { Clock, Metrics, Queue, QueueMessage, Timer } from '../../engine/index.js';
import { isAwsError, wrapAwsError } from './aws-errors.js';
import { scheduleName } from './schedule-names.js';

export interface SchedulerTimerOptions {
  scheduler: SchedulerClient;
  /** The ready queue, used directly for waits the queue can delay. */
  queue: Queue;
  /** Schedule group of one-time timers (not the group of recurring DAG schedules). */
  groupName: string;
  targetQueueArn: string;
  /** Role EventBridge Scheduler assumes to send to the queue. */
  roleArn: string;
  /** Where Scheduler puts a message it could not deliver. */
  dlqArn: string;
  /** Longest wait handled by an SQS delay. @default 900_000 */
  maxQueueDelayMs?: number;
  /** @default 10 */
  maxRetryAttempts?: number;
  clock: Clock;
  metrics?: Metrics;
}

/**
 * The `at()` expression for an instant, in UTC. Rounded up to the second: a timer may
 * fire late (Scheduler fires within the minute) but never early.
 *
 * @example
 * atExpression(Date.UTC(2030, 0, 2, 3, 4, 5, 1)); // 'at(2030-01-02T03:04:06)'
 */
export function atExpression(at: number): string {
  const seconds = Math.ceil(at / 1000) * 1000;
  return `at(${new Date(seconds).toISOString().slice(0, 19)})`;
}

/**
 * {@link Timer} on SQS delays and EventBridge Scheduler.
 *
 * @example
 * const timer = new SchedulerTimer({ scheduler, queue, groupName: 'airless-timers', targetQueueArn,
 *   roleArn, dlqArn, clock: systemClock });
 * await timer.schedule('etl/r1/extract/retry/2', Date.parse('2030-01-01T00:00:00Z'), message);
 */
export class SchedulerTimer implements Timer {
  private readonly o: SchedulerTimerOptions & { maxQueueDelayMs: number; maxRetryAttempts: number };

  constructor(opts: SchedulerTimerOptions) {
    this.o = { ...opts, maxQueueDelayMs: opts.maxQueueDelayMs ?? 900_000, maxRetryAttempts: opts.maxRetryAttempts ?? 10 };
  }

  async schedule(id: string, at: number, message: QueueMessage): Promise<void> {
    const input = encodeQueueMessage(message);
    const delayMs = at - this.o.clock.now();
    // The AWS docs do not promise what an at() in the past does, so past and near
    // instants never reach Scheduler: the queue delivers them (now, or after a delay).
    if (delayMs <= 0) {
      await this.o.queue.send([message]);
      this.o.metrics?.count('timer.immediate');
      return;
    }
    if (delayMs <= this.o.maxQueueDelayMs) {
      await this.o.queue.send([message], { delayMs });
      this.o.metrics?.count('timer.queue_delay');
      return;
    }
    const name = scheduleName(id);
    const command = new CreateScheduleCommand({
      Name: name,
      GroupName: this.o.groupName,
      Description: `airless timer ${id.slice(0, 480)}`,
      ScheduleExpression: atExpression(at),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      State: 'ENABLED',
      Target: {
        Arn: this.o.targetQueueArn,
        RoleArn: this.o.roleArn,
        Input: input,
        DeadLetterConfig: { Arn: this.o.dlqArn },
        RetryPolicy: { MaximumRetryAttempts: this.o.maxRetryAttempts, MaximumEventAgeInSeconds: 86_400 },
      },
    });
    this.o.metrics?.count('scheduler.calls');
    try {
      await this.o.scheduler.send(command);
      this.o.metrics?.count('timer.scheduled');
    } catch (e) {
      // Same id, same name: the schedule exists from an earlier (retried) call.
      if (e instanceof ConflictException || isAwsError(e, 'ConflictException')) {
        this.o.metrics?.count('timer.already_scheduled');
        return;
      }
      throw wrapAwsError(`EventBridge Scheduler CreateSchedule ${this.o.groupName}/${name}`, e);
    }
  }
}
