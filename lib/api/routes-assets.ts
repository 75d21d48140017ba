/**
 * Airflow 3's asset endpoints (REST API v2, `Asset` tag) in the spec's shapes: list and get
 * assets, list and create asset events, and the queued events of an asset or a DAG (get and
 * delete). Checked against the spec's JSON schemas in test/api/assets.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { assetId, extraProblem, recordAssetEvent } from '../engine/index.js';
import type { AssetEventRecord, AssetQueue, AssetRecord, Ports } from '../engine/index.js';
import { needDag, type ApiBackend } from './backend.js';
import { HttpError } from './http.js';
import { intQuery, onlyFields } from './params.js';
import type { Route, RouteCtx } from './router.js';
import { likeMatcher } from './params.js';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
/** Events read per asset for one listing (filters and offsets apply within them). */
const EVENTS_PER_ASSET = 1000;

/** A watcher's `trigger_id` (Airflow's triggers are rows with integer ids; a watcher here is its declaration). */
const watcherTriggerId = (uri: string, name: string) => assetId(`${uri}\n${name}`);

function assetJson(r: AssetRecord, last: AssetEventRecord | undefined) {
  const at = { created_at: iso(r.createdAt), updated_at: iso(r.updatedAt) };
  return {
    id: r.id, name: r.name, uri: r.uri, group: r.group, extra: r.extra ?? {}, ...at,
    scheduled_dags: r.consumers.map((dag_id) => ({ dag_id, ...at })),
    producing_tasks: r.producers.map((t) => ({ dag_id: t.dagId, task_id: t.taskId, ...at })),
    consuming_tasks: r.inlets.map((t) => ({ dag_id: t.dagId, task_id: t.taskId, ...at })),
    aliases: [],
    watchers: (r.watchers ?? []).map((w) => ({ name: w.name, trigger_id: watcherTriggerId(r.uri, w.name), created_date: iso(r.createdAt) })),
    last_asset_event: last ? { id: last.id, timestamp: iso(last.timestamp) } : null,
  };
}

async function eventJson(p: Ports, e: AssetEventRecord, rec: AssetRecord | undefined) {
  const runs = await Promise.all((e.consumedBy ?? []).map((k) => {
    const slash = k.indexOf('/');
    return p.store.getRun(k.slice(0, slash), k.slice(slash + 1));
  }));
  return {
    id: e.id, asset_id: assetId(e.uri), uri: e.uri, name: rec?.name ?? e.uri, group: rec?.group ?? null, extra: e.extra,
    source_task_id: e.source?.taskId ?? null, source_dag_id: e.source?.dagId ?? null, source_run_id: e.source?.runId ?? null,
    source_map_index: e.source?.mapIndex ?? -1, partition_key: null, timestamp: iso(e.timestamp),
    created_dagruns: runs.filter((r) => r !== undefined).map((r) => ({
      run_id: r.runId, dag_id: r.dagId, logical_date: iso(r.logicalDate), start_date: iso(r.startedAt ?? r.queuedAt), end_date: iso(r.endedAt),
      state: r.state, data_interval_start: iso(r.dataIntervalStart), data_interval_end: iso(r.dataIntervalEnd), partition_key: null,
    })),
  };
}

async function assetById(b: ApiBackend, raw: string): Promise<AssetRecord> {
  const id = Number(raw);
  if (!Number.isSafeInteger(id)) throw new HttpError(422, `asset_id: must be an integer, got ${JSON.stringify(raw)}`);
  const rec = (await b.ports.store.listAssetRecords()).find((r) => r.id === id);
  if (!rec) throw new HttpError(404, `asset_id: the Asset with ID: \`${id}\` was not found`);
  return rec;
}

/** `order_by` as Airflow takes it: repeated or comma-separated fields, `-` for descending. */
function sorter<T>(url: URL, dflt: string, fields: Record<string, (x: T) => string | number>): (a: T, b: T) => number {
  const given = url.searchParams.getAll('order_by').flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  const keys = (given.length ? given : [dflt]).map((k) => {
    const desc = k.startsWith('-');
    const f = fields[desc ? k.slice(1) : k];
    if (!f) throw new HttpError(400, `order_by: Ordering with '${k}' is disallowed or the attribute does not exist on the model (use ${Object.keys(fields).join(', ')})`);
    return { f, desc };
  });
  return (a, b) => {
    for (const { f, desc } of keys) {
      const x = f(a);
      const y = f(b);
      if (x !== y) return (x < y ? -1 : 1) * (desc ? -1 : 1);
    }
    return 0;
  };
}

function dateQuery(url: URL, name: string): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  const ms = Date.parse(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(ms)) throw new HttpError(422, `${name}: must be an ISO-8601 date-time, got ${JSON.stringify(raw)}`);
  return ms;
}

