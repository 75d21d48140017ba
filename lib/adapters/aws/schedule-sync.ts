/**
 * Keeps one EventBridge Scheduler recurring schedule per scheduled DAG in a dedicated
 * group (e.g. `airless-dags`). Called by `register-bundle` after a manifest is uploaded,
 * and on pause/unpause. Each schedule puts `{"kind":"schedule","dagId":...,"tickAt":0}` on
 * the ready queue; tickAt 0 lets the engine compute the due tick, because a recurring
 * schedule cannot template its fire time into the message.
 */
import {
  ConflictException,
  CreateScheduleCommand,
  type CreateScheduleCommandInput,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ListSchedulesCommand,
  ResourceNotFoundException,
  type SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { canonicalJson, sha256Hex } from '../../engine/index.js';
import { encodeQueueMessage } from '../../engine/index.js';
import type { DagSpec, ScheduleSpec } from '../../engine/index.js';
import type { Metrics } from '../../engine/index.js';
import { toEventBridgeExpression } from './eventbridge/to-expression.js';
import { isAwsError, wrapAwsError } from './aws-errors.js';
import { scheduleName } from './schedule-names.js';

export interface ScheduleSyncOptions {
  scheduler: SchedulerClient;
  /** A group that holds only DAG schedules: anything else in it is deleted. */
  groupName: string;
  targetQueueArn: string;
  roleArn: string;
  dlqArn?: string;
  metrics?: Metrics;
  /** Cron/rate spec to EventBridge expression. @default toEventBridgeExpression (eventbridge/to-expression.ts) */
  toExpression?: (spec: Exclude<ScheduleSpec, null>) => EventBridgeExpression;
}

export interface SyncOptions {
  /** Current time: start dates already passed are left out, DAGs past their end date get no schedule. */
  now: number;
  /** Whether a DAG is paused (a disabled schedule). @default dag.pausedOnCreation */
  isPaused?: (dag: DagSpec) => boolean;
}

/** Schedules changed by a sync: DAG ids for created/updated/unchanged, schedule names for deleted. */
export interface SyncResult {
  created: string[];
  updated: string[];
  deleted: string[];
  unchanged: string[];
}

export interface EventBridgeExpression {
  expression: string;
  timezone?: string;
}

const CONFIG_TAG = /config:([0-9a-f]{16})$/;

/**
 * Reconciles the group's schedules with the DAGs.
 *
 * @example
 * const sync = new ScheduleSync({ scheduler, groupName: 'airless-dags', targetQueueArn, roleArn, dlqArn });
 * const { created, deleted } = await sync.sync(manifest.dags, { now: Date.now(), isPaused: (d) => paused.has(d.dagId) });
 */
export class ScheduleSync {
  private readonly o: ScheduleSyncOptions;
  private readonly toExpression: (spec: Exclude<ScheduleSpec, null>) => EventBridgeExpression;

  constructor(opts: ScheduleSyncOptions) {
    this.o = opts;
    this.toExpression = opts.toExpression ?? toEventBridgeExpression;
  }

  async sync(dags: readonly DagSpec[], opts: SyncOptions): Promise<SyncResult> {
    const desired = new Map<string, { dagId: string; input: CreateScheduleCommandInput }>();
    for (const dag of dags) {
      const input = this.desiredSchedule(dag, opts);
      if (input) desired.set(input.Name!, { dagId: dag.dagId, input });
    }
    const existing = await this.listNames();
    const result: SyncResult = { created: [], updated: [], deleted: [], unchanged: [] };

    for (const name of existing) {
      if (desired.has(name)) continue;
      await this.delete(name);
      result.deleted.push(name);
    }
    for (const [name, { dagId, input }] of desired) {
      if (!existing.has(name)) {
        const created = await this.create(input);
        (created ? result.created : result.updated).push(dagId);
        continue;
      }
      if ((await this.currentHash(name)) === configHashOf(input)) {
        result.unchanged.push(dagId);
      } else {
        await this.update(input);
        result.updated.push(dagId);
      }
    }
    return result;
  }

  /**
   * The CreateSchedule request for a DAG, or undefined when the DAG needs no schedule
   * (no schedule, or its end date has passed). The Description carries a hash of the
   * request, so a later sync skips schedules that did not change.
   */
  desiredSchedule(dag: DagSpec, opts: SyncOptions): CreateScheduleCommandInput | undefined {
    // `@once`: the reconcile tick (every minute) creates its one run when it is due.
    if (dag.schedule === null || dag.schedule.kind === 'once') return undefined;
    const endDate = dag.endDate === undefined ? undefined : Date.parse(dag.endDate);
    // Scheduler rejects an EndDate in the past, and such a DAG has nothing left to fire;
    // runs it missed are created by the reconcile tick, not by Scheduler.
    if (endDate !== undefined && endDate <= opts.now) return undefined;
    const startDate = dag.startDate === undefined ? undefined : Date.parse(dag.startDate);
    const { expression, timezone } = this.toExpression(dag.schedule);
    const paused = (opts.isPaused ?? ((d: DagSpec) => d.pausedOnCreation))(dag);
    const input: CreateScheduleCommandInput = {
      Name: scheduleName(dag.dagId),
      GroupName: this.o.groupName,
      ScheduleExpression: expression,
      ScheduleExpressionTimezone: timezone ?? dag.timezone,
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: paused ? 'DISABLED' : 'ENABLED',
      ...(startDate !== undefined && startDate > opts.now ? { StartDate: new Date(startDate) } : {}),
      ...(endDate !== undefined ? { EndDate: new Date(endDate) } : {}),
      Target: {
        Arn: this.o.targetQueueArn,
        RoleArn: this.o.roleArn,
        Input: encodeQueueMessage({ kind: 'schedule', dagId: dag.dagId, tickAt: 0 }),
        ...(this.o.dlqArn ? { DeadLetterConfig: { Arn: this.o.dlqArn } } : {}),
        RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 86_400 },
      },
    };
    input.Description = `airless dag ${dag.dagId} config:${configHash(input)}`;
    return input;
  }

  private async listNames(): Promise<Set<string>> {
    const names = new Set<string>();
    let token: string | undefined;
    do {
      const command = new ListSchedulesCommand({ GroupName: this.o.groupName, NextToken: token, MaxResults: 100 });
      const page = await this.call('ListSchedules', () => this.o.scheduler.send(command));
      for (const s of page.Schedules ?? []) if (s.Name) names.add(s.Name);
      token = page.NextToken;
    } while (token);
    return names;
  }

  private async currentHash(name: string): Promise<string | undefined> {
    const command = new GetScheduleCommand({ Name: name, GroupName: this.o.groupName });
    try {
      const s = await this.call(`GetSchedule ${name}`, () => this.o.scheduler.send(command));
      return CONFIG_TAG.exec(s.Description ?? '')?.[1];
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** Creates; true when created, false when a concurrent sync created it first (then updated). */
  private async create(input: CreateScheduleCommandInput): Promise<boolean> {
    try {
      await this.call(`CreateSchedule ${input.Name}`, () => this.o.scheduler.send(new CreateScheduleCommand(input)));
      return true;
    } catch (e) {
      if (!isConflict(e)) throw e;
      await this.update(input);
      return false;
    }
  }

  private async update(input: CreateScheduleCommandInput): Promise<void> {
    // UpdateSchedule replaces the whole schedule: every field is sent, none is merged.
    const command = new UpdateScheduleCommand({ ...input });
    await this.call(`UpdateSchedule ${input.Name}`, () => this.o.scheduler.send(command));
  }

  private async delete(name: string): Promise<void> {
    const command = new DeleteScheduleCommand({ Name: name, GroupName: this.o.groupName });
    try {
      await this.call(`DeleteSchedule ${name}`, () => this.o.scheduler.send(command));
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  private async call<T>(what: string, send: () => Promise<T>): Promise<T> {
    this.o.metrics?.count('scheduler.calls');
    try {
      return await send();
    } catch (e) {
      if (isNotFound(e) || isConflict(e)) throw e;
      throw wrapAwsError(`EventBridge Scheduler ${what} in group ${this.o.groupName}`, e);
    }
  }
}

function configHash(input: CreateScheduleCommandInput): string {
  const { Description: _ignored, ...rest } = input;
  // Through JSON first so Dates hash as their ISO text.
  return sha256Hex(canonicalJson(JSON.parse(JSON.stringify(rest)))).slice(0, 16);
}

function configHashOf(input: CreateScheduleCommandInput): string | undefined {
  return CONFIG_TAG.exec(input.Description ?? '')?.[1];
}

function isNotFound(e: unknown): boolean {
  return e instanceof ResourceNotFoundException || isAwsError(e, 'ResourceNotFoundException');
}

function isConflict(e: unknown): boolean {
  return e instanceof ConflictException || isAwsError(e, 'ConflictException');
}
