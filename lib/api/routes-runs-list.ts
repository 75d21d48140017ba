/**
 * Airflow's DAG run listing, `GET /dags/{dag_id}/dagRuns` (`~` for every DAG) and its batch
 * form `POST /dags/~/dagRuns/list`: state, run type, id patterns, date and duration ranges,
 * `order_by`, `limit`/`offset`.
 */
import type { DagRun, DagSpec } from '../engine/index.js';
import { needDag, type ApiBackend } from './backend.js';
import { invalid } from './http.js';
import { enumQuery, intQuery, likeMatcher, onlyFields, page, rangeQuery, sorter } from './params.js';
import type { Route, RouteCtx } from './router.js';
import { dagRunJson } from './shapes.js';

const RUN_STATES = ['queued', 'running', 'success', 'failed'];
const RUN_TYPES = ['backfill', 'scheduled', 'manual', 'asset_triggered', 'asset_materialization', 'operator_triggered'];
const runType = (r: DagRun) => r.runType;
const duration = (r: DagRun) => (r.startedAt === undefined || r.endedAt === undefined ? null : (r.endedAt - r.startedAt) / 1000);

/** The runs of one DAG or of every DAG (`~`), and the DAGs' specs by id (to name them). */
async function runsOf(b: ApiBackend, dagId: string, dagIds?: string[]): Promise<{ runs: DagRun[]; specs: Map<string, DagSpec> }> {
  const dags = dagId === '~' ? await b.ports.store.listDags() : [await needDag(b, dagId)];
  const wanted = dagIds ? dags.filter((d) => dagIds.includes(d.dagId)) : dags;
  const runs = (await Promise.all(wanted.map((d) => b.ports.store.listRuns(d.dagId, {})))).flat();
  return { runs, specs: new Map(wanted.map((d) => [d.dagId, d.spec])) };
}

async function list({ b, p, url }: RouteCtx, dagIds?: string[]): Promise<unknown> {
  // Every parameter is read before the store is, so bad input is a 422 whatever exists.
  const states = enumQuery(url, 'state', RUN_STATES);
  const types = enumQuery(url, 'run_type', RUN_TYPES);
  intQuery(url, 'limit', 50, 0, 10_000);
  const ranges = [
    [rangeQuery(url, 'logical_date'), (r: DagRun) => r.logicalDate], [rangeQuery(url, 'run_after'), (r: DagRun) => r.logicalDate],
    [rangeQuery(url, 'start_date'), (r: DagRun) => r.startedAt], [rangeQuery(url, 'end_date'), (r: DagRun) => r.endedAt],
    [rangeQuery(url, 'duration', true), duration],
  ] as const;
  const dagPattern = url.searchParams.get('dag_id_pattern');
  const runPattern = url.searchParams.get('run_id_pattern');
  const dagMatch = dagPattern ? likeMatcher(dagPattern) : () => true;
  const runMatch = runPattern ? likeMatcher(runPattern) : () => true;
  const order = sorter<DagRun>(url, 'id', {
    id: (r) => r.logicalDate, dag_id: (r) => r.dagId, run_id: (r) => r.runId, dag_run_id: (r) => r.runId, state: (r) => r.state,
    logical_date: (r) => r.logicalDate, run_after: (r) => r.logicalDate, start_date: (r) => r.startedAt, end_date: (r) => r.endedAt,
    run_type: runType, duration,
  });
  const { runs: all, specs } = await runsOf(b, p.dag_id, dagIds);
  const runs = all.filter((r) => (!states.length || states.includes(r.state)) && (!types.length || types.includes(r.runType))
    && dagMatch(r.dagId) && runMatch(r.runId) && ranges.every(([inRange, pick]) => inRange(pick(r))));
  runs.sort(order);
  return { dag_runs: page(url, runs).map((r) => dagRunJson(r, specs.get(r.dagId))), total_entries: runs.length };
}

const RANGES = ['duration', 'end_date', 'logical_date', 'run_after', 'start_date'].flatMap((n) => ['gt', 'gte', 'lt', 'lte'].map((x) => `${n}_${x}`));

/** The batch form: the GET's filters in a body (`page_limit`/`page_offset`, `states`), plus `dag_ids`. */
async function batch(ctx: RouteCtx): Promise<unknown> {
  onlyFields(ctx.body, ['dag_ids', 'states', 'page_limit', 'page_offset', 'order_by', 'conf_contains', ...RANGES]);
  const url = new URL(ctx.url.pathname, ctx.url);
  let dagIds: string[] | undefined;
  for (const [k, v] of Object.entries(ctx.body)) {
    if (v === null || v === undefined) continue;
    if (k === 'dag_ids' || k === 'states') {
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw invalid(['body', k], `${k}: must be a list of strings`, v, 'list_type');
      if (k === 'dag_ids') dagIds = v as string[];
      else for (const s of v as string[]) url.searchParams.append('state', s);
    } else if (k === 'page_limit' || k === 'page_offset') {
      if (!Number.isInteger(v)) throw invalid(['body', k], `${k}: must be a whole number`, v, 'int_type');
      url.searchParams.set(k === 'page_limit' ? 'limit' : 'offset', String(v));
    } else if (k === 'conf_contains') {
      throw invalid(['body', k], 'conf_contains: not supported (the store does not search run conf)', v);
    } else url.searchParams.set(k, String(v));
  }
  return list({ ...ctx, url }, dagIds);
}

/**
 * @example
 * const routes = runListRoutes(); // registered in routes.ts, before routes-v2.ts
 */
export function runListRoutes(): Route[] {
  return [
    { method: 'GET', path: '/api/v2/dags/{dag_id}/dagRuns', handle: (ctx) => list(ctx) },
    { method: 'POST', path: '/api/v2/dags/{dag_id}/dagRuns/list', handle: batch },
  ];
}
