/**
 * The engine talks to the world only through these ports. Each has a memory adapter
 * (lib/adapters/memory) and an AWS adapter (lib/adapters/aws); one contract suite
 * (test/contract) runs against both stores.
 */
import type {
  DagRecord,
  DagRun,
  Manifest,
  PoolSpec,
  SignalRecord,
  TaskInstance,
  TaskKey,
  TriggerRecord,
  XcomKey,
} from './model.js';
import type { RunState, TaskState, UpstreamOutcome } from './states.js';
import type { MappingStore } from './mapping-store.js';
import type { RunEndsStore } from './model/run-ends-store.js';
import type { RunSlotStore } from './model/run-slots-store.js';
import type { BackfillStore } from './model/backfill-store.js';
import type { PokerSchedules, PokerStateStore } from './model/poker-state.js';
import type { AssetStore } from './model/asset-store.js';
import type { PrevSuccessStore } from './model/prev-success.js';
import type { AuditLogStore } from './model/audit-log.js';
import type { RunDeleteStore } from './model/run-delete-store.js';
import type { AssetMessage } from './model/assets.js';
import type { EventStore, JobDrivers, JobRef } from './model/events.js';

/**
 * Result of a compare-and-set. A lost race is a normal outcome: `current` holds the
 * item as it is now (undefined when it does not exist), so the caller can decide.
 *
 * @example
 * const r = await store.updateTask(key, { state: 'queued', tryNumber: 1 }, { state: 'running' });
 * if (!r.ok) metrics.count('lost_race');
 */
export type Cas<T> =
  | { ok: true; item: T }
  | { ok: false; current: T | undefined; reason?: 'condition' | 'slots'; limit?: string };

/** Conditions of a task write; every given field must match. */
export interface TaskExpect {
  state: TaskState | readonly TaskState[];
  tryNumber?: number;
  owner?: string;
}

/**
 * Fields a task write sets; `null` removes the attribute. Upstream outcomes are not a
 * field: stores keep one attribute per upstream, written by `recordUpstream` and removed
 * by `clearTask` only.
 */
export type TaskPatch = {
  [K in keyof Omit<TaskInstance, 'dagId' | 'runId' | 'taskId' | 'upstream'>]?: TaskInstance[K] | null;
};

export type RunPatch = {
  [K in keyof Omit<DagRun, 'dagId' | 'runId' | 'activeTasks'>]?: DagRun[K] | null;
};

/**
 * Change to a counter made atomically with another write: the run's `activeTasks` (with a
 * task write; maxActiveRuns uses the DAG's slot holders instead, model/run-slots-store.ts).
 * `+1` is refused (result `{ ok: false, reason: 'slots' }`) when the counter is at `max`.
 */
export interface SlotChange {
  delta: 1 | -1;
  max?: number;
}

/**
 * A pool or per-task counter moved with a task write (pool-limits.ts). `pool:<name>`
 * counters keep the slots left (`free`, set by `registerPool`); the others count slots used
 * against `max`. A take (`delta > 0`) that does not fit is refused with `reason: 'slots'`
 * and `limit: key`; a give-back to a counter that is gone is dropped.
 */
export interface LimitMove {
  key: string;
  delta: number;
  max?: number;
  /** TTL (epoch seconds) of a per-run counter. */
  expiresAt?: number;
}

/** A registered pool and the slots it has left. */
export interface PoolState extends PoolSpec {
  free: number;
}

export interface Store extends MappingStore, RunEndsStore, RunSlotStore, BackfillStore, PokerStateStore, EventStore, AssetStore, PrevSuccessStore, AuditLogStore, RunDeleteStore {
  // DAG registry
  putDag(rec: DagRecord): Promise<void>;
  getDag(dagId: string): Promise<DagRecord | undefined>;
  listDags(): Promise<DagRecord[]>;
  /**
   * Updates a DAG record (`null` in the patch removes a field). With `expectNextTickAt`,
   * a compare-and-set on `nextTickAt` (`null` = the attribute must be absent).
   */
  updateDag(
    dagId: string,
    patch: { [K in keyof Omit<DagRecord, 'dagId'>]?: DagRecord[K] | null },
    expectNextTickAt?: number | null,
  ): Promise<Cas<DagRecord>>;
  deleteDag(dagId: string): Promise<void>;

