/**
 * The Store port: compare-and-set writes of runs, tasks, slots and pools, and the sub-stores
 * it extends (mapping, run ends, run slots, backfills, pokers, events, assets, previous
 * successes). Split from ports.ts to keep each under 400 lines; ports.ts re-exports it.
 */
import type {
  DagRecord,
  DagRun,
  PoolSpec,
  SignalRecord,
  TaskInstance,
  TaskKey,
  TriggerRecord,
  XcomKey,
} from './types.js';
import type { RunState, TaskState } from './states.js';
import type { MappingStore } from './mapping-store.js';
import type { RunEndsStore } from './run-ends-store.js';
import type { RunSlotStore } from './run-slots-store.js';
import type { BackfillStore } from './backfill-store.js';
import type { PokerStateStore } from './poker-state.js';
import type { AssetStore } from './asset-store.js';
import type { PrevSuccessStore } from './prev-success.js';
import type { EventStore } from './events.js';
import type { AuditLogStore } from './audit-log.js';
import type { RunDeleteStore } from './run-delete-store.js';
import type { ImportErrorStore } from './import-error-store.js';

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

export interface Store extends MappingStore, RunEndsStore, RunSlotStore, BackfillStore, PokerStateStore, EventStore, AssetStore, PrevSuccessStore, AuditLogStore, RunDeleteStore, ImportErrorStore {
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
