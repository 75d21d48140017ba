/**
 * What a task body receives (`ctx`) and the markers it may return. The SDK re-exports
 * these types for DAG authors; the engine builds the objects.
 */
import type { TriggerSpec } from './types.js';
import type { TriggeringAssetEvent } from './assets.js';
import type { EventWait, JobRef } from './events.js';

export interface TaskLogger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface DeferOptions {
  /** A timer (`{ after }`, `{ at }`) or a signal key (`{ event: 'approve-{{ ds }}' }`); or give `event`. */
  trigger?: TriggerSpec;
  /**
   * An EventBridge event to wait for: `{ source, detailType, detail }`, `detail` an event
   * pattern pinning one top-level field to one value (its index key). The event is the
   * resume method's `input.event.payload`.
   */
  event?: EventWait;
  /** Method of the task to call when the trigger fires (default `execute`). */
  resume?: string;
  kwargs?: Record<string, unknown>;
  /** Duration ('2h', '1d') or milliseconds after which the deferral fails the try. */
  timeout?: string | number;
}

/** Returned by `ctx.defer(...)`: the task frees its worker and waits for the trigger. */
export interface DeferRequest extends DeferOptions {
  readonly __airless: 'defer';
  /** Set by operators only: the job the event ends, stopped when the task stops waiting otherwise. */
  job?: JobRef;
}

/** Returned (or thrown) by `ctx.skip(...)`: the task ends as `skipped`. */
export interface SkipRequest {
  readonly __airless: 'skip';
  reason?: string;
}

/** Thrown by `ctx.fail(...)`: the try fails and is not retried (Airflow's AirflowFailException). */
export interface FailRequest {
  readonly __airless: 'fail';
  reason?: string;
}

export interface TaskContext<P extends Record<string, unknown> = Record<string, any>> {
  dagId: string;
  runId: string;
  taskId: string;
  /** A mapped instance's index (0..n-1); -1 for a task that is not mapped, as Airflow's `map_index`. */
  mapIndex: number;
  tryNumber: number;
  /** How the run was created, as Airflow's `run_type`: 'manual', 'scheduled', 'backfill'... */
  runType: string;
  /** Logical date as an ISO string (UTC). */
  logicalDate: string;
  dataIntervalStart: string;
  dataIntervalEnd: string;
  /** Logical date as YYYY-MM-DD (in the DAG's timezone... Airflow uses UTC: so do we). */
  ds: string;
  /** DAG params overlaid with the run's conf. */
  params: P;
  conf: Record<string, any>;
  xcom: {
    pull<T = unknown>(taskId: string, key?: string): Promise<T>;
    push(key: string, value: unknown): Promise<void>;
  };
  log: TaskLogger;
  /** Airflow variables: `await ctx.variables.get('key', { default: 'x' })`; a missing key without a default throws. */
  variables: {
    get<T = string>(key: string, opts?: { default?: T; deserializeJson?: boolean }): Promise<T>;
  };
  /** Airflow connections: `await ctx.connections.get('warehouse')`; an unknown id throws. */
  connections: {
    get(connId: string): Promise<{
      connId: string; connType?: string; host?: string; port?: number; login?: string; password?: string; schema?: string;
      extra: Record<string, unknown>;
    }>;
  };
  /** Renders `{{ ds }}`-style templates with this context. */
  render(template: string): string;
  /** Interrupts the task where it is called (it throws); the task waits for the trigger. */
  defer(opts: DeferOptions): DeferRequest;
  /** Interrupts the task where it is called (it throws); the task ends `skipped`. */
  skip(reason?: string): SkipRequest;
  /** Interrupts the task where it is called (it throws); the try fails without retrying. */
  fail(reason?: string): never;
  /** Aborted when the execution timeout passes. */
  signal: AbortSignal;
  /**
   * The event a success of this task emits for one of its outlets (an `asset()` or its
   * URI): set `extra` (plain JSON data) to describe it, as Airflow's `outlet_events[asset].extra`.
   */
  outletEvents(asset: { uri: string } | string): { extra: Record<string, unknown> };
  /** An asset-triggered run: the asset events it consumed, by asset URI (Airflow's `triggering_asset_events`); `{}` otherwise. */
  triggeringAssetEvents: Record<string, TriggeringAssetEvent[]>;
}

/** Second argument of a resume method. */
export interface ResumeInput {
  kwargs: Record<string, any>;
  event: { payload?: any; firedAt: string; key?: string; reason: string };
}

export function isDeferRequest(v: unknown): v is DeferRequest {
  return typeof v === 'object' && v !== null && (v as { __airless?: unknown }).__airless === 'defer';
}

export function isSkipRequest(v: unknown): v is SkipRequest {
  return typeof v === 'object' && v !== null && (v as { __airless?: unknown }).__airless === 'skip';
}

export function isFailRequest(v: unknown): v is FailRequest {
  return typeof v === 'object' && v !== null && (v as { __airless?: unknown }).__airless === 'fail';
}
