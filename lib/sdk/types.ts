/**
 * Types DAG authors see. Durations are `'30s' | '10m' | '1h30m' | ms`.
 */
import type { DeferRequest, ResumeInput, SkipRequest, TaskContext } from '../engine/index.js';
import type { DagSpec, SensorMode, TaskKind, TriggerRule } from '../engine/index.js';
import type { NotifierDefinition } from './notify.js';
import type { AssetDefinition, AssetSchedule } from './assets.js';
import type { Output, Task, TaskValue } from './taskflow-types.js';

/** The context of a task callback: the task's, plus what happened. */
export type TaskCallbackContext<P extends Params = Params> = TaskContext<P> & {
  event: 'execute' | 'success' | 'failure' | 'retry' | 'skipped';
  /** The task instance's state when the callback runs. */
  state: string;
  /** The try's error (failure, retry). */
  error?: string;
};

/** The context of a DAG's run callback (`onSuccess`, `onFailure`). */
export type RunCallbackContext<P extends Params = Params> = Omit<TaskContext<P>, 'taskId' | 'tryNumber' | 'defer' | 'skip' | 'fail'> & {
  event: 'success' | 'failure';
  state: 'success' | 'failed';
  /** Ids of the run's failed tasks. */
  failedTasks: string[];
};

/** A callback: a function of its context, a built-in notifier, or a list of them (run in order, each even if one throws). */
export type Callbacks<C> = ((ctx: C) => unknown) | NotifierDefinition | ReadonlyArray<((ctx: C) => unknown) | NotifierDefinition>;

export type Duration = string | number;

/** Params as tasks see them: the declared ones, plus anything a run's conf adds. */
export type Params = Record<string, any>;

/** Retry and timeout settings of a task; `defaultArgs` of a DAG sets them for all tasks. */
export interface TaskOptions {
  /** Tries after the first one (default 0). */
  retries?: number;
  /** Wait before a retry (default '5m'). */
  retryDelay?: Duration;
  /** Double the delay on each retry (default false). */
  retryExponentialBackoff?: boolean;
  /** Cap of the backed-off delay (default 24h when backoff is on, as in Airflow). */
  maxRetryDelay?: Duration;
  /** Fail the try when it runs longer than this (default none). */
  executionTimeout?: Duration;
  /** When the task may run, given its upstream outcomes (default 'all_success'). */
  triggerRule?: TriggerRule;
  /**
   * `'thread'` (default): each try runs in a worker thread, killed at its timeout.
   * `'none'`: in the worker's own thread, saving a thread round trip (tens of µs) per try;
   * only for trusted, CPU-trivial tasks: a synchronous loop or a crash there is not contained.
   */
  isolation?: 'thread' | 'none';
  /** Pool the task takes slots from while queued or running (declared with `definePool`; default none: unlimited). */
  pool?: string | PoolDefinition;
  /** Slots of the pool one try takes (default 1). */
  poolSlots?: number;
  /** Priority among tasks waiting for the same slots (default 1); see `weightRule`. */
  priorityWeight?: number;
  /** How the effective weight is computed (default 'downstream': own weight plus all downstream tasks', as Airflow). */
  weightRule?: 'downstream' | 'upstream' | 'absolute';
  /** At most this many instances of this task run at once, across all runs of the DAG. */
  maxActiveTisPerDag?: number;
  /** At most this many instances of this task run at once within one run (mapped instances). */
  maxActiveTisPerDagrun?: number;
  /**
   * Wait for this task's instance in the previous run (by logical date) to have succeeded or
   * been skipped (Airflow's `depends_on_past`; the first instance of the task proceeds).
   */
  dependsOnPast?: boolean;
  /** Before each try's body runs (Airflow's on_execute_callback). */
  onExecute?: Callbacks<TaskCallbackContext>;
  /** After the task succeeded. */
  onSuccess?: Callbacks<TaskCallbackContext>;
  /** After the task failed for good (no retry left). */
  onFailure?: Callbacks<TaskCallbackContext>;
  /** After a try failed and a retry is scheduled. */
  onRetry?: Callbacks<TaskCallbackContext>;
  /** After the task skipped itself (ctx.skip, a sensor's softFail); not for skips by trigger rules or branches, as Airflow. */
  onSkipped?: Callbacks<TaskCallbackContext>;
  /** Assets each success of the task emits an event for (`ctx.outletEvents(asset).extra` describes it). */
  outlets?: readonly AssetDefinition[];
  /** Assets the task reads: recorded and shown (lineage), as Airflow's inlets. */
  inlets?: readonly AssetDefinition[];
}

