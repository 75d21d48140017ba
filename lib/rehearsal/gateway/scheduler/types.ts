/** Types of the in-process EventBridge Scheduler emulator (field names as in the Scheduler API). */
import type { DeadLetter } from './dead-letter.js';

export type { DeadLetter } from './dead-letter.js';

export interface RunDueResult {
  delivered: ScheduleFire[];
  denied: ScheduleFire[];
  /** Attempts that threw (retried or given up). */
  failed: { fire: ScheduleFire; error: unknown }[];
  /** Fires put back for a retry. */
  retrying: ScheduleFire[];
  /** Dead-letter events sent. */
  deadLettered: DeadLetter[];
}

export interface ScheduleTarget {
  Arn: string;
  RoleArn: string;
  Input?: string;
  DeadLetterConfig?: { Arn?: string };
  RetryPolicy?: { MaximumEventAgeInSeconds?: number; MaximumRetryAttempts?: number };
  SqsParameters?: { MessageGroupId?: string };
}

export interface Schedule {
  Name: string;
  GroupName: string;
  Arn: string;
  ScheduleExpression: string;
  ScheduleExpressionTimezone?: string;
  StartDate?: number;
  EndDate?: number;
  Description?: string;
  State: 'ENABLED' | 'DISABLED';
  FlexibleTimeWindow: { Mode: 'OFF' | 'FLEXIBLE'; MaximumWindowInMinutes?: number };
  Target: ScheduleTarget;
  ActionAfterCompletion: 'NONE' | 'DELETE';
  CreationDate: number;
  LastModificationDate: number;
}

/** One due fire: the schedule's target is to be delivered with `target.RoleArn` at `fireTime`. */
export interface ScheduleFire {
  group: string;
  name: string;
  scheduleArn: string;
  fireTime: number;
  target: ScheduleTarget;
}

export interface SchedulerEmulator {
  /** Create a group, as CloudFormation's AWS::Scheduler::ScheduleGroup does ('default' always exists). */
  createGroup(name: string): void;
  /** Create or replace a schedule, as CloudFormation's AWS::Scheduler::Schedule does (validated like the API). */
  putSchedule(input: ScheduleInput): Schedule;
  getSchedule(group: string, name: string): Schedule | undefined;
  listSchedules(): Schedule[];
  /**
   * Fires due since the previous call (or since each schedule's creation), oldest first; marks
   * completed `at()` schedules done and deletes those with ActionAfterCompletion DELETE.
   */
  dueFires(now: number): ScheduleFire[];
  /** Is the target role allowed to deliver this fire (trust + sqs:SendMessage / lambda:InvokeFunction)? Recorded. */
  authorizeFire(fire: ScheduleFire): Promise<boolean>;
  /**
   * Due retries and dueFires(now): authorize each and hand the allowed ones to `onScheduleFire`.
   * A delivery that throws is retried with back-off per the target's RetryPolicy, then (or at
   * once when the error is not retryable, or the role is denied) its input goes to the
   * DeadLetterConfig queue, authorized as the schedule's role (dead-letter.ts).
   */
  runDue(now: number): Promise<RunDueResult>;
  /** The earliest pending retry of a failed delivery, or undefined. */
  nextRetry(): number | undefined;
  /** Every dead-letter event sent, in order. */
  readonly deadLetters: readonly DeadLetter[];
  /** Where authorized dead-letter events are sent. */
  setDeadLetterSink(sink: (d: DeadLetter) => Promise<void>): void;
  /** The earliest pending fire over enabled schedules (may be <= now when due), or undefined. */
  nextDue(): number | undefined;
  /** Remove a schedule (as DeleteSchedule); false when it does not exist. */
  deleteSchedule(group: string, name: string): boolean;
}

/** Input of CreateSchedule/UpdateSchedule (the API's JSON body plus the name and group). */
export interface ScheduleInput {
  Name: string;
  GroupName?: string;
  ScheduleExpression: string;
  ScheduleExpressionTimezone?: string;
  StartDate?: number | string;
  EndDate?: number | string;
  Description?: string;
  State?: string;
  FlexibleTimeWindow: { Mode: string; MaximumWindowInMinutes?: number };
  Target: ScheduleTarget;
  ActionAfterCompletion?: string;
  /** Idempotency token: a CreateSchedule repeated with the same token (an SDK retry) succeeds again. */
  ClientToken?: string;
}
