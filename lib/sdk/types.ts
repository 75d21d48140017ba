/**
 * Types DAG authors see. Durations are `'30s' | '10m' | '1h30m' | ms`.
 */
import type { DeferRequest, ResumeInput, SkipRequest, TaskContext } from '../engine/index.js';
import type { DagSpec, SensorMode, TaskKind, TriggerRule } from '../engine/index.js';
import type { NotifierDefinition } from './notify.js';

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
  /** Grow the poke interval on each poke (default false). */
  exponentialBackoff?: boolean;
  /** Cap of the grown poke interval. */
  maxPokeInterval?: Duration;
}

export interface DagOptions<P extends Params = Params> {
  /** Cron (5 fields), a preset ('@daily'...), 'rate(15 minutes)', or null for manual runs only (default). */
  schedule?: string | null;
  /** IANA timezone of the cron and of dates written without an offset (default 'UTC'). */
  timezone?: string;
  /** ISO date; without an offset it is read in `timezone`. */
  startDate?: string | Date;
  endDate?: string | Date;
  /** Create the runs missed since startDate (default false, as in Airflow 3). */
  catchup?: boolean;
  /** Default 16. */
  maxActiveRuns?: number;
  /** Default 16. */
  maxActiveTasks?: number;
  params?: P;
  tags?: string[];
  description?: string;
  pausedOnCreation?: boolean;
  defaultArgs?: TaskOptions;
  /** After a run succeeded. */
  onSuccess?: Callbacks<RunCallbackContext<P>>;
  /** After a run failed (ctx.failedTasks names the failed tasks). */
  onFailure?: Callbacks<RunCallbackContext<P>>;
}

/** Return value of a task body: the XCom value, or a defer/skip marker. */
export type TaskResult = unknown;

/** A task body. Its return value is the task's XCom. */
export type TaskFn<P extends Params = Params> = (ctx: TaskContext<P>) => TaskResult | Promise<TaskResult>;

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

/** Something a dependency can point at: one task, or a group from `a.before(b, c)`. */
export type Linkable = TaskHandle | TaskGroup;

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
}

/** Several tasks linked together. */
export interface TaskGroup extends Links<TaskGroup> {
  readonly taskIds: readonly string[];
}

/** The built-in sensor types, or one from `defineSensor`. */
export type SensorType = 'file' | 's3_key' | 'http' | 'external_task' | 'time' | (string & {}) | SensorDefinition<any>;

export interface SensorDeclaration {
  type: SensorType;
  /** String leaves are templates (`'/in/{{ ds }}.csv'`), rendered before each poke. */
  pokeContext?: Record<string, unknown>;
}

/** What the build callback of `dag()` receives. */
export interface DagBuilder<P extends Params = Params> {
  task(taskId: string, body: TaskFn<P> | DeferrableTask<P>, options?: TaskOptions): TaskHandle;
  branch(taskId: string, body: BranchFn<P>, options?: TaskOptions): TaskHandle;
  sensor(taskId: string, declaration: SensorDeclaration, options?: SensorOptions): TaskHandle;
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
}

/** A custom sensor type: its poke gets the rendered poke context and returns truthy when done. */
export interface SensorDefinition<C extends Record<string, any> = Record<string, any>> {
  readonly __airless: 'sensor';
  readonly type: string;
  readonly poke: (pokeContext: C) => unknown;
}
