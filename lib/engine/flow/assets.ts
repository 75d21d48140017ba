/**
 * Asset events and the runs they trigger (Airflow's AssetManager.register_asset_change and
 * the scheduler's asset-triggered run creation), safe with any number of engines:
 *
 * 1. `recordAssetEvent` stores the event once per dedup key (a conditional put), queues it
 *    for each unpaused DAG scheduled on the asset, once per DAG (a transaction with the
 *    event item), and sends an `evaluate` message for each DAG whose condition now holds.
 * 2. `evaluateAssetQueue` (that message, or an unpause) reads the DAG's queue; while its
 *    condition holds it creates the run of generation `gen + 1` with a conditional put (its
 *    id names the generation, so racers create one run) recording the refs it consumes,
 *    then consumes exactly those refs with a write conditional on `gen`. A racer that lost
 *    the put consumes the winner's refs; what arrived meanwhile stays queued for the next run.
 *
 * Every step can be repeated after a crash: the put finds the event, the transaction finds
 * it queued, the run exists, the consumption is conditional. ADR 0018.
 */
import type { DagRecord, DagRun } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { createRun } from './runs.js';
import { ASSET_QUEUE_CAP, type AssetEventOrigin, type AssetEventRecord, type AssetEventSource, type AssetQueue } from '../model/assets.js';
import { conditionUris, evaluateCondition } from '../rules/asset-condition.js';
import { assetEventHash, assetEventId, assetEventRef, parseAssetEventRef } from '../rules/asset-uri.js';

/** An asset event to record. */
export interface NewAssetEvent {
  uri: string;
  /** Dedup key: a second event with the same asset and key is the first one. */
  key: string;
  extra?: Record<string, unknown>;
  origin: AssetEventOrigin;
  source?: AssetEventSource;
}

export interface RecordedAssetEvent {
  event: AssetEventRecord;
  /** False when the key was seen before (a redelivery): nothing new was recorded. */
  created: boolean;
  /** DAGs the event was queued for by this call. */
  queuedFor: string[];
  /** DAGs whose condition holds now: an `evaluate` message was sent for each. */
  evaluating: string[];
}

/** The extra of one event may hold this much JSON (events are items of 400 KB at most). */
export const MAX_EVENT_EXTRA_BYTES = 32_768;

/** Consumption rounds one evaluation makes before it leaves the rest to the next message. */
const MAX_ROUNDS = 20;

/**
 * Why an event's extra cannot be stored, or undefined.
 *
 * @example
 * extraProblem({ rows: 12 }); // undefined
 */
export function extraProblem(extra: unknown): string | undefined {
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) return `extra must be a JSON object, got ${Array.isArray(extra) ? 'an array' : JSON.stringify(extra)}`;
  let text: string;
  try {
    text = JSON.stringify(extra);
  } catch (e) {
    return `extra is not JSON: ${(e as Error).message}`;
  }
  const bytes = new TextEncoder().encode(text).byteLength;
  return bytes > MAX_EVENT_EXTRA_BYTES ? `extra is ${bytes} bytes of JSON; an asset event holds at most ${MAX_EVENT_EXTRA_BYTES}` : undefined;
}

/** The asset URIs a DAG's queue has events for (listed or counted). */
function queuedUris(q: AssetQueue | undefined): Set<string> {
  return new Set([...Object.keys(q?.queued ?? {}), ...(q?.overflow ?? [])]);
}

function holds(dag: DagRecord, q: AssetQueue | undefined): boolean {
  return dag.spec.assetSchedule !== undefined && evaluateCondition(dag.spec.assetSchedule, queuedUris(q));
}

/**
 * Records an asset event and queues it for the DAGs scheduled on its asset (Airflow's
 * register_asset_change). An unknown asset records nothing (undefined), as Airflow logs
 * and skips an event for an asset it has no record of.
 *
 * @example
 * await recordAssetEvent(p, { uri: 's3://lake/raw', key: 's3:lake/raw/a.csv@v1', origin: 's3', extra: { key: 'raw/a.csv' } });
 */
