/**
 * The subset of Airflow 3's public REST API (v2) that Airless serves, with Airflow's paths,
 * query parameters, body fields and response shapes.
 */
import { clearTasks, setPaused, triggerRun } from '../engine/index.js';
import { downstreamClosure, upstreamClosure } from '../engine/index.js';
import type { DagRun, DagSpec, TaskInstance } from '../engine/index.js';
import { renderDeep, templateVars } from '../engine/index.js';
import { baseTaskId, isInstanceId } from '../engine/index.js';
import { runIdProblem } from '../engine/index.js';
import { engineCall, needDag, needRun, needTask, type ApiBackend } from './backend.js';
import { HttpError } from './http.js';
import { boolQuery, intQuery, likeMatcher, onlyFields, optBool, optDate, optObject, optString } from './params.js';
import { dagDetailsJson, dagJson, dagRunJson, taskInstanceJson } from './shapes.js';
import type { Route } from './router.js';

const RUN_STATES = ['queued', 'running', 'success', 'failed'];

/** Orders and pages runs as Airflow's `order_by` (`logical_date`, `-logical_date`, `start_date`, ...). */
function orderRuns(runs: DagRun[], orderBy: string): DagRun[] {
  const desc = orderBy.startsWith('-');
  const field = desc ? orderBy.slice(1) : orderBy;
  const pick: Record<string, (r: DagRun) => number | string> = {
    logical_date: (r) => r.logicalDate, run_after: (r) => r.logicalDate, start_date: (r) => r.startedAt ?? 0,
    end_date: (r) => r.endedAt ?? 0, id: (r) => r.runId, dag_run_id: (r) => r.runId, state: (r) => r.state,
  };
  // Own keys only: `__proto__` or `constructor` must not reach Object.prototype (it answered 500).
  const f = Object.hasOwn(pick, field) ? pick[field] : undefined;
  if (!f) {
    throw new HttpError(422, `order_by: Ordering with ${JSON.stringify(field)} is disallowed or the attribute does not exist on the model (use one of ${Object.keys(pick).join(', ')}, optionally with -)`, { loc: ['query', 'order_by'], input: orderBy });
  }
  return [...runs].sort((a, b) => (f(a) < f(b) ? -1 : f(a) > f(b) ? 1 : 0) * (desc ? -1 : 1));
}

/** Rendered templated arguments of a task, for a run (what Airflow shows as rendered templates). */
export function renderedFields(spec: DagSpec, run: DagRun, taskId: string): Record<string, unknown> {
  const t = spec.tasks.find((x) => x.taskId === taskId);
  const fields: Record<string, unknown> = { ...(t?.args ?? {}) };
  if (t?.sensor) fields.poke_context = t.sensor.pokeContext;
  try {
    const vars = templateVars({ ...run, taskId, params: spec.params, conf: run.conf });
    return renderDeep(fields, vars);
  } catch (err) {
    return { ...fields, render_error: (err as Error).message };
  }
}

export function taskInstancesOf(spec: DagSpec, run: DagRun, tis: TaskInstance[]) {
  const byId = new Map(tis.map((ti) => [ti.taskId, ti]));
  // A mapped task is listed as its instances, in map-index order, once it has expanded (as Airflow).
  const instances = new Map<string, TaskInstance[]>();
  for (const ti of tis) if (isInstanceId(ti.taskId)) (instances.get(baseTaskId(ti.taskId)) ?? instances.set(baseTaskId(ti.taskId), []).get(baseTaskId(ti.taskId))!).push(ti);
  return spec.tasks.flatMap((t) => {
    const mapped = instances.get(t.taskId);
    if (!mapped) return [taskInstanceJson(run, t, t.taskId, byId.get(t.taskId))];
    return mapped.sort((a, b) => (a.mapIndex ?? 0) - (b.mapIndex ?? 0)).map((ti) => taskInstanceJson(run, t, t.taskId, ti));
  });
}

const CLEAR_FIELDS = ['dry_run', 'start_date', 'end_date', 'only_failed', 'only_running', 'reset_dag_runs', 'task_ids',
  'dag_run_id', 'include_upstream', 'include_downstream', 'include_future', 'include_past', 'run_on_latest_version'];

