/**
 * Assets as DAG files declare them (Airflow 3's `Asset`, `AssetAll`, `AssetAny`,
 * `AssetWatcher`): `asset(uri, ...)`, `allOf(...)`, `anyOf(...)` and the watchers that feed
 * an asset from outside (`watch.s3`, `watch.eventBridge`, `watch.sqs`). A definition is
 * data; an invalid one is reported where a DAG uses it, so the error names the file, the
 * DAG and the task. What happens at run time: lib/engine/flow/assets.ts, docs/assets.md.
 */
import { assetGroupProblem, assetNameProblem, normalizeAssetUri, watcherProblem } from '../engine/index.js';
import type { AssetCondition, AssetSpec, AssetWatcherSpec } from '../engine/index.js';

/** What `asset()` returns. */
export interface AssetDefinition {
  readonly __airless: 'asset';
  /** The URI as normalised (Airflow's rules); the given text when it is invalid. */
  readonly uri: string;
  readonly name: string;
  readonly group: string;
  readonly extra?: Readonly<Record<string, unknown>>;
  readonly watchers?: readonly AssetWatcherSpec[];
  /** Why the definition is invalid (reported when a DAG uses it). */
  readonly problem?: string;
}

/** What `allOf()` and `anyOf()` return. */
export interface AssetConditionDefinition {
  readonly __airless: 'asset-condition';
  readonly condition: AssetCondition;
  readonly assets: readonly AssetDefinition[];
  readonly problem?: string;
}

/** What a DAG's `schedule` takes besides a cron: an asset, a condition, or a list (all of them). */
export type AssetSchedule = AssetDefinition | AssetConditionDefinition | ReadonlyArray<AssetDefinition | AssetConditionDefinition>;

export interface AssetOptions {
  /** Default: the URI, as Airflow's. */
  name?: string;
  /** Default: `asset`. */
  group?: string;
  /** The asset's own metadata (not an event's: set those with `ctx.outletEvents(asset).extra`). */
  extra?: Record<string, unknown>;
  /** Sources of events from outside Airless: S3 notifications, EventBridge patterns, SQS queues. */
  watchers?: readonly AssetWatcherSpec[];
}

/**
 * Declares an asset. `uri` follows Airflow's rules: a scheme (lower-cased), no credentials,
 * a normalised query and path; a string without a scheme is a plain name.
 *
 * @example
 * export const raw = asset('s3://lake/raw/orders', { group: 'lake', watchers: [watch.s3({ bucket: 'lake', prefix: 'raw/orders/' })] });
 * dag('load_orders', { schedule: raw }, ({ task }) => { task('load', async (ctx) => ctx.triggeringAssetEvents[raw.uri]); });
 */
export function asset(uri: string, options: AssetOptions = {}): AssetDefinition {
  let normalized = typeof uri === 'string' ? uri : String(uri);
  let problem: string | undefined;
  try {
    normalized = normalizeAssetUri(uri);
  } catch (e) {
    problem = (e as Error).message;
  }
  const o = options ?? {};
  const name = o.name ?? normalized;
  const group = o.group ?? 'asset';
  problem ??= (o.name !== undefined ? assetNameProblem(name) : undefined) ?? assetGroupProblem(group);
  if (!problem && o.extra !== undefined && (typeof o.extra !== 'object' || o.extra === null || Array.isArray(o.extra))) {
    problem = `asset ${normalized}: extra must be an object, got ${JSON.stringify(o.extra)}`;
  }
  const watchers = o.watchers === undefined ? undefined : [...o.watchers];
  if (!problem && watchers) {
    if (!Array.isArray(o.watchers)) problem = `asset ${normalized}: watchers must be a list of watch.s3/eventBridge/sqs(...)`;
    const names = new Set<string>();
    for (const w of watchers) {
      problem ??= watcherProblem(w);
      if (!problem && names.has(w.name)) problem = `asset ${normalized}: two watchers are named ${JSON.stringify(w.name)}`;
      names.add(w?.name);
    }
  }
  return Object.freeze({
    __airless: 'asset' as const,
    uri: normalized,
    name,
    group,
    ...(o.extra !== undefined ? { extra: Object.freeze({ ...o.extra }) } : {}),
    ...(watchers?.length ? { watchers: Object.freeze(watchers) } : {}),
    ...(problem ? { problem } : {}),
  });
}

/** True when `v` is what `asset()` returns (also across copies of this module). */
export function isAssetDefinition(v: unknown): v is AssetDefinition {
  return typeof v === 'object' && v !== null && (v as { __airless?: unknown }).__airless === 'asset';
}

function isConditionDefinition(v: unknown): v is AssetConditionDefinition {
  return typeof v === 'object' && v !== null && (v as { __airless?: unknown }).__airless === 'asset-condition';
}

/** True when a DAG's `schedule` is an asset schedule (an asset, a condition or a list of them). */
export function isAssetSchedule(v: unknown): v is AssetSchedule {
  return isAssetDefinition(v) || isConditionDefinition(v) || (Array.isArray(v) && v.every((x) => isAssetDefinition(x) || isConditionDefinition(x)));
}

