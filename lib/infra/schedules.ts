import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { InvalidInputError } from '../engine/index.js';
import { acknowledgeOnGrantee, acknowledgeWildcardResource } from './nag.js';
import type { ReadyQueue } from './ready-queue.js';
import { POKER_SCHEDULE_PREFIX } from '../adapters/aws/poker-schedules.js';
import { FUNCTION_ENV } from '../adapters/aws/stack-contract.js';

export interface SchedulesProps {
  /** The queue that DAG schedules and long timers deliver to. */
  readonly readyQueue: ReadyQueue;
  /**
   * Prefix of the three schedule group names (`-timers`, `-dags`, `-system`).
   * @default the stack name
   */
  readonly groupPrefix?: string;
}

/** The recurring system schedules: the reconcile tick and one poker schedule per shard. */
export interface SystemTargets {
  readonly tick: IFunction;
  readonly poker: IFunction;
  /** Number of poker shards: one schedule each, input `{"shard": i}`. */
  readonly shards: number;
}

/**
 * EventBridge Scheduler: three schedule groups, the execution role that delivers to the
 * ready queue, and (after {@link addSystemSchedules}) the every-minute tick and poker
 * schedules.
 *
 * Groups are separate because their owners list and prune them: `ScheduleSync` deletes
 * any schedule in the DAG group that no DAG declares, so one-time timers and the system
 * schedules must never live there.
 *
 * @example
 * const schedules = new Schedules(this, 'Schedules', { readyQueue });
 * schedules.grantTimers(worker);
 * schedules.addSystemSchedules({ tick, poker, shards: 8 });
 */
export class Schedules extends Construct {
  /** One-time `at()` timers (deferrals, long retries): created and deleted by the functions. */
  public readonly timerGroup: scheduler.CfnScheduleGroup;
  /** One recurring schedule per scheduled DAG, kept in sync by `register-bundle`. */
  public readonly dagGroup: scheduler.CfnScheduleGroup;
  /** The tick and poker schedules, owned by this stack. */
  public readonly systemGroup: scheduler.CfnScheduleGroup;
  /** Role Scheduler assumes to deliver timers and DAG schedules: `sqs:SendMessage` on the ready queue and its DLQ only. */
  public readonly targetRole: iam.Role;
  /** Role Scheduler assumes for the system schedules: invoke tick and poker only. */
  public readonly invokerRole: iam.Role;
  /** The tick schedule followed by one schedule per poker shard (empty until {@link addSystemSchedules}). */
  public readonly systemSchedules: scheduler.CfnSchedule[] = [];

  private readonly readyQueue: ReadyQueue;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    this.readyQueue = props.readyQueue;
    const stack = Stack.of(this);
    const prefix = props.groupPrefix ?? stack.stackName;
    this.timerGroup = new scheduler.CfnScheduleGroup(this, 'TimerGroup', { name: `${prefix}-timers` });
    this.dagGroup = new scheduler.CfnScheduleGroup(this, 'DagGroup', { name: `${prefix}-dags` });
    this.systemGroup = new scheduler.CfnScheduleGroup(this, 'SystemGroup', { name: `${prefix}-system` });