/** What `definePool` returns: a pool the bundle declares, registered when the bundle is. */
export interface PoolDefinition {
  readonly __airless: 'pool';
  readonly name: string;
  readonly slots: number;
  readonly description?: string;
}

/** Options of `shortCircuit()`. */
export interface ShortCircuitOptions extends TaskOptions {
  /**
   * On a falsy result, skip every task downstream whatever its trigger rule (default true,
   * as Airflow); false skips only the direct downstreams and lets the rest follow their rules.
   */
  ignoreDownstreamTriggerRules?: boolean;
}

/** Options of `group()` (Airflow's TaskGroup). */
export interface TaskGroupOptions {
  /** Prefix the ids of the group's tasks with the group id and a dot (default true). */
  prefixGroupId?: boolean;
  /** Task options for every task of the group (over the DAG's defaultArgs). */
  defaultArgs?: TaskOptions;
  tooltip?: string;
}

/** Options of `asTeardown()`. */
export interface TeardownOptions {
  /** The setup task(s) this teardown undoes; made setups and upstream of the teardown. */
  setups: TaskHandle | readonly TaskHandle[];
  /** When the teardown fails, fail the run too (default false: a teardown does not decide the run's state). */
  onFailureFailDagrun?: boolean;
}

export interface SensorOptions extends TaskOptions {
  /** 'batched' (default): one poker pokes every distinct target once per cycle. */
  mode?: SensorMode;
  /** Default '60s'. */
  pokeInterval?: Duration;
  /** Give up after this long (default 7 days, as in Airflow). */
  timeout?: Duration;
  /** On timeout end as `skipped` instead of `failed` (default false). */
  softFail?: boolean;
  /**
   * A poke that throws (or exceeds the poke timeout) is logged and counts as "not yet"
   * (Airflow's `silent_fail`, default false). Without it the error fails the try, and the
   * task's retries apply; `softFail` never turns an error into a skip.
   */
  silentFail?: boolean;
  /** Grow the poke interval on each poke (default false). */
  exponentialBackoff?: boolean;
  /** Cap of the grown poke interval. */
  maxPokeInterval?: Duration;
}

export interface DagOptions<P extends Params = Params> {
  /**
   * Cron (5 fields), a preset ('@daily'...), 'rate(15 minutes)', null for manual runs only
   * (default), or assets: one, a list (all of them), `allOf(...)`, `anyOf(...)`: a run when
   * the condition's assets have new events (Airflow's asset schedule).
   */
  schedule?: string | null | AssetSchedule;
  /** IANA timezone of the cron and of dates written without an offset (default 'UTC'). */
  timezone?: string;
  /** ISO date; without an offset it is read in `timezone`. */
  startDate?: string | Date;
  endDate?: string | Date;
  /** Create the runs missed since startDate (default false, as in Airflow 3). */
  catchup?: boolean;
  /**
   * Default false: as Airflow 3's default timetables (CronTriggerTimetable,
   * DeltaTriggerTimetable), a scheduled run's logical date is its tick and its data
   * interval is zero-length there. True: as Airflow's `[scheduler]
   * create_cron_data_intervals` / `create_delta_data_intervals` (CronDataIntervalTimetable),
   * the run created at a tick covers the interval since the previous tick, and its logical
   * date (`ds`) is that interval's start: the daily run created at Jan 2 00:00 has ds Jan 1.
   */
  createDataIntervals?: boolean;
  /** Default 16. */
  maxActiveRuns?: number;
  /** Default 16. */
  maxActiveTasks?: number;
  params?: P;
  tags?: string[];
  description?: string;
  pausedOnCreation?: boolean;
  defaultArgs?: TaskOptions;
  /** A run that has run this long fails; its unfinished tasks end `skipped` (Airflow's dagrun_timeout). */
  dagrunTimeout?: Duration;
  /** After a run succeeded. */
  onSuccess?: Callbacks<RunCallbackContext<P>>;
  /** After a run failed (ctx.failedTasks names the failed tasks). */
  onFailure?: Callbacks<RunCallbackContext<P>>;
}

