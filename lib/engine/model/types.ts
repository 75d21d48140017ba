/**
 * The serialized form of DAGs (what `airless build` writes to manifest.json and what
 * schedulers read) and the records the engine keeps in the Store.
 * Times are epoch milliseconds in records and ISO-8601 strings in manifests; the one
 * exception is `expiresAt`, epoch seconds everywhere (the unit DynamoDB TTL reads).
 */
import type { BuiltinSpec, ParamSchema, RunWaiter } from './authoring.js';
import type { RunState, TaskState, UpstreamOutcome } from './states.js';
import type { AssetCondition, AssetSpec } from './assets.js';
import type { EventPattern, EventTrigger, JobRef, OperatorSpec } from './events.js';
import type { InputSource, MapExpand } from './inputs.js';
export type * from './inputs.js';
export { KWARGS_ELEMENT } from './inputs.js';

export const TRIGGER_RULES = [
  'all_success',
  'all_failed',
  'all_done',
  'all_skipped',
  'one_success',
  'one_failed',
  'one_done',
  'none_failed',
  'none_failed_min_one_success',
  'none_skipped',
  'always',
  // Teardowns only (setup-teardown.ts): all upstreams done and at least one setup succeeded.
  'all_done_setup_success',
] as const;
export type TriggerRule = (typeof TRIGGER_RULES)[number];

/** A DAG schedule: cron (5-field, with timezone), a fixed rate, or manual only. */
export type ScheduleSpec =
  | { kind: 'cron'; expr: string; timezone: string }
  | { kind: 'rate'; everyMs: number }
  /** `@once` (Airflow's OnceTimetable): one run, at startDate or as soon as the DAG is registered. */
  | { kind: 'once' }
  | null;

export interface RetryPolicy {
  retries: number;
  retryDelayMs: number;
  retryExponentialBackoff: boolean;
  maxRetryDelayMs?: number;
}

export type SensorMode = 'batched' | 'reschedule';

export interface SensorSpec {
  /** Sensor type: a built-in (`file`, `s3_key`, `http`, `external_task`, `time`) or one from `defineSensor`. */
  type: string;
  /** Poke context before rendering; string leaves are templates. */
  pokeContext: Record<string, unknown>;
  mode: SensorMode;
  pokeIntervalMs: number;
  timeoutMs: number;
  softFail: boolean;
  /** A poke that throws counts as "not yet" (Airflow's `silent_fail`); without it the try fails. */
  silentFail?: boolean;
  exponentialBackoff: boolean;
  maxPokeIntervalMs?: number;
}

export type TaskKind = 'task' | 'branch' | 'sensor';

export interface TaskSpec extends RetryPolicy {
  taskId: string;
  kind: TaskKind;
  upstream: string[];
  downstream: string[];
  triggerRule: TriggerRule;
  executionTimeoutMs?: number;
  /** `'none'`: the try runs in the worker's own thread (opt-in for trusted, CPU-trivial tasks). */
  isolation?: 'none';
  /** Sensor settings, when kind is `sensor`. */
  sensor?: SensorSpec;
  /** Named methods of a deferrable task besides `execute`. */
  methods?: string[];
  /** Built-in operator arguments (templated strings), if any. */
  args?: Record<string, unknown>;
  /** Pool and per-task concurrency (pool-limits.ts); set only on limited tasks. */
  pool?: string;
  poolSlots?: number;
  /** Effective weight under the task's weight rule, computed at build (Airflow's priority_weight_total). */
  priorityWeight?: number;
  maxActiveTisPerDag?: number;
  maxActiveTisPerDagrun?: number;
  /** Id of the innermost task group the task was declared in (`load`, `load.sub`). */
  group?: string;
  /** Flow features (setup-teardown.ts, short-circuit.ts, depends-on-past.ts). */
  setup?: true;
  teardown?: TeardownSpec;
  shortCircuit?: { ignoreDownstreamTriggerRules: boolean };
  dependsOnPast?: true;
  /** Dynamic task mapping (`.expand(...)`): one instance per element; see mapping-ids.ts. */
  expand?: MapExpand;
  /** Typed TaskFlow: the task's inputs by name, resolved before each try (flow/inputs.ts). */
  inputs?: Record<string, InputSource>;
  /** Keys of the returned object that tasks read (`e.rows`): each also stored as its own XCom. */
  outputKeys?: string[];
  /** Events the task has callbacks for (`onSuccess` → 'success'...): code in the bundle, notifiers in `notify`. */
  callbacks?: TaskCallbackEvent[];
  notify?: NotifierSpec[];
  /** Assets a success of the task emits an event for, and assets it reads (URIs; defined in the DAG's `assets`). */
  outlets?: string[];
  inlets?: string[];
  /** An operator task (`ecsRunTask(...)`, `waitForEvent(...)`): submits a job and waits for its end event (model/events.ts). */
  operator?: OperatorSpec;
  /** A task the engine runs itself (latestOnly): no code in the bundle (rules/latest-only.ts). */
  builtin?: BuiltinSpec;
  /** Shown instead of the id in the UI and API (Airflow's task_display_name). */
  displayName?: string;
  /** Markdown documentation (Airflow's doc_md). */
  doc?: string;
}