/** SQL LIKE with Airflow's `|` for OR. */
function matches(pattern: string | null, value: string): boolean {
  return pattern === null || pattern === '' || likeMatcher(pattern)(value);
}

function page<T>(url: URL, items: T[], dflt = 50): T[] {
  const limit = intQuery(url, 'limit', dflt, 0, 10_000);
  const offset = intQuery(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  return items.slice(offset, offset + limit);
}

async function listAssets({ b, url }: RouteCtx) {
  const onlyActive = url.searchParams.get('only_active') !== 'false';
  const dagIds = url.searchParams.getAll('dag_ids').flatMap((v) => v.split(',')).filter(Boolean);
  const records = (await b.ports.store.listAssetRecords()).filter((r) =>
    (!onlyActive || r.active) && matches(url.searchParams.get('name_pattern'), r.name) && matches(url.searchParams.get('uri_pattern'), r.uri) &&
    (dagIds.length === 0 || dagIds.some((d) => r.consumers.includes(d) || r.producers.some((t) => t.dagId === d))));
  records.sort(sorter<AssetRecord>(url, 'id', { id: (r) => r.id, name: (r) => r.name, uri: (r) => r.uri, created_at: (r) => r.createdAt, updated_at: (r) => r.updatedAt }));
  const shown = page(url, records);
  const assets = await Promise.all(shown.map(async (r) => assetJson(r, (await b.ports.store.listAssetEvents(r.uri, { limit: 1 }))[0])));
  return { assets, total_entries: records.length };
}

async function listEvents({ b, url }: RouteCtx) {
  const q = (n: string) => url.searchParams.get(n);
  const idText = q('asset_id');
  const records = idText ? [await assetById(b, idText)] : await b.ports.store.listAssetRecords();
  const gte = dateQuery(url, 'timestamp_gte');
  const gt = dateQuery(url, 'timestamp_gt');
  const lte = dateQuery(url, 'timestamp_lte');
  const lt = dateQuery(url, 'timestamp_lt');
  const after = Math.max(gte ?? 0, gt === undefined ? 0 : gt + 1);
  const before = Math.min(lt ?? Infinity, lte === undefined ? Infinity : lte + 1);
  const mapIndex = q('source_map_index') === null ? undefined : intQuery(url, 'source_map_index', -1, -1, Number.MAX_SAFE_INTEGER);
  const byUri = new Map(records.map((r) => [r.uri, r]));
  const events = (await Promise.all(records.map((r) => b.ports.store.listAssetEvents(r.uri, { limit: EVENTS_PER_ASSET, after, ...(Number.isFinite(before) ? { before } : {}) }))))
    .flat()
    .filter((e) => (q('source_dag_id') === null || e.source?.dagId === q('source_dag_id')) && (q('source_task_id') === null || e.source?.taskId === q('source_task_id')) &&
      (q('source_run_id') === null || e.source?.runId === q('source_run_id')) && (mapIndex === undefined || (e.source?.mapIndex ?? -1) === mapIndex) &&
      matches(q('name_pattern'), byUri.get(e.uri)?.name ?? e.uri));
  events.sort(sorter<AssetEventRecord>(url, 'timestamp', {
    timestamp: (e) => e.timestamp, source_dag_id: (e) => e.source?.dagId ?? '', source_task_id: (e) => e.source?.taskId ?? '',
    source_run_id: (e) => e.source?.runId ?? '', source_map_index: (e) => e.source?.mapIndex ?? -1, id: (e) => e.id,
  }));
  const shown = page(url, events);
  return { asset_events: await Promise.all(shown.map((e) => eventJson(b.ports, e, byUri.get(e.uri)))), total_entries: events.length };
}

async function createEvent({ b, body }: RouteCtx) {
  onlyFields(body, ['asset_id', 'extra', 'partition_key']);
  if (typeof body.asset_id !== 'number') throw new HttpError(422, `asset_id: must be an integer, got ${JSON.stringify(body.asset_id)}`);
  if (body.partition_key !== undefined && body.partition_key !== null) throw new HttpError(422, 'partition_key: asset partitions are not supported by Airless');
  const extra = body.extra === undefined ? {} : body.extra;
  const problem = extraProblem(extra);
  if (problem) throw new HttpError(422, `extra: ${problem}`);
  const rec = await assetById(b, String(body.asset_id));
  const r = await recordAssetEvent(b.ports, { uri: rec.uri, key: `api:${randomUUID()}`, extra: extra as Record<string, unknown>, origin: 'api' });
  if (!r) throw new HttpError(404, `asset_id: the Asset with ID: \`${body.asset_id}\` was not found`);
  return eventJson(b.ports, r.event, rec);
}

/** A DAG's queued events per asset: `created_at` is the earliest queued event's time. */
function queuedOf(q: AssetQueue | undefined, before: number | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const [uri, refs] of Object.entries(q?.queued ?? {})) {
    const times = refs.map((r) => Number(r.slice(0, r.indexOf('.')))).filter((t) => before === undefined || t < before);
    if (times.length) out.set(uri, Math.min(...times));
  }
  for (const uri of q?.overflow ?? []) if (!out.has(uri) && before === undefined) out.set(uri, q!.openedAt);
  return out;
}