/** Return value of a task body: the XCom value, or a defer/skip marker. */
export type TaskResult = unknown;

/** A task body. Its return value is the task's XCom. */
/** The second argument is the task's inputs (typed TaskFlow), or a mapped instance's element (see `TaskHandle.expand`). */
export type TaskFn<P extends Params = Params> = (ctx: TaskContext<P>, item: any) => TaskResult | Promise<TaskResult>;

/** A resume method of a deferrable task; `execute` gets no input on its first call. */
export type ResumeFn<P extends Params = Params> = (
  ctx: TaskContext<P>,
  input: ResumeInput,
) => TaskResult | DeferRequest | SkipRequest | Promise<TaskResult>;

/** Object form of a task: `execute` plus named resume methods. */
export interface DeferrableTask<P extends Params = Params> {
  execute: (ctx: TaskContext<P>, input?: ResumeInput) => TaskResult | Promise<TaskResult>;
  [method: string]: ResumeFn<P>;
}

/** A branch returns the ids of the direct downstream tasks to follow (the others are skipped). */
export type BranchFn<P extends Params = Params> = (
  ctx: TaskContext<P>,
) => string | readonly string[] | null | undefined | Promise<string | readonly string[] | null | undefined>;

/** Something a dependency can point at: one task, a group from `a.before(b, c)`, or a task's output. */
export type Linkable = TaskHandle | TaskGroup | Output<unknown>;

interface Links<Self> {
  /**
   * Makes `this` upstream of every target. With one target returns it (to chain on);
   * with several returns a group of them.
   */
  before<T extends Linkable>(target: T): T;
  before(...targets: Array<Linkable | readonly Linkable[]>): TaskGroup;
  /** Makes every source upstream of `this`; returns `this`. */
  after(...sources: Array<Linkable | readonly Linkable[]>): Self;
}

/** A task declared in a DAG. Deliberately has no `then`: it must never look like a promise. */
export interface TaskHandle extends Links<TaskHandle> {
  readonly taskId: string;
  readonly kind: TaskKind;
  readonly dagId: string;
  /** Marks this task a setup (Airflow's `as_setup`). */
  asSetup(): this;
  /** Marks this task the teardown of `setups` (Airflow's `as_teardown`); they become its upstream. */
  asTeardown(options: TeardownOptions): this;
  /**
   * Dynamic task mapping: one task instance per element of an array, of another task's
   * XCom (an array; that task becomes upstream), or of the cross product of named sources.
   * The task function gets the element as its second argument and `ctx.mapIndex`.
   *
   * @example
   * task('size', async (ctx, file: string) => file.length).expand(listFiles);
   * task('pair', async (ctx, a: { x: number; y: string }) => `${a.x}${a.y}`).expand({ x: [1, 2], y: ['p', 'q'] });
   */
  expand(source: ExpandArg): Output<unknown[]>;
}

/** What `.expand()` maps over: an array, a task handle (its XCom), a task's output, or named sources (cross product). */
export type ExpandSource = readonly unknown[] | TaskHandle | Output<readonly unknown[]>;
export type ExpandArg = ExpandSource | Readonly<Record<string, ExpandSource>>;

/** Several tasks linked together. */
export interface TaskGroup extends Links<TaskGroup> {
  readonly taskIds: readonly string[];
}

