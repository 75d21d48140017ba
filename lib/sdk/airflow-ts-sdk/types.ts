/**
 * The types of Airflow 3.4's TypeScript SDK (`apache-airflow-ts-sdk`) Dag authoring
 * surface, as Airless implements it (docs/airflow-ts-sdk.md, ADR 0021). Names and shapes
 * follow the SDK's `ts-sdk/src/sdk/{dag,task,client,client-types,trigger-dag-run}.ts`, so a
 * Dag file written against it type-checks here unchanged. Written for Airless; no code of
 * the SDK is copied.
 */

/** A JSON value: what a literal input, an XCom set with `setXCom` and a conf hold. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

declare const RETURN_TYPE: unique symbol;

/** What an order-only edge connects: a task or a task group. */
export interface Node {
  readonly dagId: string;
  /** Runs this node before each of `downstream` (Python's `>>`). */
  before(...downstream: readonly Node[]): Node;
  /** Runs this node after each of `upstream` (Python's `<<`). */
  after(...upstream: readonly Node[]): Node;
}

/** The placed task: what calling a task factory returns. Its value reaches the tasks it is given to. */
export interface TaskRef<TReturn = unknown> extends Node {
  readonly dagId: string;
  /** The task id, group prefix included. */
  readonly taskId: string;
  /** Never set: carries the handler's return type. */
  readonly [RETURN_TYPE]?: TReturn;
  before(...downstream: readonly Node[]): TaskRef<TReturn>;
  after(...upstream: readonly Node[]): TaskRef<TReturn>;
}

/** The part of `T` a literal can express (JSON), matched structurally. */
export type JsonCompatible<T> = T extends JsonValue
  ? T
  : T extends (...args: never[]) => unknown
    ? never
    : T extends readonly (infer E)[]
      ? readonly JsonCompatible<E>[]
      : T extends object
        ? T extends { [K in keyof T]: JsonCompatible<T[K]> }
          ? { [K in keyof T]: JsonCompatible<T[K]> }
          : never
        : never;

/** One input: the task producing the value, or a JSON literal of the argument's type. */
export type TaskInput<TValue> = TaskRef<TValue> | JsonCompatible<TValue>;

/** A task's inputs, by the name of the argument each supplies. */
export type TaskInputs<TArgs> = { [K in keyof TArgs]: TaskRef | JsonCompatible<TArgs[K]> };

/** What `dag.task(...)` returns: call it (once) to place the task with its inputs. */
export type TaskFactory<TArgs extends object | void = void, TReturn = unknown> = [TArgs] extends [void]
  ? () => TaskRef<TReturn>
  : (inputs: TaskInputs<TArgs>) => TaskRef<TReturn>;

/** A task handler: one object of named arguments; the runtime is reached with getContext() and getClient(). */
export type TaskFunction<TArgs = void, TReturn = unknown> = (args: TArgs) => TReturn | Promise<TReturn>;

/** Dag-level options (the SDK's generated `DagSpec` fields and `queue`). Durations are seconds. */
export interface DagSpec {
  /** `"@daily"`, a cron expression, `"@once"`, or unset for manual runs only. */
  readonly schedule?: string;
  readonly description?: string;
  readonly startDate?: Date;
  readonly endDate?: Date;
  readonly tags?: readonly string[];
  readonly dagDisplayName?: string;
  readonly docMd?: string;
  readonly maxActiveTasks?: number;
  readonly maxActiveRuns?: number;
  readonly maxConsecutiveFailedDagRuns?: number;
  /** Seconds. */
  readonly dagrunTimeout?: number;
  readonly catchup?: boolean;
  readonly failFast?: boolean;
  readonly renderTemplateAsNativeObj?: boolean;
  readonly disableBundleVersioning?: boolean;
  readonly isPausedUponCreation?: boolean;
  /** Routes tasks to the SDK's Node coordinator; every Airless task runs on Node, so it changes nothing. */
  readonly queue?: string;
}

/** Task-level options (the SDK's generated `TaskSpec` fields and `taskId`). Durations are seconds. */
export interface TaskSpec {
  readonly taskId?: string;
  readonly owner?: string;
  readonly startDate?: Date;
  readonly endDate?: Date;
  readonly triggerRule?: string;
  readonly dependsOnPast?: boolean;
  readonly ignoreFirstDependsOnPast?: boolean;
  readonly waitForPastDependsBeforeSkipping?: boolean;
  readonly waitForDownstream?: boolean;
  readonly retries?: number;
  readonly queue?: string;
  readonly pool?: string;
  readonly poolSlots?: number;
  /** Seconds. */
  readonly executionTimeout?: number;
  /** Seconds. */
  readonly retryDelay?: number;
  readonly retryExponentialBackoff?: number;
  /** Seconds. */
  readonly maxRetryDelay?: number;
  readonly priorityWeight?: number;
  readonly weightRule?: string;
  readonly executor?: string;
  readonly doXcomPush?: boolean;
  readonly returnsDagResult?: boolean;
  readonly emailOnFailure?: boolean;
  readonly emailOnRetry?: boolean;
  readonly docMd?: string;
  readonly mapIndexTemplate?: string;
  readonly maxActiveTisPerDag?: number;
  readonly maxActiveTisPerDagrun?: number;
}