  // runs
  /** Conditional put: fails with the existing run when `(dagId, runId)` exists. */
  createRun(run: DagRun): Promise<Cas<DagRun>>;
  /**
   * A run, read strongly consistent unless `eventually` (half the read cost on DynamoDB; a
   * run just written may be missing or behind for a moment: the worker's read, which falls
   * back to a consistent one when the run is missing, docs/adr/0020).
   */
  getRun(dagId: string, runId: string, opts?: { eventually?: boolean }): Promise<DagRun | undefined>;
  updateRun(
    dagId: string,
    runId: string,
    expect: { state: RunState | readonly RunState[] },
    patch: RunPatch,
  ): Promise<Cas<DagRun>>;
  /**
   * Runs of one DAG, newest logical date first. Asked for queued or running runs only, it
   * lists queued runs and the running runs that hold a maxActiveRuns slot (every run the
   * engine starts holds one: model/run-slots-store.ts).
   */
  listRuns(dagId: string, opts?: { states?: readonly RunState[]; limit?: number }): Promise<DagRun[]>;
  /** Runs in `queued`, and runs in `running` that hold a maxActiveRuns slot, of every DAG. */
  listActiveRuns(): Promise<DagRun[]>;

  // task instances
  /** Conditional put: fails with the existing item when the task instance exists. */
  putTask(ti: TaskInstance): Promise<Cas<TaskInstance>>;
  getTask(key: TaskKey): Promise<TaskInstance | undefined>;
  listTasks(dagId: string, runId: string): Promise<TaskInstance[]>;
  /** Compare-and-set on state (and try number, owner); optionally moves the run's slot counter and pool/limit counters in the same atomic write. */
  updateTask(key: TaskKey, expect: TaskExpect, patch: TaskPatch, slot?: SlotChange, limits?: readonly LimitMove[]): Promise<Cas<TaskInstance>>;
  /**
   * Records an upstream's terminal outcome on a downstream task instance, creating the
   * item (state `scheduled`, try 0) when it does not exist. Idempotent: writing the same
   * outcome twice changes nothing. Returns the item after the write, so that exactly one
   * writer sees the write that makes the trigger rule decidable.
   */
  recordUpstream(key: TaskKey, upstreamTaskId: string, outcome: TaskInstance['upstream'][string]): Promise<TaskInstance>;
  /**
   * Clear (`airflow tasks clear`): a compare-and-set like `updateTask` that also forgets the
   * recorded outcomes of the given upstream tasks (they are cleared too and will report
   * again), in the same atomic write.
   */
  clearTask(key: TaskKey, expect: TaskExpect, patch: TaskPatch, forgetUpstream: readonly string[]): Promise<Cas<TaskInstance>>;
  /** Non-terminal task instances with `dueAt <= now`, oldest first. */
  listDueTasks(now: number, limit: number): Promise<TaskInstance[]>;

  // triggers: sensors waiting for the poker, tasks waiting for an event
  /** Conditional put: fails when a trigger with this id exists. */
  putTrigger(t: TriggerRecord): Promise<Cas<TriggerRecord>>;
  getTrigger(id: string): Promise<TriggerRecord | undefined>;
  deleteTrigger(id: string): Promise<void>;
  updateTrigger(id: string, patch: Partial<Omit<TriggerRecord, 'id'>>): Promise<void>;
  /** Sensor triggers of one shard with `nextPokeAt <= dueBefore`. */
  listSensorTriggers(shard: number, dueBefore: number): Promise<TriggerRecord[]>;
  /** Event triggers waiting for this key. */
  listEventTriggers(eventKey: string): Promise<TriggerRecord[]>;
  /**
   * Claims poke cycle `cycle` of target `hashcode`: true for exactly one caller per
   * (hashcode, cycle), however many pokers race. `expiresAtSec` (epoch seconds) lets the
   * claim record expire (DynamoDB TTL) once no poker can still be in that cycle.
   */
  claimPoke(hashcode: string, cycle: number, expiresAtSec?: number): Promise<boolean>;

  // XCom
  /** `expiresAt` (epoch seconds) lets the item expire with its run (DynamoDB TTL). */
  putXcom(key: XcomKey, value: unknown, expiresAt?: number): Promise<void>;
  getXcom(key: XcomKey): Promise<unknown>;
  /** Deletes every XCom of a task instance, its return value included (a new try starts clean, as in Airflow). */
  clearXcoms(task: TaskKey): Promise<void>;

  // pools (pools.ts)
  /** Creates a pool or changes its slots (the slots left move by the difference). */
  registerPool(pool: PoolSpec): Promise<void>;
  getPool(name: string): Promise<PoolState | undefined>;
  /** Tasks waiting with this `waitKey`, lowest `waitRank` first (an index: may lag on DynamoDB). */
  listWaiters(waitKey: string, limit: number): Promise<TaskKey[]>;

  // signals (events that may arrive before anyone waits)
  putSignal(sig: SignalRecord): Promise<void>;
  getSignal(key: string, now: number): Promise<SignalRecord | undefined>;
}