/**
 * A group from `group()`: linking into it reaches its root tasks, linking out of it
 * starts from its leaf tasks (as Airflow's TaskGroup). `taskIds` lists all its tasks.
 */
export interface GroupHandle extends TaskGroup {
  readonly groupId: string;
}

/** The built-in sensor types, or one from `defineSensor`. */
export type SensorType = 'file' | 's3_key' | 'http' | 'external_task' | 'time' | (string & {}) | SensorDefinition<any>;

export interface SensorDeclaration {
  type: SensorType;
  /** String leaves are templates (`'/in/{{ ds }}.csv'`), rendered before each poke. */
  pokeContext?: Record<string, unknown>;
}

/**
 * What an operator (`ecsRunTask(...)`, `waitForEvent(...)`, lib/sdk/operators.ts) returns: a
 * task body that starts an AWS job and waits for its end event. Pass it to `task()`.
 */
export interface OperatorBody {
  readonly __airless: 'operator';
  /** The serializable part (the manifest's TaskSpec.operator), checked when the task is declared. */
  readonly spec: import('../engine/index.js').OperatorSpec;
  /** Computes the SDK input at run time, when it was given as a function of `ctx`. */
  readonly compute?: TaskMethodFn;
  /** Options beyond the SDK input (waitForCompletion, timeout, safetyNetInterval), checked by `task()`. */
  readonly options?: object;
}

/** What the build callback of `dag()` receives. */
export interface DagBuilder<P extends Params = Params> {
  /**
   * A task. Its function gets `ctx` and its inputs (typed from the second parameter); call
   * the handle with them to place it: `double({ n: extract() })`.
   */
  /** An AWS job operator (ecsRunTask, glueStartJobRun, ...): its XCom is the job's outcome. */
  task(taskId: string, body: OperatorBody, options?: TaskOptions): Task<void, unknown>;
  task<R, I = void>(taskId: string, body: ((ctx: TaskContext<P>, inputs: I) => R) | DeferrableTask<P>, options?: TaskOptions): Task<I, TaskValue<R>>;
  branch<I = void>(taskId: string, body: (ctx: TaskContext<P>, inputs: I) => ReturnType<BranchFn<P>>, options?: TaskOptions): Task<I, string[]>;
  sensor(taskId: string, declaration: SensorDeclaration, options?: SensorOptions): Task<void, undefined>;
  /** A task whose falsy result skips what is downstream (Airflow's ShortCircuitOperator). */
  shortCircuit<R, I = void>(taskId: string, body: (ctx: TaskContext<P>, inputs: I) => R, options?: ShortCircuitOptions): Task<I, TaskValue<R>>;
  /** A task group: its tasks' ids are prefixed `groupId.` (Airflow's TaskGroup). */
  group(groupId: string, build: (builder: DagBuilder<P>) => void): GroupHandle;
  group(groupId: string, options: TaskGroupOptions, build: (builder: DagBuilder<P>) => void): GroupHandle;
}

/** A callable of a task: `execute` or a resume method. */
export type TaskMethodFn = (ctx: any, input?: any) => unknown;

/** What `dag()` returns: the serializable spec and the code of each task. */
export interface DagDefinition {
  readonly __airless: 'dag';
  readonly spec: DagSpec;
  /** `taskId -> { methodName -> function }`; sensors have no methods. */
  readonly tasks: ReadonlyMap<string, Readonly<Record<string, TaskMethodFn>>>;
  /** Sensor definitions used by object in this DAG (`type: mySensor`). */
  readonly sensors: readonly SensorDefinition<any>[];
  /** Pool definitions used by object in this DAG (`pool: warehouse`). */
  readonly pools?: readonly PoolDefinition[];
}

/** A custom sensor type: its poke gets the rendered poke context and returns truthy when done. */
export interface SensorDefinition<C extends Record<string, any> = Record<string, any>> {
  readonly __airless: 'sensor';
  readonly type: string;
  readonly poke: (pokeContext: C) => unknown;
}