function queuedJson(dagId: string, uri: string, at: number) {
  return { dag_id: dagId, asset_id: assetId(uri), created_at: iso(at), dag_display_name: dagId };
}

function beforeQuery(url: URL): number | undefined {
  return dateQuery(url, 'before');
}

function noBefore(url: URL): void {
  if (url.searchParams.get('before')) throw new HttpError(422, 'before: Airless deletes all the queued events of a DAG or asset, not those before a date');
}

async function deleted(res: RouteCtx['res'], f: () => Promise<unknown>): Promise<undefined> {
  await f();
  res.writeHead(204);
  res.end();
  return undefined;
}

/**
 * The asset routes. Paths as in Airflow's OpenAPI spec; `{name}` segments are URL-decoded.
 *
 * @example
 * new Router([...v2Routes(), ...assetRoutes()]);
 */
export function assetRoutes(): Route[] {
  return [
    { method: 'GET', path: '/api/v2/assets', handle: listAssets },
    { method: 'GET', path: '/api/v2/assets/events', handle: listEvents },
    { method: 'POST', path: '/api/v2/assets/events', handle: createEvent },
    {
      method: 'GET', path: '/api/v2/assets/{asset_id}',
      handle: async ({ b, p }) => {
        const rec = await assetById(b, p.asset_id!);
        return assetJson(rec, (await b.ports.store.listAssetEvents(rec.uri, { limit: 1 }))[0]);
      },
    },
    {
      method: 'GET', path: '/api/v2/assets/{asset_id}/queuedEvents',
      handle: async ({ b, p, url }) => {
        const rec = await assetById(b, p.asset_id!);
        const before = beforeQuery(url);
        const out = [];
        for (const dagId of rec.consumers) {
          const at = queuedOf(await b.ports.store.getAssetQueue(dagId), before).get(rec.uri);
          if (at !== undefined) out.push(queuedJson(dagId, rec.uri, at));
        }
        return { queued_events: out, total_entries: out.length };
      },
    },
    {
      method: 'DELETE', path: '/api/v2/assets/{asset_id}/queuedEvents',
      handle: async ({ b, p, url, res }) => {
        noBefore(url);
        const rec = await assetById(b, p.asset_id!);
        return deleted(res, () => Promise.all(rec.consumers.map((d) => b.ports.store.clearAssetQueue(d, rec.uri))));
      },
    },
    {
      method: 'GET', path: '/api/v2/dags/{dag_id}/assets/queuedEvents',
      handle: async ({ b, p, url }) => {
        await needDag(b, p.dag_id!);
        const queued = queuedOf(await b.ports.store.getAssetQueue(p.dag_id!), beforeQuery(url));
        const out = [...queued].map(([uri, at]) => queuedJson(p.dag_id!, uri, at));
        return { queued_events: out, total_entries: out.length };
      },
    },
    {
      method: 'DELETE', path: '/api/v2/dags/{dag_id}/assets/queuedEvents',
      handle: async ({ b, p, url, res }) => {
        noBefore(url);
        await needDag(b, p.dag_id!);
        return deleted(res, () => b.ports.store.clearAssetQueue(p.dag_id!));
      },
    },
    {
      method: 'GET', path: '/api/v2/dags/{dag_id}/assets/{asset_id}/queuedEvents',
      handle: async ({ b, p, url }) => {
        await needDag(b, p.dag_id!);
        const rec = await assetById(b, p.asset_id!);
        const at = queuedOf(await b.ports.store.getAssetQueue(p.dag_id!), beforeQuery(url)).get(rec.uri);
        if (at === undefined) throw new HttpError(404, `Queue event with dag_id: \`${p.dag_id}\` and asset uri: \`${rec.uri}\` was not found`);
        return queuedJson(p.dag_id!, rec.uri, at);
      },
    },
    {
      method: 'DELETE', path: '/api/v2/dags/{dag_id}/assets/{asset_id}/queuedEvents',
      handle: async ({ b, p, url, res }) => {
        noBefore(url);
        await needDag(b, p.dag_id!);
        const rec = await assetById(b, p.asset_id!);
        return deleted(res, () => b.ports.store.clearAssetQueue(p.dag_id!, rec.uri));
      },
    },
  ];
}