    // Confused-deputy guard: only schedules of this account may use the roles.
    const schedulerPrincipal = new iam.ServicePrincipal('scheduler.amazonaws.com', {
      conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
    });
    this.targetRole = new iam.Role(this, 'TargetRole', {
      assumedBy: schedulerPrincipal,
      description: 'EventBridge Scheduler delivers Airless timers and DAG schedules to the ready queue',
    });
    this.targetRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['sqs:SendMessage'],
        resources: [props.readyQueue.queue.queueArn, props.readyQueue.schedulerDeadLetterQueue.queueArn],
      }),
    );
    this.invokerRole = new iam.Role(this, 'InvokerRole', {
      assumedBy: schedulerPrincipal,
      description: 'EventBridge Scheduler invokes the Airless tick and pokers',
    });
  }

  /** Name of the group for one-time timers (`AIRLESS_SCHEDULER_GROUP`). */
  get timerGroupName(): string {
    return this.timerGroup.name as string;
  }

  /** Name of the group for recurring DAG schedules (`AIRLESS_DAG_SCHEDULE_GROUP`). */
  get dagGroupName(): string {
    return this.dagGroup.name as string;
  }

  /** Name of the group of the tick and poker schedules (`AIRLESS_SYSTEM_SCHEDULE_GROUP`). */
  get systemGroupName(): string {
    return this.systemGroup.name as string;
  }

  /**
   * Environment a function needs to create schedules that deliver to the ready queue.
   * @example
   * fn.addEnvironment(FUNCTION_ENV.timerGroup, schedules.environment()[FUNCTION_ENV.timerGroup]);
   */
  environment(): Record<string, string> {
    return {
      [FUNCTION_ENV.timerGroup]: this.timerGroupName,
      [FUNCTION_ENV.dagScheduleGroup]: this.dagGroupName,
      [FUNCTION_ENV.schedulerRoleArn]: this.targetRole.roleArn,
      [FUNCTION_ENV.schedulerDlqArn]: this.readyQueue.schedulerDeadLetterQueue.queueArn,
      [FUNCTION_ENV.systemScheduleGroup]: this.systemGroupName,
    };
  }

  /**
   * Create one-time timers in the timer group, passing the target role. Nothing more:
   * a timer deletes itself after it fires (ActionAfterCompletion DELETE) and the engine
   * never cancels one (a stale fire is ignored by its claim token), so no function reads
   * or deletes timers (rehearsal least-privilege scenario).
   * @example
   * schedules.grantTimers(worker);
   */
  grantTimers(grantee: iam.IGrantable): void {
    this.grantOnGroup(grantee, this.timerGroupName, ['scheduler:CreateSchedule']);
    this.grantPassTargetRole(grantee);
  }

  /**
   * Keep the DAG group in sync: create, read, update, delete and list schedules.
   * @example
   * schedules.grantDagSchedules(registerBundle);
   */
  grantDagSchedules(grantee: iam.IGrantable): void {
    this.grantOnGroup(grantee, this.dagGroupName, [
      'scheduler:CreateSchedule',
      'scheduler:GetSchedule',
      'scheduler:UpdateSchedule',
      'scheduler:DeleteSchedule',
    ]);
    // ListSchedules has no resource-level permission: its resource can only be '*'.
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['scheduler:ListSchedules'], resources: ['*'] }),
    );
    acknowledgeOnGrantee(
      grantee,
      'AwsSolutions-IAM5[Resource::*]',
      'scheduler:ListSchedules supports no resource-level permission; it is the only action on "*" and only lists.',
    );
    this.grantPassTargetRole(grantee);
  }

  /**
   * Switch the poker schedules (`poker-<shard>` in the system group) on and off: read and
   * update them, passing the invoker role they deliver with. The functions that register
   * sensors, the poker that disables its own schedule and the tick that checks them need it.
   * @example
   * schedules.grantPokerSwitch(worker);
   */
  grantPokerSwitch(grantee: iam.IGrantable): void {
    const pokers = Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.systemGroupName}/${POKER_SCHEDULE_PREFIX}*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['scheduler:GetSchedule', 'scheduler:UpdateSchedule'], resources: [pokers] }),
    );
    acknowledgeWildcardResource(grantee, pokers, 'The poker schedules are poker-0 ... poker-<shards-1>: one per shard, all switched alike.');
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.invokerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
  }

  /**
   * Every minute: invoke the tick once, and the poker once per shard with `{"shard": i}`.
   * A lost or late invocation is harmless: the next minute covers it, so events older
   * than a minute are dropped to the scheduler DLQ rather than retried late. The poker
   * schedules are deployed disabled: the functions enable one while sensors wait in its
   * shard, and its poker disables it once they are gone (docs/adr/0024-nothing-at-idle.md).
   * A deploy that updates a poker schedule resets it to disabled; the tick enables it
   * again within a minute if sensors wait.
   *
   * @example
   * schedules.addSystemSchedules({ tick, poker, shards: 8 });
   */
  addSystemSchedules(targets: SystemTargets): void {
    const { tick, poker, shards } = targets;
    if (!Number.isInteger(shards) || shards < 1 || shards > 64) {
      throw new InvalidInputError(`shards must be an integer in 1..64, got ${shards}`);
    }
    if (this.systemSchedules.length > 0) throw new InvalidInputError('system schedules were already added');
    this.invokerRole.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [tick.functionArn, poker.functionArn] }),
    );
    this.invokerRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['sqs:SendMessage'],
        resources: [this.readyQueue.schedulerDeadLetterQueue.queueArn],
      }),
    );
    const every = (id: string, fn: IFunction, input: unknown, opts: { name?: string; state: 'ENABLED' | 'DISABLED' }): void => {
      const schedule = new scheduler.CfnSchedule(this, id, {
        name: opts.name,
        groupName: this.systemGroup.name,
        scheduleExpression: 'rate(1 minute)',
        flexibleTimeWindow: { mode: 'OFF' },
        state: opts.state,
        target: {
          arn: fn.functionArn,
          roleArn: this.invokerRole.roleArn,
          input: JSON.stringify(input),
          deadLetterConfig: { arn: this.readyQueue.schedulerDeadLetterQueue.queueArn },
          retryPolicy: { maximumRetryAttempts: 2, maximumEventAgeInSeconds: 60 },
        },
      });
      schedule.addResourceDependency(this.systemGroup);
      this.systemSchedules.push(schedule);
    };
    every('Tick', tick, { kind: 'tick' }, { state: 'ENABLED' });
    for (let shard = 0; shard < shards; shard++) {
      every(`Poker${shard}`, poker, { shard }, { name: `${POKER_SCHEDULE_PREFIX}${shard}`, state: 'DISABLED' });
    }
  }

  private grantOnGroup(grantee: iam.IGrantable, group: string, actions: string[]): void {
    const schedules = Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${group}/*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources: [schedules] }));
    acknowledgeWildcardResource(
      grantee,
      schedules,
      `Schedule names are derived at run time from task and DAG ids; the grant is confined to the ${group} group.`,
    );
  }

  private grantPassTargetRole(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.targetRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
  }
}
