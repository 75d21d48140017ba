/**
 * A DAG's versions and warnings. Airless versions DAGs by bundle: each run keeps the bundle
 * version it was created with (a sha256 of the bundle), and the DAG's record the current
 * one. `get_dag_versions` lists those the store knows for the DAG (every run's and the
 * current), numbered 1, 2, … in the order the bundles were built (the manifest's
 * `builtAt`; the first run's queue time when the manifest of an old version is gone or was
 * never built, as an inline bundle's).
 * `list_dag_warnings` reports Airflow's "non-existent pool": a task whose pool the store
 * does not hold (the build refuses an undeclared pool, so this shows only a store that
 * lost one).
 */
import type { DagRecord } from '../engine/index.js';
import { needDag, type ApiBackend } from './backend.js';
import { HttpError, invalid } from './http.js';
import { intQuery, page, sorter } from './params.js';
import type { Route, RouteCtx } from './router.js';
import { uuidFor } from './shapes.js';

export interface Version { bundleVersion: string; createdAt: number; number: number }

export async function versionsOf(b: ApiBackend, dag: DagRecord): Promise<Version[]> {
  const firstSeen = new Map<string, number>([[dag.bundleVersion, dag.updatedAt]]);
  for (const r of await b.ports.store.listRuns(dag.dagId, {})) {
    const at = r.queuedAt ?? r.logicalDate;
    if (!firstSeen.has(r.bundleVersion) || at < firstSeen.get(r.bundleVersion)!) firstSeen.set(r.bundleVersion, at);
  }
  const dated = await Promise.all([...firstSeen].map(async ([v, seen]) => {
    const built = await b.ports.bundles.manifest(v).then((m) => Date.parse(m.builtAt), () => NaN);
    // An inline or loaded bundle says it was built at 0 (it was not built): the first sighting then dates it.
    return { bundleVersion: v, createdAt: Number.isFinite(built) && built > 0 ? built : seen };
  }));
  dated.sort((x, y) => x.createdAt - y.createdAt || x.bundleVersion.localeCompare(y.bundleVersion));
  return dated.map((v, i) => ({ ...v, number: i + 1 }));
}

const versionJson = (dag: DagRecord) => (v: Version) => ({
  id: uuidFor('dag-version', dag.dagId, v.bundleVersion), version_number: v.number, dag_id: dag.dagId, bundle_name: 'airless',
  bundle_version: v.bundleVersion, created_at: new Date(v.createdAt).toISOString(), dag_display_name: dag.spec.displayName ?? dag.dagId, bundle_url: null,
});

async function list({ b, p, url }: RouteCtx): Promise<unknown> {
  const dags = p.dag_id === '~' ? await b.ports.store.listDags() : [await needDag(b, p.dag_id)];
  const wantNumber = url.searchParams.get('version_number');
  const n = wantNumber === null ? undefined : intQuery(url, 'version_number', 0, 0, Number.MAX_SAFE_INTEGER);
  const bundleVersion = url.searchParams.get('bundle_version');
  const bundleName = url.searchParams.get('bundle_name');
  const all = (await Promise.all(dags.map(async (d) => (await versionsOf(b, d)).map(versionJson(d))))).flat()
    .filter((v) => (n === undefined || v.version_number === n) && (bundleVersion === null || v.bundle_version === bundleVersion) && (bundleName === null || v.bundle_name === bundleName));
  all.sort(sorter<(typeof all)[number]>(url, 'id', {
    id: (v) => v.id, version_number: (v) => v.version_number, bundle_name: (v) => v.bundle_name, bundle_version: (v) => v.bundle_version, created_at: (v) => v.created_at, dag_id: (v) => v.dag_id,
  }));
  return { dag_versions: page(url, all), total_entries: all.length };
}

async function one({ b, p }: RouteCtx): Promise<unknown> {
  const n = Number(p.version_number);
  if (!/^\d+$/.test(p.version_number)) throw invalid(['path', 'version_number'], `version_number: must be a whole number, got ${JSON.stringify(p.version_number)}`, p.version_number, 'int_parsing');
  const dag = await needDag(b, p.dag_id);
  const v = (await versionsOf(b, dag)).find((x) => x.number === n);
  if (!v) throw new HttpError(404, `The DagVersion with dag_id: \`${p.dag_id}\` and version_number: \`${n}\` was not found`);
  return versionJson(dag)(v);
}

const WARNING_TYPES = ['asset conflict', 'non-existent pool', 'runtime varying value'];

async function warnings({ b, url }: RouteCtx): Promise<unknown> {
  const dagId = url.searchParams.get('dag_id');
  const type = url.searchParams.get('warning_type');
  if (type !== null && !WARNING_TYPES.includes(type)) throw invalid(['query', 'warning_type'], `warning_type: must be one of ${WARNING_TYPES.join(', ')}, got ${JSON.stringify(type)}`, type, 'enum');
  const dags = (await b.ports.store.listDags()).filter((d) => dagId === null || d.dagId === dagId);
  const out = [];
  for (const d of dags) {
    const pools = [...new Set(d.spec.tasks.flatMap((t) => (t.pool ? [t.pool] : [])))];
    const missing = (await Promise.all(pools.map(async (name) => ((await b.ports.store.getPool(name)) ? [] : [name])))).flat();
    if (missing.length && (type === null || type === 'non-existent pool')) {
      out.push({ dag_id: d.dagId, warning_type: 'non-existent pool', message: `Dag '${d.dagId}' references non-existent pools: ${JSON.stringify(missing.sort())}`, timestamp: new Date(d.updatedAt).toISOString(), dag_display_name: d.spec.displayName ?? d.dagId });
    }
  }
  out.sort(sorter<(typeof out)[number]>(url, 'dag_id', { dag_id: (w) => w.dag_id, warning_type: (w) => w.warning_type, message: (w) => w.message, timestamp: (w) => w.timestamp }));
  return { dag_warnings: page(url, out), total_entries: out.length };
}

/**
 * @example
 * const routes = dagVersionRoutes(); // registered in routes.ts
 */
export function dagVersionRoutes(): Route[] {
  return [
    { method: 'GET', path: '/api/v2/dags/{dag_id}/dagVersions', handle: list },
    { method: 'GET', path: '/api/v2/dags/{dag_id}/dagVersions/{version_number}', handle: one },
    { method: 'GET', path: '/api/v2/dagWarnings', handle: warnings },
  ];
}
