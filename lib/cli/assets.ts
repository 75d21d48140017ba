/**
 * `airless assets list|events|emit`: the same operations on any engine ports (a deployed
 * stack's, a running dev's, or a DAG folder's own embedded runtime), printing a table for
 * a person or one JSON line with `--json`.
 */
import { randomUUID } from 'node:crypto';
import { assetRecords, describeCondition, normalizeAssetUri, recordAssetEvent } from '../engine/index.js';
import type { AssetEventRecord, AssetRecord, DagSpec, Ports } from '../engine/index.js';
import { table } from './output.js';
import { UsageError } from './output.js';

type Out = (line: string) => void;
const iso = (ms: number) => new Date(ms).toISOString();

function refs(list: readonly { dagId: string; taskId: string }[]): string {
  return list.map((r) => `${r.dagId}.${r.taskId}`).join(', ');
}

/** An asset as `assets list --json` prints it. */
export function assetJson(r: AssetRecord, last?: AssetEventRecord) {
  return {
    uri: r.uri, name: r.name, group: r.group, id: r.id, active: r.active, extra: r.extra ?? {},
    consumers: r.consumers, producers: r.producers, inlets: r.inlets,
    watchers: (r.watchers ?? []).map((w) => ({ kind: w.kind, name: w.name })),
    lastEvent: last ? { id: last.id, timestamp: iso(last.timestamp) } : null,
  };
}

/** An event as `assets events --json` prints it. */
export function eventJson(e: AssetEventRecord) {
  return {
    id: e.id, uri: e.uri, timestamp: iso(e.timestamp), origin: e.origin, extra: e.extra,
    source: e.source ?? null, queuedFor: e.queuedFor ?? [], consumedBy: e.consumedBy ?? [],
  };
}

function printAssets(rows: ReturnType<typeof assetJson>[], json: boolean, out: Out): void {
  if (json) return out(JSON.stringify(rows));
  if (rows.length === 0) return out('no assets: declare them with asset() in a DAG\'s schedule, outlets or inlets');
  out(table(
    rows.map((r) => [r.uri, r.name === r.uri ? '' : r.name, r.group, refs(r.producers), r.consumers.join(', '), r.watchers.map((w) => w.kind).join(', '),
      r.lastEvent?.timestamp.replace('T', ' ').slice(0, 19) ?? (r.active ? '' : 'inactive')]),
    ['asset', 'name', 'group', 'produced by', 'scheduled dags', 'watchers', 'last event'],
  ));
}

/**
 * The assets a stack or a dev knows, with their last event.
 *
 * @example
 * await cmdAssetsList(ports, { json: true }, console.log);
 */
export async function cmdAssetsList(p: Ports, o: { json?: boolean; all?: boolean }, out: Out): Promise<number> {
  const records = (await p.store.listAssetRecords()).filter((r) => o.all || r.active);
  const rows = await Promise.all(records.map(async (r) => assetJson(r, (await p.store.listAssetEvents(r.uri, { limit: 1 }))[0])));
  printAssets(rows, o.json ?? false, out);
  return 0;
}

/** The assets a DAG folder declares (no state: from its manifest). */
export function cmdAssetsListLocal(dags: readonly DagSpec[], o: { json?: boolean }, out: Out): number {
  const rows = assetRecords(dags, 0, new Map()).map((r) => assetJson(r));
  printAssets(rows, o.json ?? false, out);
  if (!o.json) {
    for (const d of dags) if (d.assetSchedule) out(`${d.dagId} runs on: ${describeCondition(d.assetSchedule)}`);
  }
  return 0;
}

/**
 * Recent events of one asset, or of every asset, newest first.
 *
 * @example
 * await cmdAssetsEvents(ports, 's3://lake/raw', { limit: 20 }, console.log);
 */
export async function cmdAssetsEvents(p: Ports, uri: string | undefined, o: { json?: boolean; limit?: number }, out: Out): Promise<number> {
  const limit = o.limit ?? 25;
  const uris = uri === undefined ? (await p.store.listAssetRecords()).map((r) => r.uri) : [await knownUri(p, uri)];
  const events = (await Promise.all(uris.map((u) => p.store.listAssetEvents(u, { limit }))))
    .flat()
    .sort((a, b) => b.timestamp - a.timestamp || b.id - a.id)
    .slice(0, limit);
  if (o.json) {
    out(JSON.stringify(events.map(eventJson)));
    return 0;
  }
  if (events.length === 0) {
    out(`no events${uri ? ` of ${uri}` : ''} yet`);
    return 0;
  }
  out(table(
    events.map((e) => [iso(e.timestamp).replace('T', ' ').slice(0, 19), e.uri, e.origin, e.source ? `${e.source.dagId}.${e.source.taskId}` : '',
      JSON.stringify(e.extra).slice(0, 60), (e.consumedBy ?? []).join(', ')]),
    ['time', 'asset', 'origin', 'source task', 'extra', 'consumed by runs'],
  ));
  return 0;
}

async function knownUri(p: Ports, given: string): Promise<string> {
  let uri: string;
  try {
    uri = normalizeAssetUri(given);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (!(await p.store.getAssetRecord(uri))) {
    const known = (await p.store.listAssetRecords()).map((r) => r.uri);
    throw new UsageError(`unknown asset ${uri} (known: ${known.length ? known.join(', ') : 'none'})`);
  }
  return uri;
}

/**
 * Records an asset event, as Airflow's `POST /assets/events` does; the DAGs it satisfies get
 * their runs from the engine that handles the evaluate messages (the stack's worker, the dev).
 *
 * @example
 * await cmdAssetsEmit(ports, 's3://lake/raw', { rows: 3 }, {}, console.log);
 */
export async function cmdAssetsEmit(p: Ports, given: string, extra: Record<string, unknown>, o: { json?: boolean }, out: Out): Promise<number> {
  const uri = await knownUri(p, given);
  const r = await recordAssetEvent(p, { uri, key: `cli:${randomUUID()}`, extra, origin: 'cli' });
  if (!r) throw new UsageError(`unknown asset ${uri}`);
  if (o.json) out(JSON.stringify({ event: eventJson(r.event), queuedFor: r.queuedFor, triggering: r.evaluating }));
  else out(`event ${r.event.id} of ${uri} recorded; queued for ${r.queuedFor.length ? r.queuedFor.join(', ') : 'no DAG'}${r.evaluating.length ? `; runs due for ${r.evaluating.join(', ')}` : ''}`);
  return 0;
}