/** A pool declared with `definePool` in a DAG file of the bundle. */
export interface PoolSpec {
  name: string;
  slots: number;
  description?: string;
}

/** A teardown task: its setups (direct upstreams), and whether its failure fails the run. */
export interface TeardownSpec {
  setups: string[];
  onFailureFailDagrun: boolean;
}

/** A built-in notifier (`notify.sns`, `notify.webhook`) used as a callback; string leaves are templates. */
export type NotifierSpec =
  | { event: TaskCallbackEvent; type: 'sns'; topicArn: string; message: string; subject?: string }
  | { event: TaskCallbackEvent; type: 'webhook'; url: string; body?: unknown; headers?: Record<string, string> };

export type TaskCallbackEvent = 'execute' | 'success' | 'failure' | 'retry' | 'skipped';
export type DagCallbackEvent = 'success' | 'failure';

export interface DagSpec {
  dagId: string;
  /** Source file, relative to the DAG folder, for messages. */
  file: string;
  description?: string;
  schedule: ScheduleSpec;
  timezone: string;
  startDate?: string;
  endDate?: string;
  catchup: boolean;
  /** Runs cover (previous tick, tick], dated at its start (Airflow's create_cron_data_intervals); absent: zero-length at the tick. */
  createDataIntervals?: boolean;
  maxActiveRuns: number;
  maxActiveTasks: number;
  /** Upper bound on tasks that can run at once in one run (width of the DAG). */
  maxParallelism: number;
  params: Record<string, unknown>;
  tags: string[];
  pausedOnCreation: boolean;
  tasks: TaskSpec[];
  /** A run that has run this long fails (Airflow's dagrun_timeout; run-timeout.ts). */
  dagrunTimeoutMs?: number;
  /** Run-level callbacks the DAG defines (`onSuccess`, `onFailure`): code in the bundle, notifiers in `notify`. */
  callbacks?: DagCallbackEvent[];
  notify?: NotifierSpec[];
  /** Runs when asset events satisfy this (`schedule` is then null); see model/assets.ts. */
  assetSchedule?: AssetCondition;
  /** Every asset the DAG names (schedule, outlets, inlets), each once. */
  assets?: AssetSpec[];
  /** JSON Schemas of params declared with `param(default, schema)`; a param without a default is absent from `params`. */
  paramSchemas?: Record<string, ParamSchema>;
  /** Shown instead of the id in the UI and API (Airflow's dag_display_name). */
  displayName?: string;
  /** Markdown documentation (Airflow's doc_md). */
  doc?: string;
  /** Edge labels (Airflow's `Label`): upstream task id → downstream task id → label (rules/authoring.ts). */
  edgeLabels?: Record<string, Record<string, string>>;
}

export interface Manifest {
  formatVersion: 1;
  /** sha256 (hex) of bundle.mjs. */
  bundleSha256: string;
  builtAt: string;
  dags: DagSpec[];
  /** Sensor types defined with `defineSensor` in this bundle. */
  sensorTypes: string[];
  /** Pools declared with `definePool` in this bundle. */
  pools?: PoolSpec[];
}

// ---------------------------------------------------------------------------
// Records kept in the Store
// ---------------------------------------------------------------------------

export interface DagRecord {
  dagId: string;
  bundleVersion: string;
  spec: DagSpec;
  paused: boolean;
  /** The next schedule tick (epoch ms) for which no run has been created yet. */
  nextTickAt?: number;
  /** Runs holding a maxActiveRuns slot right now: the size of `runSlots` (docs/adr/0020). */
  activeRuns?: number;
  /** The runs holding a maxActiveRuns slot, each with when it took it (model/run-slots-store.ts). Read-only: written by takeRunSlot and releaseRunSlot. */
  runSlots?: Record<string, number>;
  updatedAt: number;
}

export type RunType = 'scheduled' | 'manual' | 'backfill' | 'asset_triggered';

export interface DagRun {
  dagId: string;
  runId: string;
  state: RunState;
  runType: RunType;
  logicalDate: number;
  dataIntervalStart: number;
  dataIntervalEnd: number;
  conf: Record<string, unknown>;
  bundleVersion: string;
  queuedAt: number;
  startedAt?: number;
  endedAt?: number;
  /** Tasks in `queued` or `running` right now, kept only when maxActiveTasks can bind. */
  activeTasks?: number;
  /** TTL (epoch seconds) once finished. */
  expiresAt?: number;
  /** When the run times out (dagrunTimeout from its start), enforced by reconcile. */
  timeoutAt?: number;
  /** Why the run failed when no task of it did (its bundle is gone: orphan-run.ts). */
  error?: string;
  /** Reconcile re-sent the messages of root tasks that were never created: when, and how many times (flow/resend.ts). */
  rootsResentAt?: number;
  rootsResends?: number;
  /** The backfill that created or reprocessed the run: its slot counts there (flow/backfill.ts). */
  backfillId?: number;
  /** An asset-triggered run: the refs of the asset events it consumed, by asset URI (flow/assets.ts). */
  assetEvents?: Record<string, string[]>;
  /** An operator's note on the run (Airflow's run note; flow/mark-run.ts). */
  note?: string;
  /** The triggerDagRun try waiting for this run's end (flow/trigger-dag-run.ts). */
  waiter?: RunWaiter;
}