function combine(op: 'all' | 'any', items: ReadonlyArray<AssetDefinition | AssetConditionDefinition>): AssetConditionDefinition {
  const assets: AssetDefinition[] = [];
  const parts: AssetCondition[] = [];
  let problem: string | undefined;
  for (const x of items) {
    if (isAssetDefinition(x)) {
      assets.push(x);
      parts.push({ asset: x.uri });
      problem ??= x.problem;
    } else if (isConditionDefinition(x)) {
      assets.push(...x.assets);
      parts.push(x.condition);
      problem ??= x.problem;
    } else {
      problem ??= `${op === 'all' ? 'allOf' : 'anyOf'}() takes assets and allOf/anyOf conditions, got ${JSON.stringify(x)}`;
    }
  }
  if (!problem && parts.length === 0) problem = `${op === 'all' ? 'allOf' : 'anyOf'}() needs at least one asset`;
  return Object.freeze({ __airless: 'asset-condition' as const, condition: op === 'all' ? { all: parts } : { any: parts }, assets, ...(problem ? { problem } : {}) });
}

/**
 * Runs when every one of the assets (or conditions) has a queued event: Airflow's
 * `AssetAll` (`a & b`), which a list in `schedule` also means.
 *
 * @example
 * dag('join', { schedule: allOf(orders, customers) }, build);
 */
export function allOf(...items: Array<AssetDefinition | AssetConditionDefinition>): AssetConditionDefinition {
  return combine('all', items);
}

/**
 * Runs when any one of the assets (or conditions) has a queued event: Airflow's `AssetAny` (`a | b`).
 *
 * @example
 * dag('refresh', { schedule: anyOf(orders, allOf(customers, regions)) }, build);
 */
export function anyOf(...items: Array<AssetDefinition | AssetConditionDefinition>): AssetConditionDefinition {
  return combine('any', items);
}

/**
 * The serialized schedule of a DAG and the assets it names, or the first problem.
 *
 * @example
 * assetScheduleSpec([a, b]); // { condition: { all: [{ asset: a.uri }, { asset: b.uri }] }, assets: [a, b] }
 */
export function assetScheduleSpec(s: AssetSchedule): { condition: AssetCondition; assets: readonly AssetDefinition[]; problem?: string } {
  if (isAssetDefinition(s)) return { condition: { asset: s.uri }, assets: [s], problem: s.problem };
  if (isConditionDefinition(s)) return s;
  return combine('all', s as ReadonlyArray<AssetDefinition | AssetConditionDefinition>);
}

/** The manifest form of an asset definition. */
export function assetSpecOf(d: AssetDefinition): AssetSpec {
  return {
    uri: d.uri, name: d.name, group: d.group,
    ...(d.extra !== undefined ? { extra: { ...d.extra } } : {}),
    ...(d.watchers?.length ? { watchers: d.watchers.map((w) => structuredClone(w)) } : {}),
  };
}

function watcherName(kind: string, given: string | undefined, fallback: string): string {
  return given ?? `${kind}:${fallback}`;
}

/**
 * Watchers: where an asset's events come from besides tasks (Airflow's AssetWatcher).
 * Each is pushed to Airless (S3 and EventBridge through a rule, SQS through an event source
 * mapping that the stack wires: see docs/assets.md), never polled by Airless.
 */
export const watch = {
  /**
   * Object-created events of an S3 bucket (EventBridge notifications on), under `prefix`
   * and ending with `suffix`. One asset event per object version; a redelivered
   * notification (same bucket, key, version id or ETag) makes no second event.
   *
   * @example
   * asset('s3://lake/raw', { watchers: [watch.s3({ bucket: 'lake', prefix: 'raw/' })] });
   */
  s3(o: { bucket: string; prefix?: string; suffix?: string; name?: string }): AssetWatcherSpec {
    return { kind: 's3', name: watcherName('s3', o?.name, `${o?.bucket}/${o?.prefix ?? ''}`), bucket: o?.bucket, ...(o?.prefix ? { prefix: o.prefix } : {}), ...(o?.suffix ? { suffix: o.suffix } : {}) };
  },
  /**
   * Events matching an EventBridge pattern on the default bus (AWS services' events) or the
   * Airless bus. Deduplicated by the event's `id`, or by the field `dedupField` names.
   *
   * @example
   * watch.eventBridge({ pattern: { source: ['billing'], 'detail-type': ['Invoice Closed'] }, dedupField: 'detail.invoiceId' });
   */
  eventBridge(o: { pattern: Record<string, unknown>; bus?: 'default' | 'airless'; dedupField?: string; name?: string }): AssetWatcherSpec {
    const pattern = o?.pattern;
    return { kind: 'eventbridge', name: watcherName('eventbridge', o?.name, JSON.stringify(pattern)), bus: o?.bus ?? 'default', pattern, ...(o?.dedupField ? { dedupField: o.dedupField } : {}) };
  },
  /**
   * Messages of an SQS queue (its name, URL or ARN): Airflow's message-queue watcher, with
   * the queue pushed to Airless by Lambda. Deduplicated by message id, or by `dedupField` of a JSON body.
   *
   * @example
   * watch.sqs({ queue: 'orders-landed', dedupField: 'orderId' });
   */
  sqs(o: { queue: string; dedupField?: string; name?: string }): AssetWatcherSpec {
    const queue = queueName(o?.queue);
    return { kind: 'sqs', name: watcherName('sqs', o?.name, queue), queue, ...(o?.dedupField ? { dedupField: o.dedupField } : {}) };
  },
};

/** A queue's name from its name, URL (`https://sqs.../123/name`) or ARN (`arn:aws:sqs:...:name`). */
function queueName(q: unknown): string {
  if (typeof q !== 'string') return q as string;
  const tail = q.split(/[/:]/).pop() ?? q;
  return q.startsWith('https://') || q.startsWith('arn:') ? tail : q;
}