function taskIdsOf(body: Record<string, unknown>, spec: DagSpec): string[] | undefined {
  const v = body.task_ids;
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw new HttpError(422, 'task_ids: must be a list of task ids (or [task_id, map_index] pairs)');
  return v.map((x, i) => {
    const id = Array.isArray(x) && x.length === 2 && typeof x[0] === 'string' && Number.isInteger(x[1]) ? x[0] : x;
    if (typeof id !== 'string') throw new HttpError(422, `task_ids[${i}]: must be a task id or a [task_id, map_index] pair`);
    if (!spec.tasks.some((t) => t.taskId === id)) throw new HttpError(404, `task_ids[${i}]: task ${JSON.stringify(id)} not found in DAG ${JSON.stringify(spec.dagId)}`);
    return id;
  });
}

async function clearTaskInstances(b: ApiBackend, dagId: string, body: Record<string, unknown>) {
  onlyFields(body, CLEAR_FIELDS);
  const dag = await needDag(b, dagId);
  const spec = dag.spec;
  const dryRun = optBool(body, 'dry_run', true);
  const onlyFailed = optBool(body, 'only_failed', true);
  const onlyRunning = optBool(body, 'only_running', false);
  const withDown = optBool(body, 'include_downstream', false);
  const withUp = optBool(body, 'include_upstream', false);
  const start = optDate(body, 'start_date');
  const end = optDate(body, 'end_date');
  const runId = optString(body, 'dag_run_id');
  let ids = new Set(taskIdsOf(body, spec) ?? spec.tasks.map((t) => t.taskId));
  if (withDown) ids = downstreamClosure(spec, [...ids]);
  if (withUp) ids = new Set([...ids, ...upstreamClosure(spec, ids)]);
  const runs = runId
    ? [(await needRun(b, dagId, runId)).run]
    : (await b.ports.store.listRuns(dagId, { limit: 1000 })).filter((r) => (start === undefined || r.logicalDate >= start) && (end === undefined || r.logicalDate <= end));
  const out: ReturnType<typeof taskInstanceJson>[] = [];
  for (const run of runs) {
    const tis = (await b.ports.store.listTasks(dagId, run.runId)).filter((ti) => ids.has(ti.taskId) &&
      (!onlyFailed || ti.state === 'failed' || ti.state === 'upstream_failed') && (!onlyRunning || ti.state === 'running'));
    const chosen = tis.filter((ti) => ['success', 'failed', 'skipped', 'upstream_failed', 'removed'].includes(ti.state));
    if (!dryRun && chosen.length) await engineCall(() => clearTasks(b.ports, dagId, run.runId, chosen.map((t) => t.taskId), { downstream: false }));
    for (const ti of chosen) out.push(taskInstanceJson(run, spec.tasks.find((t) => t.taskId === ti.taskId), ti.taskId, ti));
  }
  return { task_instances: out, total_entries: out.length };
}

async function triggerDagRun(b: ApiBackend, dagId: string, body: Record<string, unknown>) {
  onlyFields(body, ['dag_run_id', 'logical_date', 'data_interval_start', 'data_interval_end', 'run_after', 'conf', 'note']);
  await needDag(b, dagId);
  const conf = optObject(body, 'conf');
  const logicalDate = optDate(body, 'logical_date');
  const runId = optString(body, 'dag_run_id');
  // The engine's grammar (Airflow's allowed_run_id_pattern), checked before anything is
  // stored; 400 as Airflow answers the ValueError of create_dagrun.
  const runIdError = runId === undefined ? undefined : runIdProblem(runId, 'manual');
  if (runIdError) throw new HttpError(400, `dag_run_id: ${runIdError}`);
  if (runId !== undefined && (await b.ports.store.getRun(dagId, runId))) throw new HttpError(409, `dag_run_id: run ${JSON.stringify(runId)} of DAG ${JSON.stringify(dagId)} exists already`);
  const run = await engineCall(() => triggerRun(b.ports, dagId, { conf, logicalDate, runId, runType: 'manual' }));
  return dagRunJson(run);
}

/**
 * The v2 routes. Paths as in Airflow's OpenAPI spec; `{name}` segments are URL-decoded.
 *
 * @example
 * const routes = v2Routes(); // mounted by createApiServer
 */