/** The trailing argument of `dag.task()`. */
export type TaskOptions = TaskSpec;

/** What `dag.if(condition)` returns. */
export interface Condition {
  then(taskRef: TaskRef): ConditionElse;
}

/** What `.then(...)` returns: the other side, which a one-sided condition omits. */
export interface ConditionElse {
  else(taskRef: TaskRef): void;
}

/** What `dag.switch(decider)` returns: name each task the decider chooses between. */
export interface Branch {
  case(taskRef: TaskRef): Branch;
}

/** A task group: declares tasks under its id prefix, and stands at either end of an edge. */
export interface TaskGroupRef extends Node {
  readonly dagId: string;
  readonly groupId: string;
  task<TArgs extends object | void = void, TReturn = unknown>(
    taskId: string,
    handler: (args: TArgs) => TReturn | Promise<TReturn>,
    options?: TaskOptions,
  ): TaskFactory<TArgs, TReturn>;
  task<TArgs extends object | void = void, TReturn = unknown>(
    handler: (args: TArgs) => TReturn | Promise<TReturn>,
    options?: TaskOptions,
  ): TaskFactory<TArgs, TReturn>;
  taskGroup(groupId: string): TaskGroupRef;
  before(...downstream: readonly Node[]): TaskGroupRef;
  after(...upstream: readonly Node[]): TaskGroupRef;
}

/** A Dag run state, as `allowedStates` and `failedStates` name one. */
export type DagRunState = 'queued' | 'running' | 'success' | 'failed';

/** `dag.triggerDagRun(...)`: `TriggerDagRunOperator`'s options and the trigger's own task id. */
export interface TriggerDagRunSpec {
  readonly taskId: string;
  readonly dagId: string;
  readonly runId?: string;
  readonly conf?: Readonly<Record<string, JsonValue>>;
  readonly resetDagRun?: boolean;
  readonly waitForCompletion?: boolean;
  /** Seconds between checks while waiting. */
  readonly pokeInterval?: number;
  readonly allowedStates?: readonly DagRunState[];
  readonly failedStates?: readonly DagRunState[];
  readonly skipWhenAlreadyExists?: boolean;
  readonly failWhenDagIsPaused?: boolean;
  readonly note?: string;
  readonly deferrable?: boolean;
}

/** Runtime metadata of the task running now (`getContext()`). */
export interface TaskContext {
  readonly dagId: string;
  readonly taskId: string;
  readonly runId: string;
  readonly tryNumber: number;
  /** -1 for a task that is not mapped. */
  readonly mapIndex: number;
  /** Aborted when the try's execution timeout passes. */
  readonly signal: AbortSignal;
}

/** An Airflow connection as the SDK's client returns it. */
export interface ConnectionResult {
  id: string;
  type: string;
  host?: string | null;
  schema?: string | null;
  login?: string | null;
  password?: string | null;
  port?: number | null;
  /** The connection's extra, as a JSON string. */
  extra?: string | null;
}

/** Reading an XCom; the locator fields default to the running task. */
export interface GetXComOpts {
  key: string;
  dagId?: string;
  runId?: string;
  taskId?: string;
  mapIndex?: number | null;
  includePriorDates?: boolean;
}

/** Writing an XCom of the running task. */
export interface SetXComOpts {
  key: string;
  value: JsonValue;
  dagId?: string;
  runId?: string;
  taskId?: string;
  mapIndex?: number | null;
}

/**
 * A method the SDK has and Airless refuses: calling it is a type error whose text carries
 * the message (`Type 'NotOnAirless<"setVariable: ...">' has no call signatures`), so `airless
 * build` refuses it with file:line:col; from JavaScript it throws the same message.
 */
export interface NotOnAirless<Message extends string> {
  readonly notOnAirless: Message;
}

/** The client of the task running now (`getClient()`): variables, connections and XComs. */
export interface TaskClient {
  /** The variable's value, or null when it does not exist. */
  getVariable(key: string): Promise<string | null>;
  /** The variable's value; throws VariableNotFoundError when it does not exist. */
  getVariableOrThrow(key: string): Promise<string>;
  /** Airless tasks read variables but do not write them (docs/airflow-ts-sdk.md). */
  readonly setVariable: NotOnAirless<'setVariable: Airless tasks read variables but do not write them; set them with `airless variables set KEY VALUE` (or SSM), or pass the value to the next task as an output'>;
  readonly deleteVariable: NotOnAirless<'deleteVariable: Airless tasks read variables but do not write them; delete them with `airless variables delete KEY`'>;
  /** An XCom of this run (null when missing); the locator defaults to the running task. */
  getXCom<T = unknown>(opts: GetXComOpts): Promise<T | null>;
  /** Writes an XCom of the running task. */
  setXCom(opts: SetXComOpts): Promise<void>;
  /** The connection, or null when it is not defined. */
  getConnection(connId: string): Promise<ConnectionResult | null>;
  /** The connection; throws ConnectionNotFoundError when it is not defined. */
  getConnectionOrThrow(connId: string): Promise<ConnectionResult>;
  readonly assetStateStore: NotOnAirless<'assetStateStore: not on Airless: keep state in an XCom or a variable'>;
}
