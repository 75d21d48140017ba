/**
 * The poker schedules on EventBridge Scheduler: `poker-<shard>` in the stack's system
 * group (lib/infra/schedules.ts names them), switched with UpdateSchedule. UpdateSchedule
 * replaces the whole definition, so each switch reads the schedule first and writes it
 * back with only its State changed. docs/adr/0024-nothing-at-idle.md.
 */
import {
  GetScheduleCommand,
  type GetScheduleCommandOutput,
  ResourceNotFoundException,
  type SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { NotFoundError, type Metrics, type PokerSchedules } from '../../engine/index.js';
import { isAwsError, wrapAwsError } from './aws-errors.js';

/** Poker schedule names are this prefix and the shard (lib/infra/schedules.ts creates them). */
export const POKER_SCHEDULE_PREFIX = 'poker-';
/** Name of shard `shard`'s poker schedule in the system group. */
export const pokerScheduleName = (shard: number): string => `${POKER_SCHEDULE_PREFIX}${shard}`;

export interface SchedulerPokerSchedulesOptions {
  scheduler: SchedulerClient;
  /** The system schedule group (`AIRLESS_SYSTEM_SCHEDULE_GROUP`). */
  groupName: string;
  metrics?: Metrics;
}

/**
 * @example
 * const pokers = new SchedulerPokerSchedules({ scheduler, groupName: 'Airless-system' });
 * await pokers.setEnabled(3, true);
 */
export class SchedulerPokerSchedules implements PokerSchedules {
  constructor(private readonly o: SchedulerPokerSchedulesOptions) {}

  async setEnabled(shard: number, enabled: boolean): Promise<void> {
    const s = await this.get(shard);
    if (!s) throw new NotFoundError(`EventBridge Scheduler: no poker schedule ${this.o.groupName}/${pokerScheduleName(shard)} (is AIRLESS_SHARDS the stack's shard count?)`);
    const state = enabled ? 'ENABLED' : 'DISABLED';
    if (s.State === state) return;
    await this.call(`UpdateSchedule ${pokerScheduleName(shard)} ${state}`, () => this.o.scheduler.send(new UpdateScheduleCommand({
      Name: s.Name, GroupName: s.GroupName, ScheduleExpression: s.ScheduleExpression, ScheduleExpressionTimezone: s.ScheduleExpressionTimezone,
      StartDate: s.StartDate, EndDate: s.EndDate, Description: s.Description, FlexibleTimeWindow: s.FlexibleTimeWindow,
      Target: s.Target, KmsKeyArn: s.KmsKeyArn, ActionAfterCompletion: s.ActionAfterCompletion, State: state,
    })));
  }

  async isEnabled(shard: number): Promise<boolean | undefined> {
    const s = await this.get(shard);
    return s && s.State === 'ENABLED';
  }

  private async get(shard: number): Promise<GetScheduleCommandOutput | undefined> {
    try {
      return await this.call(`GetSchedule ${pokerScheduleName(shard)}`, () =>
        this.o.scheduler.send(new GetScheduleCommand({ Name: pokerScheduleName(shard), GroupName: this.o.groupName })), true);
    } catch (e) {
      if (e instanceof ResourceNotFoundException || isAwsError(e, 'ResourceNotFoundException')) return undefined;
      throw e;
    }
  }

  private async call<T>(what: string, fn: () => Promise<T>, rethrowRaw = false): Promise<T> {
    this.o.metrics?.count('scheduler.calls');
    try {
      return await fn();
    } catch (e) {
      if (rethrowRaw && (e instanceof ResourceNotFoundException || isAwsError(e, 'ResourceNotFoundException'))) throw e;
      throw wrapAwsError(`EventBridge Scheduler ${what} in group ${this.o.groupName}`, e);
    }
  }
}