export async function recordAssetEvent(p: Ports, e: NewAssetEvent): Promise<RecordedAssetEvent | undefined> {
  const rec = await p.store.getAssetRecord(e.uri);
  if (!rec) {
    p.log.warn('asset event for an unknown asset dropped', { uri: e.uri, origin: e.origin });
    return undefined;
  }
  const now = p.clock.now();
  const hash = assetEventHash(e.uri, e.key);
  const retention = p.config.runRetentionMs;
  const put = await p.store.putAssetEvent({
    ref: assetEventRef(now, hash), id: assetEventId(hash), uri: e.uri, timestamp: now, extra: e.extra ?? {}, origin: e.origin,
    ...(e.source ? { source: e.source } : {}),
    ...(retention > 0 ? { expiresAt: Math.floor((now + retention) / 1000) } : {}),
  });
  p.metrics.count(put.created ? 'AssetEvents' : 'AssetEventDuplicates');
  if (put.created) p.log.info('asset event', { uri: e.uri, ref: put.event.ref, origin: e.origin });
  const out: RecordedAssetEvent = { event: put.event, created: put.created, queuedFor: [], evaluating: [] };
  // A redelivery walks the same steps: a crash after the put must not strand the event.
  for (const dagId of rec.consumers) {
    const dag = await p.store.getDag(dagId);
    if (!dag || dag.paused || !dag.spec.assetSchedule || !conditionUris(dag.spec.assetSchedule).includes(e.uri)) continue;
    const queued = await p.store.queueAssetEvent(dagId, e.uri, put.event.ref, now, ASSET_QUEUE_CAP);
    if (queued !== 'already') out.queuedFor.push(dagId);
    if (queued === 'overflow') p.log.warn('asset queue full: the event is counted, not listed', { dagId, uri: e.uri, cap: ASSET_QUEUE_CAP });
    if (holds(dag, await p.store.getAssetQueue(dagId))) out.evaluating.push(dagId);
  }
  if (out.evaluating.length) await p.queue.send(out.evaluating.map((dagId) => ({ kind: 'asset', op: 'evaluate', dagId }) as const));
  return out;
}

/** Groups refs by the asset URI whose queue lists them. */
function byUri(q: AssetQueue, uris: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const uri of uris) if (q.queued[uri]?.length || q.overflow?.includes(uri)) out[uri] = [...(q.queued[uri] ?? [])];
  return out;
}

/** The run id of a DAG's generation `gen`: the same for every engine that reads that generation. */
export function assetRunId(q: AssetQueue): string {
  return `asset_triggered__${new Date(q.openedAt).toISOString()}-${q.gen + 1}`;
}

/**
 * Creates the runs a DAG's queued asset events call for (see the file comment); returns the
 * runs this call created. Safe to call at any time and concurrently: it does nothing while
 * the DAG is paused or its condition does not hold.
 *
 * @example
 * await evaluateAssetQueue(p, 'report'); // [ { runId: 'asset_triggered__2026-01-01T00:00:00.000Z-1', ... } ]
 */
export async function evaluateAssetQueue(p: Ports, dagId: string): Promise<DagRun[]> {
  const dag = await p.store.getDag(dagId);
  if (!dag || dag.paused || !dag.spec.assetSchedule) return [];
  const uris = conditionUris(dag.spec.assetSchedule);
  const created: DagRun[] = [];
  let q = await p.store.getAssetQueue(dagId);
  for (let round = 0; round < MAX_ROUNDS && q && holds(dag, q); round++) {
    const snapshot = q;
    const refs = byUri(snapshot, uris);
    const all = Object.values(refs).flat();
    const times = all.map((r) => parseAssetEventRef(r).timestamp);
    const now = p.clock.now();
    const r = await createRun(p, dag, {
      runType: 'asset_triggered',
      runId: assetRunId(snapshot),
      logicalDate: now,
      fields: {
        assetEvents: refs,
        // Airflow's AssetTriggeredTimetable: the interval spans the consumed events.
        dataIntervalStart: times.length ? Math.min(...times) : now,
        dataIntervalEnd: times.length ? Math.max(...times) : now,
      },
    });
    // A racer created this generation's run first: consume what it recorded.
    const consumed = r.ok ? refs : (r.current?.assetEvents ?? refs);
    if (r.ok) {
      created.push(r.item);
      p.metrics.count('AssetTriggeredRuns');
    }
    const c = await p.store.consumeAssetQueue(dagId, snapshot.gen, consumed, now);
    if (c.ok) await p.store.markAssetEventsConsumed(Object.values(consumed).flat(), `${dagId}/${assetRunId(snapshot)}`);
    q = c.ok ? c.item : c.current;
  }
  return created;
}