export function v2Routes(): Route[] {
  return [
    { method: 'GET', path: '/api/v2/version', handle: async () => ({ version: '3.0.0', git_version: 'airless' }) },
    { method: 'GET', path: '/api/v2/monitor/health', handle: async () => ({ metadatabase: { status: 'healthy' }, scheduler: { status: 'healthy' } }) },
    {
      method: 'GET', path: '/api/v2/dags',
      handle: async ({ b, url }) => {
        const limit = intQuery(url, 'limit', 100, 0, 10_000);
        const offset = intQuery(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
        const paused = boolQuery(url, 'paused');
        const pattern = url.searchParams.get('dag_id_pattern');
        const tags = url.searchParams.getAll('tags');
        let dags = (await b.ports.store.listDags()).sort((x, y) => x.dagId.localeCompare(y.dagId));
        if (paused !== undefined) dags = dags.filter((d) => d.paused === paused);
        if (pattern) {
          const matches = likeMatcher(pattern);
          dags = dags.filter((d) => matches(d.dagId));
        }
        if (tags.length) dags = dags.filter((d) => tags.some((t) => d.spec.tags.includes(t)));
        return { dags: dags.slice(offset, offset + limit).map(dagJson), total_entries: dags.length };
      },
    },
    { method: 'GET', path: '/api/v2/dags/{dag_id}', handle: async ({ b, p }) => dagJson(await needDag(b, p.dag_id)) },
    { method: 'GET', path: '/api/v2/dags/{dag_id}/details', handle: async ({ b, p }) => dagDetailsJson(await needDag(b, p.dag_id)) },
    {
      method: 'PATCH', path: '/api/v2/dags/{dag_id}',
      handle: async ({ b, p, url, body }) => {
        const mask = url.searchParams.get('update_mask');
        if (mask !== null && mask.split(',').some((f) => f.trim() !== 'is_paused')) throw new HttpError(400, `update_mask: only is_paused can be updated, got ${JSON.stringify(mask)}`);
        onlyFields(body, ['is_paused']);
        if (typeof body.is_paused !== 'boolean') throw new HttpError(422, `is_paused: must be true or false, got ${JSON.stringify(body.is_paused)}`);
        await needDag(b, p.dag_id);
        await engineCall(() => setPaused(b.ports, p.dag_id, body.is_paused as boolean));
        return dagJson(await needDag(b, p.dag_id));
      },
    },
    {
      method: 'GET', path: '/api/v2/dags/{dag_id}/dagRuns',
      handle: async ({ b, p, url }) => {
        await needDag(b, p.dag_id);
        const limit = intQuery(url, 'limit', 50, 0, 10_000);
        const offset = intQuery(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
        const states = url.searchParams.getAll('state');
        for (const s of states) if (!RUN_STATES.includes(s)) throw new HttpError(422, `state: unknown run state ${JSON.stringify(s)} (use ${RUN_STATES.join(', ')})`);
        const orderBy = url.searchParams.get('order_by') ?? 'id';
        const runs = await b.ports.store.listRuns(p.dag_id, { states: states.length ? (states as DagRun['state'][]) : undefined });
        const sorted = orderRuns(runs, orderBy === 'id' ? 'logical_date' : orderBy);
        return { dag_runs: sorted.slice(offset, offset + limit).map(dagRunJson), total_entries: runs.length };
      },
    },
    { method: 'POST', path: '/api/v2/dags/{dag_id}/dagRuns', handle: async ({ b, p, body }) => triggerDagRun(b, p.dag_id, body) },
    { method: 'GET', path: '/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}', handle: async ({ b, p }) => dagRunJson((await needRun(b, p.dag_id, p.dag_run_id)).run) },
    {
      method: 'GET', path: '/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances',
      handle: async ({ b, p }) => {
        const { dag, run } = await needRun(b, p.dag_id, p.dag_run_id);
        const tis = taskInstancesOf(dag.spec, run, await b.ports.store.listTasks(p.dag_id, p.dag_run_id));
        return { task_instances: tis, total_entries: tis.length };
      },
    },
    {
      method: 'GET', path: '/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}',
      handle: async ({ b, p }) => {
        const { dag, run } = await needRun(b, p.dag_id, p.dag_run_id);
        const t = needTask(dag.spec, p.task_id);
        const ti = await b.ports.store.getTask({ dagId: p.dag_id, runId: p.dag_run_id, taskId: p.task_id });
        return taskInstanceJson(run, t, t.taskId, ti, renderedFields(dag.spec, run, t.taskId));
      },
    },
    { method: 'POST', path: '/api/v2/dags/{dag_id}/clearTaskInstances', handle: async ({ b, p, body }) => clearTaskInstances(b, p.dag_id, body) },
  ];
}
