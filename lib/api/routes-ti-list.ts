/**
 * Airflow's task instance listing, `GET /dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances`:
 * one run, or with `~` for the DAG or the run every one, filtered by Airflow's query
 * parameters (state, task, pool, map index, try, date and duration ranges, id patterns),
 * ordered and paged. A task not reached yet is listed with state null, as Airflow lists
 * the instances its scheduler created.
 */
import { TaskState, type DagRecord, type DagRun } from '../engine/index.js';
import { needDag, needRun, type ApiBackend } from './backend.js';
import { invalid } from './http.js';
import { enumQuery, intQuery, likeMatcher, listQuery, onlyFields, page, rangeQuery, sorter } from './params.js';
import type { Route, RouteCtx } from './router.js';
import { apiTaskState, type taskInstanceJson } from './shapes.js';
import { taskInstancesOf } from './routes-v2.js';

type TiJson = ReturnType<typeof taskInstanceJson>;

/** Task states as the API names them (a batched sensor's `sensing` is `deferred`), and `no_status` for none yet. */
const STATES = [...new Set(Object.values(TaskState).map((s) => apiTaskState(s)!)), 'no_status'];

async function runsOf(b: ApiBackend, p: Record<string, string>): Promise<{ dag: DagRecord; run: DagRun }[]> {
  const dags = p.dag_id === '~' ? await b.ports.store.listDags() : [await needDag(b, p.dag_id)];
  if (p.dag_run_id !== '~') {
    if (p.dag_id !== '~') return [await needRun(b, p.dag_id, p.dag_run_id)];
    const found = await Promise.all(dags.map(async (dag) => ({ dag, run: await b.ports.store.getRun(dag.dagId, p.dag_run_id) })));
    return found.flatMap((x) => (x.run ? [{ dag: x.dag, run: x.run }] : []));
  }
  const runs = await Promise.all(dags.map(async (dag) => (await b.ports.store.listRuns(dag.dagId, {})).map((run) => ({ dag, run }))));
  return runs.flat();
}

const ms = (iso: string | null) => (iso === null ? null : Date.parse(iso));

/** Runs to list, narrowed by a batch body's `dag_ids` and `dag_run_ids`. */
interface Only { dagIds?: string[]; runIds?: string[] }

async function list({ b, p, url }: RouteCtx, only: Only = {}): Promise<unknown> {
  // Every parameter is read before the store is, so bad input is a 422 whatever exists.
  const states = enumQuery(url, 'state', STATES);
  const taskIds = listQuery(url, 'task_id');
  const pools = listQuery(url, 'pool');
  const mapIndex = listQuery(url, 'map_index').map(Number);
  const tryNumbers = listQuery(url, 'try_number').map(Number);
  intQuery(url, 'limit', 50, 0, 10_000);
  const ranges = {
    start: rangeQuery(url, 'start_date'), end: rangeQuery(url, 'end_date'), logical: rangeQuery(url, 'logical_date'),
    runAfter: rangeQuery(url, 'run_after'), duration: rangeQuery(url, 'duration', true),
  };
  const patterns = (['dag_id_pattern', 'run_id_pattern', 'task_display_name_pattern', 'pool_name_pattern'] as const)
    .map((n) => [n, url.searchParams.get(n)] as const).filter(([, v]) => v).map(([n, v]) => [n, likeMatcher(v!)] as const);
  const field = { dag_id_pattern: (t: TiJson) => t.dag_id, run_id_pattern: (t: TiJson) => t.dag_run_id, task_display_name_pattern: (t: TiJson) => t.task_display_name, pool_name_pattern: (t: TiJson) => t.pool };
  const order = sorter<TiJson>(url, 'map_index', {
    id: (t) => t.id, dag_id: (t) => t.dag_id, run_id: (t) => t.dag_run_id, task_id: (t) => t.task_id, map_index: (t) => t.map_index,
    state: (t) => t.state, start_date: (t) => t.start_date, end_date: (t) => t.end_date, duration: (t) => t.duration,
    logical_date: (t) => t.logical_date, run_after: (t) => t.run_after, try_number: (t) => t.try_number, priority_weight: (t) => t.priority_weight, pool: (t) => t.pool,
  });
  const all: TiJson[] = [];
  for (const { dag, run } of await runsOf(b, p)) {
    if ((only.dagIds && !only.dagIds.includes(run.dagId)) || (only.runIds && !only.runIds.includes(run.runId))) continue;
    all.push(...taskInstancesOf(dag.spec, run, await b.ports.store.listTasks(run.dagId, run.runId)));
  }
  const kept = all.filter((t) => (!states.length || states.includes(t.state ?? 'no_status'))
    && (!taskIds.length || taskIds.includes(t.task_id)) && (!pools.length || pools.includes(t.pool))
    && (!mapIndex.length || mapIndex.includes(t.map_index)) && (!tryNumbers.length || tryNumbers.includes(t.try_number))
    && ranges.start(ms(t.start_date)) && ranges.end(ms(t.end_date)) && ranges.logical(ms(t.logical_date)) && ranges.runAfter(ms(t.run_after))
    && ranges.duration(t.duration) && patterns.every(([n, m]) => m(field[n](t))));
  // Without order_by the order stays the listing's (runs as the store lists them, tasks in the DAG's order).
  if (url.searchParams.has('order_by')) kept.sort(order);
  return { task_instances: page(url, kept), total_entries: kept.length };
}

const BATCH_LISTS: Record<string, string> = { state: 'state', task_ids: 'task_id', pool: 'pool', queue: 'queue', executor: 'executor' };
const BATCH_FIELDS = ['dag_ids', 'dag_run_ids', 'page_limit', 'page_offset', 'order_by', ...Object.keys(BATCH_LISTS),
  ...['duration', 'end_date', 'logical_date', 'run_after', 'start_date'].flatMap((n) => ['gt', 'gte', 'lt', 'lte'].map((x) => `${n}_${x}`))];

/**
 * Airflow's batch listing (`POST …/taskInstances/list`): the body's filters as the GET's
 * query parameters (`page_limit`/`page_offset` as `limit`/`offset`), plus `dag_ids` and
 * `dag_run_ids`, which the GET takes from the path.
 */
async function batch(ctx: RouteCtx): Promise<unknown> {
  onlyFields(ctx.body, BATCH_FIELDS);
  const url = new URL(ctx.url.pathname, ctx.url);
  const only: Only = {};
  for (const [k, v] of Object.entries(ctx.body)) {
    if (v === null || v === undefined) continue;
    if (k === 'dag_ids' || k === 'dag_run_ids' || k in BATCH_LISTS) {
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' && x !== null)) throw invalid(['body', k], `${k}: must be a list of strings`, v, 'list_type');
      if (k === 'dag_ids') only.dagIds = v as string[];
      else if (k === 'dag_run_ids') only.runIds = v as string[];
      else for (const x of v as (string | null)[]) url.searchParams.append(BATCH_LISTS[k], x ?? 'no_status');
    } else if (k === 'page_limit' || k === 'page_offset') {
      if (!Number.isInteger(v)) throw invalid(['body', k], `${k}: must be a whole number`, v, 'int_type');
      url.searchParams.set(k === 'page_limit' ? 'limit' : 'offset', String(v));
    } else url.searchParams.set(k, String(v));
  }
  return list({ ...ctx, url }, only);
}

/**
 * @example
 * const routes = taskInstanceListRoutes(); // registered in routes.ts
 */
export function taskInstanceListRoutes(): Route[] {
  return [
    { method: 'GET', path: '/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances', handle: (ctx) => list(ctx) },
    { method: 'POST', path: '/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/list', handle: batch },
  ];
}
