/**
 * The engine talks to the world only through these ports. Each has a memory adapter
 * (lib/adapters/memory) and an AWS adapter (lib/adapters/aws); one contract suite
 * (test/contract) runs against both stores.
 */
import type { Manifest } from './types.js';
import type { UpstreamOutcome } from './states.js';
import type { PokerSchedules } from './poker-state.js';
import type { AssetMessage } from './assets.js';
import type { JobDrivers, JobRef } from './events.js';
import type { Store } from './store.js';

export type * from './store.js';

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
  /** Each DAG file's source text by its path in the DAG folder, kept beside the bundle (`sources.json`); `{}` when the bundle kept none. Absent: a source that keeps no files (inline DAGs). */
  sources?(version: string): Promise<Record<string, string>>;
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