export interface TaskKey {
  dagId: string;
  runId: string;
  taskId: string;
}

/** What a trigger is waiting for. */
export type TriggerSpec =
  | { after: string | number }
  | { at: string | number }
  | { event: string }
  /** An EventBridge event (flow/event-wait.ts). */
  | EventTrigger;

export interface TaskInstance extends TaskKey {
  state: TaskState;
  /** Number of the current (or last) try; 0 before the first try is queued. */
  tryNumber: number;
  /** Tries made before the last clear: retries count from here (Airflow's max_tries). */
  tryBase?: number;
  /** Terminal states of upstream tasks, one attribute each, written idempotently. */
  upstream: Record<string, UpstreamOutcome>;
  /** Scheduled and decided ready to queue, waiting for a free maxActiveTasks slot. */
  ready?: boolean;
  /** Holds its pool and per-task slots (queued, running, deferred), moved with the state (pool-limits.ts). */
  slotsHeld?: boolean;
  /** Waiting for a slot of this pool or per-task limit, in the order of `waitRank` (pools.ts). */
  waitKey?: string;
  waitRank?: string;
  /** Claim token of the worker that holds the current try. */
  owner?: string;
  leaseUntil?: number;
  /** When reconcile must look at this task next (sparse: only non-terminal tasks). */
  dueAt?: number;
  queuedAt?: number;
  /** Reconcile re-sent the message of this queued try: when, and how many times. */
  requeuedAt?: number;
  requeues?: number;
  startedAt?: number;
  endedAt?: number;
  /** Method a deferred task resumes with, its kwargs and the trigger that resumes it. */
  nextMethod?: string;
  nextKwargs?: Record<string, unknown>;
  trigger?: TriggerSpec;
  /** When a deferral (or a reschedule-mode sensor's wait) times out. */
  deferTimeoutAt?: number;
  /** Event delivered by the trigger that resumed the task. */
  triggerEvent?: { payload?: unknown; firedAt: number; key?: string };
  /** First time a sensor started waiting: its timeout counts from here across retries. */
  sensorStartedAt?: number;
  /** Reschedule-mode sensors: pokes made so far (drives backoff). */
  pokeCount?: number;
  error?: string;
  /** TTL (epoch seconds), set when the task ends: the run's retention from then. */
  expiresAt?: number;
  /** Mapped instance (taskId `<task>#<mapIndex>`): its index, its element (JSON) and its return value (JSON, when small). */
  mapIndex?: number;
  mapItem?: string;
  mapValue?: string;
  /** Mapped parent: number of instances, and how many were created so far (the expansion's cursor). */
  mapLength?: number;
  mapCursor?: number;
  /** An operator's note on the task instance (Airflow's task instance note; flow/mark-run.ts). */
  note?: string;
  /** Reconcile re-sent the messages of this ended task's downstream that were never created: when, and how many times (flow/resend.ts). */
  followResentAt?: number;
  followResends?: number;
}

export type TriggerKind = 'sensor' | 'event';

/** A waiting task registered for the poker (sensors) or for signals (events). */
export interface TriggerRecord {
  /** `dagId/runId/taskId`: one row per waiting task. */
  id: string;
  kind: TriggerKind;
  dagId: string;
  runId: string;
  taskId: string;
  tryNumber: number;
  createdAt: number;
  timeoutAt?: number;
  /** Bundle version of the run, so a poker can load custom sensor types. */
  bundleVersion?: string;
  // sensors
  sensorType?: string;
  pokeContext?: Record<string, unknown>;
  hashcode?: string;
  shardcode?: number;
  nextPokeAt?: number;
  pokeIntervalMs?: number;
  softFail?: boolean;
  silentFail?: boolean;
  lastError?: string;
  // events
  eventKey?: string;
  /** An EventBridge event wait: the pattern the event must match, and the job it ends (flow/event-wait.ts). */
  pattern?: EventPattern;
  job?: JobRef;
}

export interface SignalRecord {
  key: string;
  payload?: unknown;
  createdAt: number;
  /** Epoch SECONDS (DynamoDB TTL's unit), as every `expiresAt`: gone at or past this second. */
  expiresAt: number;
}

export interface XcomKey extends TaskKey {
  key: string;
}

export type * from './authoring.js';

export function taskKeyString(k: TaskKey): string {
  return `${k.dagId}/${k.runId}/${k.taskId}`;
}