// ---------------------------------------------------------------------------
// Queue and timer
// ---------------------------------------------------------------------------

/** Work for a worker: run (or resume) one task try. */
export interface TaskMessage {
  kind: 'task';
  dagId: string;
  runId: string;
  taskId: string;
  tryNumber: number;
  /**
   * Present when the task has no item yet (a root, or the only downstream of the task that
   * just ended): the worker creates it already claimed, with these upstream outcomes, in
   * one conditional put (docs/adr/0020). Absent: the task is `queued` and is claimed.
   */
  up?: Record<string, UpstreamOutcome>;
  /** When the task became ready (epoch ms): its `queuedAt` once created. */
  at?: number;
}

/** A timer or an external event fired for a waiting task. */
export interface FireMessage {
  kind: 'fire';
  dagId: string;
  runId: string;
  taskId: string;
  tryNumber: number;
  /** Why: a deferral's trigger fired (a timer, a reschedule poke), or a retry delay ended. */
  reason: 'trigger' | 'retry';
  /** Claim token of the try segment that deferred (required with `trigger`): a stale fire cannot resume a later deferral. */
  token?: string;
  payload?: unknown;
}

/** A DAG schedule fired: create the run for this tick. */
export interface ScheduleMessage {
  kind: 'schedule';
  dagId: string;
  tickAt: number;
}

/** A callback to run (callbacks.ts): a task's `onSuccess`..., or the DAG's `onSuccess`/`onFailure` (no taskId). */
export interface CallbackMessage {
  kind: 'callback';
  dagId: string;
  runId: string;
  taskId?: string;
  tryNumber?: number;
  event: 'success' | 'failure' | 'retry' | 'skipped';
  /** The delayed copy armed before the write: it checks the event really happened. */
  verify?: boolean;
  /** Rechecks of the delayed copy so far. */
  attempt?: number;
}

/** A run of a backfill ended: advance the backfill (flow/backfill.ts). */
export interface BackfillMessage {
  kind: 'backfill';
  backfillId: number;
}

/** Stop the job of a task that stopped waiting for it (timed out, marked, cleared): flow/job-stop.ts. */
export interface StopMessage {
  kind: 'stop';
  dagId: string;
  runId: string;
  taskId: string;
  tryNumber: number;
  job: JobRef;
  /** Why, as the service records it (ECS stoppedReason, Batch reason, Step Functions cause). */
  reason: string;
}

export type QueueMessage = TaskMessage | FireMessage | ScheduleMessage | CallbackMessage | BackfillMessage | StopMessage | AssetMessage;

export interface Queue {
  /** Sends messages, at most `delayMs` late (0 to 15 minutes). */
  send(messages: readonly QueueMessage[], opts?: { delayMs?: number }): Promise<void>;
}

/** A message received from a queue, to be acknowledged or returned. */
export interface Delivery {
  message: unknown;
  receiptHandle: string;
  receiveCount: number;
}

/** The consuming side, used by the embedded runtime and the chaos test (Lambda gets SQS events). */
export interface ReceivingQueue extends Queue {
  receive(max: number, visibilityMs: number): Promise<Delivery[]>;
  ack(d: Delivery): Promise<void>;
  /** Makes the message visible again after `delayMs`. */
  release(d: Delivery, delayMs: number): Promise<void>;
}

/**
 * Delivers a message to the ready queue at a given time. Idempotent per id: scheduling
 * an existing id again is a success. There is no cancel: a timer that is no longer wanted
 * fires and is dropped as stale (its try number or claim token no longer matches).
 */
export interface Timer {
  schedule(id: string, at: number, message: QueueMessage): Promise<void>;
}

// ---------------------------------------------------------------------------
// Clock, bundles, metrics, log
// ---------------------------------------------------------------------------

