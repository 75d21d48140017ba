/**
 * Assets and data-aware scheduling (Airflow 3's assets, AIP-74/75): what a manifest says
 * about assets, what the store keeps about them, and the messages that move asset work.
 * Design and invariants: docs/adr/0018-assets-and-data-aware-scheduling.md.
 */

/** Where the events of an asset come from besides task outlets (Airflow's asset watchers). */
export type AssetWatcherSpec =
  /** S3 "Object Created" events of a bucket (delivered through EventBridge), under a key prefix and suffix. */
  | { kind: 's3'; name: string; bucket: string; prefix?: string; suffix?: string }
  /**
   * Events on an EventBridge bus matching a pattern. The dedup key is the event `id` unless
   * `dedupField` names a field (a dotted path, `detail.orderId`).
   */
  | { kind: 'eventbridge'; name: string; bus: 'default' | 'airless'; pattern: Record<string, unknown>; dedupField?: string }
  /** Messages of an SQS queue (by name). The dedup key is the message id unless `dedupField` names a field of its JSON body. */
  | { kind: 'sqs'; name: string; queue: string; dedupField?: string };

export type AssetWatcherKind = AssetWatcherSpec['kind'];

/** An asset as DAG files declare it (`asset(uri, { name, group, extra, watchers })`), its URI normalised. */
export interface AssetSpec {
  uri: string;
  /** Defaults to the URI, as Airflow's. */
  name: string;
  /** Defaults to `asset`. */
  group: string;
  /** The asset's own extra (not an event's). */
  extra?: Record<string, unknown>;
  watchers?: AssetWatcherSpec[];
}

/**
 * A DAG's asset schedule, as Airflow serializes it (`as_expression`): one asset, all of
 * several (`AssetAll`, and a list), or any of several (`AssetAny`), nested.
 */
export type AssetCondition = { asset: string } | { all: AssetCondition[] } | { any: AssetCondition[] };

/** Where an asset event came from. */
export type AssetEventOrigin = 'task' | 'api' | 'cli' | 's3' | 'eventbridge' | 'sqs';

/** The task instance that emitted an event (Airflow's source_dag_id, source_run_id...). */
export interface AssetEventSource {
  dagId: string;
  runId: string;
  taskId: string;
  /** -1 for a task that is not mapped, as Airflow's. */
  mapIndex: number;
}

/** An asset event as stored. */
export interface AssetEventRecord {
  /**
   * `<timestamp, 13 digits>.<hash>`: the event's place in time and the hash of its asset and
   * dedup key (the key the store finds it by). Sorting refs sorts events by time.
   */
  ref: string;
  /** A 52-bit integer from the hash (Airflow's integer ids, for the REST API). */
  id: number;
  uri: string;
  timestamp: number;
  extra: Record<string, unknown>;
  origin: AssetEventOrigin;
  source?: AssetEventSource;
  /** DAG ids the event was queued for (each at most once). */
  queuedFor?: string[];
  /** `dagId/runId` of the runs that consumed it (Airflow's created_dagruns). */
  consumedBy?: string[];
  /** TTL (epoch seconds): events are kept as long as runs. */
  expiresAt?: number;
}

/** The registry entry of an asset: its spec and who produces, consumes and reads it. */
export interface AssetRecord extends AssetSpec {
  /** A 52-bit integer from the URI (stable across registrations). */
  id: number;
  /** False once no registered DAG names it (Airflow's inactive assets). */
  active: boolean;
  createdAt: number;
  updatedAt: number;
  /** DAGs whose schedule names it. */
  consumers: string[];
  /** Tasks that have it as an outlet. */
  producers: AssetTaskRef[];
  /** Tasks that have it as an inlet. */
  inlets: AssetTaskRef[];
}

export interface AssetTaskRef {
  dagId: string;
  taskId: string;
}

/** A registered watcher, indexed by where its events arrive from (`s3:<bucket>`, `sqs:<queue>`, `eventbridge`). */
export interface AssetWatcherEntry {
  source: string;
  uri: string;
  watcher: AssetWatcherSpec;
}

/**
 * A DAG's queue of unconsumed asset events (Airflow's AssetDagRunQueue): the refs queued per
 * asset id since the last run it triggered. `gen` counts the runs it has triggered; the
 * write that consumes generation `gen` is conditional on it, so one run consumes each.
 */
export interface AssetQueue {
  dagId: string;
  gen: number;
  /** When generation `gen` opened (the first event ever, or the last consumption). */
  openedAt: number;
  /** Asset URI -> queued event refs (at most {@link ASSET_QUEUE_CAP} per asset). */
  queued: Record<string, string[]>;
  /** Assets with more events queued than `queued` lists. */
  overflow?: string[];
}

/** Events listed per asset per run; more are counted as one overflow mark (docs/assets.md). */
export const ASSET_QUEUE_CAP = 100;

/** What queueing an event for a DAG did. */
export type QueueOutcome = 'queued' | 'already' | 'overflow';

/**
 * Asset work on the ready queue: `evaluate` a DAG's queue (create the run its condition
 * calls for), or `outlets`, the delayed check that a task's success emitted its events.
 */
export type AssetMessage =
  | { kind: 'asset'; op: 'evaluate'; dagId: string }
  | {
      kind: 'asset';
      op: 'outlets';
      dagId: string;
      runId: string;
      taskId: string;
      tryNumber: number;
      /** Asset URI -> the extra the task set (absent: `{}`). */
      extras?: Record<string, Record<string, unknown>>;
      /** Looks so far while the try had not ended. */
      attempt?: number;
    };

/** An asset event as a task sees it in `ctx.triggeringAssetEvents`. */
export interface TriggeringAssetEvent {
  id: number;
  uri: string;
  name: string;
  /** ISO-8601. */
  timestamp: string;
  extra: Record<string, unknown>;
  origin: AssetEventOrigin;
  source?: AssetEventSource;
}