export interface Clock {
  now(): number;
  /** Resolves after `ms` of this clock's time (virtual under a fake clock); an abort resolves it early. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A loaded bundle: the DAG objects with their code, and the sensor types it defines. */
export interface LoadedBundle {
  manifest: Manifest;
  /** Returns the callable for a task's method (`execute` or a resume method). */
  taskMethod(dagId: string, taskId: string, method: string): TaskCallable | undefined;
  /** Poke function of a sensor type defined in this bundle (built-ins live in the engine). */
  sensorPoke(type: string): SensorPoke | undefined;
}

export type TaskCallable = ((ctx: unknown, arg?: unknown) => unknown) & {
  /** Resolves when the callable can start at once (an isolated try has its thread); the execution timeout starts after it. */
  ready?: () => Promise<void>;
};
export type SensorPoke = ((pokeContext: Record<string, unknown>, env: { now: number; signal?: AbortSignal }) => unknown) & {
  /** As {@link TaskCallable}'s: the poke timeout starts after it. */
  ready?: () => Promise<void>;
};

export interface BundleSource {
  /** The manifest of a bundle version (schedulers read only this). */
  manifest(version: string): Promise<Manifest>;
  /** The executable bundle (workers and pokers only). */
  load(version: string): Promise<LoadedBundle>;
}

/** An Airflow connection, as `ctx.connections.get(id)` returns it. */
export interface Connection {
  connId: string;
  connType?: string;
  host?: string;
  port?: number;
  login?: string;
  password?: string;
  schema?: string;
  extra: Record<string, unknown>;
}

/** Where variables and connections come from (env and a file locally; SSM and Secrets Manager on AWS). */
export interface SecretsSource {
  /** The variable's raw string, undefined when it does not exist. */
  variable(key: string): Promise<string | undefined>;
  connection(connId: string): Promise<Connection | undefined>;
}

/** A notifier with its templates rendered. */
export type RenderedNotifier =
  | { type: 'sns'; topicArn: string; message: string; subject?: string }
  | { type: 'webhook'; url: string; body: unknown; headers?: Record<string, string> };

export interface Notifier {
  send(n: RenderedNotifier): Promise<void>;
}

export interface Metrics {
  count(name: string, value?: number): void;
  timing(name: string, ms: number): void;
}

export interface Log {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Everything the engine needs, passed in once. */
export interface Ports {
  store: Store;
  queue: Queue;
  timer: Timer;
  clock: Clock;
  bundles: BundleSource;
  metrics: Metrics;
  log: Log;
  /** Engine settings; see {@link EngineConfig}. */
  config: EngineConfig;
  /** Built-in sensor pokes that need I/O (file, s3_key, http), provided by the runtime. */
  sensors?: Readonly<Record<string, SensorPoke>>;
  /** Identifies this process in claim tokens (unique per container or process). */
  workerId?: string;
  /** Variables and connections (Airflow's secrets backend); absent: every lookup misses. */
  secrets?: SecretsSource;
  /** Sends built-in notifications (SNS, webhooks); absent: notifiers are logged and skipped. */
  notifier?: Notifier;
  /** Time this worker has left (a Lambda's remaining time); unbounded when absent. */
  remainingMs?: () => number;
  /** Switches the poker schedules on and off with the sensors (flow/poker-schedule.ts); absent: pokers run as deployed. */
  pokerSchedules?: PokerSchedules;
  /** AWS job services by operator type (lib/operators); absent: operator tasks fail saying so. */
  jobs?: JobDrivers;
}

export interface EngineConfig {
  /** Number of poker shards. */
  shards: number;
  /** Lease a worker holds on a running try beyond its execution timeout. */
  leaseMarginMs: number;
  /** Lease when the task has no execution timeout (the Lambda timeout, typically). */
  defaultLeaseMs: number;
  /** A queued task whose message is lost is re-sent after this long. */
  requeueAfterMs: number;
  /** How long a signal nobody waits for is kept. */
  signalRetentionMs: number;
  /** Finished runs expire this long after they end (0 = keep). */
  runRetentionMs: number;
  /** A timer not delivered this long after its time is fired by reconcile instead. */
  timerGraceMs: number;
  /**
   * Eager follow: after a try, the worker runs up to this many follow-up tasks of the same
   * run itself (a task whose only upstream it just finished) instead of queueing them.
   * 0 turns it off.
   */
  maxEagerFollows: number;
  /** Concurrent pokes per poker. */
  pokeConcurrency: number;
  /** Per-poke timeout. */
  pokeTimeoutMs: number;
  /** Most instances one `expand` may create (Airflow's max_map_length); more fails the mapped task. */
  maxMapLength?: number;
  /** How long an event is kept for a wait registered after it arrived (default 1 day). */
  eventRetentionMs?: number;
  /** An operator's job is described when no event ended it this long after submit, and every such interval (default 15 min). */
  jobSafetyNetMs?: number;
}

export const DEFAULT_CONFIG: EngineConfig = {
  shards: 8,
  leaseMarginMs: 60_000,
  defaultLeaseMs: 15 * 60_000 + 60_000,
  requeueAfterMs: 5 * 60_000,
  signalRetentionMs: 24 * 3600_000,
  runRetentionMs: 90 * 24 * 3600_000,
  timerGraceMs: 2 * 60_000,
  maxEagerFollows: 16,
  pokeConcurrency: 256,
  pokeTimeoutMs: 30_000,
  maxMapLength: 10_000,
  eventRetentionMs: 24 * 3600_000,
  jobSafetyNetMs: 15 * 60_000,
};
