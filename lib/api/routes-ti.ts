/**
 * Task instance endpoints of the v2 API: per-try logs, XCom entries and tries.
 */
import { needRun, needTask, type ApiBackend } from './backend.js';
import { MARK_STATES, markTask, type MarkState } from './mark.js';
import { HttpError } from './http.js';
import { intQuery, onlyFields, optBool } from './params.js';
import type { Route, RouteCtx } from './router.js';
import { taskInstanceJson } from './shapes.js';
import { displayValue } from '../adapters/xcom-display.js';
import { baseTaskId, instanceId, instanceValue, isInstanceId } from '../engine/index.js';

const TI = '/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}';

/** The task instance a request names: the task, or with `map_index` (query or path) one of its mapped instances. */
async function loadTi(b: ApiBackend, p: Record<string, string>, url?: URL) {
  const { dag, run } = await needRun(b, p.dag_id, p.dag_run_id);
  const t = needTask(dag.spec, p.task_id);
  const mapIndex = p.map_index !== undefined ? pathIndex(p.map_index) : url ? intQuery(url, 'map_index', -1, -1, 1_000_000) : -1;
  const id = mapIndex >= 0 ? instanceId(p.task_id, mapIndex) : p.task_id;
  const ti = await b.ports.store.getTask({ dagId: p.dag_id, runId: p.dag_run_id, taskId: id });
  if (mapIndex >= 0 && !ti) throw new HttpError(404, `map_index: task ${p.task_id} has no mapped instance ${mapIndex}`);
  return { dag, run, t, ti, id, mapIndex };
}

function pathIndex(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < -1) throw new HttpError(422, `map_index: must be a whole number from -1, got ${JSON.stringify(v)}`);
  return n;
}

async function logs({ b, p, url, req, res }: RouteCtx): Promise<unknown> {
  const { ti, mapIndex } = await loadTi(b, p, url);
  const tryNumber = Number(p.try_number);
  if (!Number.isInteger(tryNumber) || tryNumber < 0) throw new HttpError(422, `try_number: must be a whole number, got ${JSON.stringify(p.try_number)}`);
  if (!ti || tryNumber > ti.tryNumber || tryNumber === 0) throw new HttpError(404, `try_number: task ${p.task_id} has no try ${tryNumber} (tries so far: ${ti?.tryNumber ?? 0})`);
  const entries = await b.logs.read({ dagId: p.dag_id, runId: p.dag_run_id, taskId: p.task_id, tryNumber, ...(mapIndex >= 0 ? { mapIndex } : {}) });
  if (/text\/plain/.test(req.headers.accept ?? '') && !/application\/json/.test(req.headers.accept ?? '')) {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    res.end(entries.map((e) => `[${e.timestamp}] {${e.level}} ${e.event}`).join('\n'));
    return undefined;
  }
  return { content: entries, continuation_token: null };
}

async function xcomEntries({ b, p, url }: RouteCtx): Promise<unknown> {
  const { run, t, ti, id, mapIndex } = await loadTi(b, p, url);
  const asked = url.searchParams.get('xcom_key');
  // Without a key: the return value and each key of it that tasks read on their own (typed TaskFlow's multiple_outputs).
  const keys = asked !== null ? [asked] : ['return_value', ...(t.outputKeys ?? [])];
  const entries = [];
  for (const key of keys) {
    // A mapped instance keeps a small return value on its own item (instanceValue), a larger one in XCom.
    const value = !ti ? undefined : mapIndex >= 0 && key === 'return_value' ? await instanceValue(b.ports, ti) : await b.ports.store.getXcom({ dagId: p.dag_id, runId: p.dag_run_id, taskId: id, key });
    if (value === undefined) continue;
    entries.push({
      key, timestamp: new Date(ti?.endedAt ?? run.logicalDate).toISOString(), logical_date: new Date(run.logicalDate).toISOString(),
      map_index: mapIndex, task_id: p.task_id, dag_id: p.dag_id, run_id: p.dag_run_id, dag_display_name: p.dag_id, task_display_name: p.task_id,
      // Any value the codec keeps (BigInt, Map, cycles) as JSON data: JSON.stringify threw on them.
      value: displayValue(value),
    });
  }
  return { xcom_entries: entries, total_entries: entries.length };
}

async function xcomEntry(ctx: RouteCtx): Promise<unknown> {
  ctx.url.searchParams.set('xcom_key', ctx.p.xcom_key);
  const r = (await xcomEntries(ctx)) as { xcom_entries: unknown[] };
  if (!r.xcom_entries.length) throw new HttpError(404, `xcom_key: no XCom ${JSON.stringify(ctx.p.xcom_key)} for task ${ctx.p.task_id}`);
  return r.xcom_entries[0];
}

/**
 * Tries of a task instance (Airflow's task instance history). Airless keeps the current
 * try's record only, so earlier tries carry their number and the state implied (`up_for_retry` for a
 * retried try, null before a clear), without their own dates; their logs are kept in full.
 */
async function tries({ b, p, url }: RouteCtx): Promise<unknown> {
  const { run, t, ti } = await loadTi(b, p, url);
  const out = [];
  const n = ti?.tryNumber ?? 0;
  for (let i = 1; i <= n; i++) {
    const cur = taskInstanceJson(run, t, t.taskId, ti);
    out.push(i === n ? cur : { ...cur, try_number: i, state: i > (ti?.tryBase ?? 0) ? 'up_for_retry' : null, start_date: null, end_date: null, duration: null });
  }
  return { task_instances: out, total_entries: out.length };
}

/** Airflow's PATCH of a task instance: `new_state` (success, failed, skipped); `note` is accepted and not kept. */
async function patchTaskInstance({ b, p, body, url }: RouteCtx): Promise<unknown> {
  onlyFields(body, ['new_state', 'note', 'include_upstream', 'include_downstream', 'include_future', 'include_past']);
  for (const f of ['include_upstream', 'include_downstream', 'include_future', 'include_past']) {
    if (optBool(body, f, false)) throw new HttpError(422, `${f}: not supported yet (mark each task instance)`);
  }
  if (!MARK_STATES.includes(body.new_state as MarkState)) throw new HttpError(422, `new_state: must be one of ${MARK_STATES.join(', ')}, got ${JSON.stringify(body.new_state)}`);
  const { run, t, id } = await loadTi(b, p, url);
  const ti = await markTask(b.ports, p.dag_id, p.dag_run_id, id, body.new_state as MarkState);
  return { task_instances: [taskInstanceJson(run, t, t.taskId, ti)], total_entries: 1 };
}

/** Airflow's listMapped: the mapped instances of a task, in map-index order. */
async function listMapped({ b, p }: RouteCtx): Promise<unknown> {
  const { run, t } = await loadTi(b, p);
  const all = await b.ports.store.listTasks(p.dag_id, p.dag_run_id);
  const mapped = all.filter((ti) => isInstanceId(ti.taskId) && baseTaskId(ti.taskId) === t.taskId).sort((a, c) => (a.mapIndex ?? 0) - (c.mapIndex ?? 0));
  const out = mapped.map((ti) => taskInstanceJson(run, t, t.taskId, ti));
  return { task_instances: out, total_entries: out.length };
}

/** One task instance by `{map_index}` in the path (-1: the unmapped task). */
async function oneInstance({ b, p }: RouteCtx): Promise<unknown> {
  const { run, t, ti } = await loadTi(b, p);
  return taskInstanceJson(run, t, t.taskId, ti);
}

export function taskInstanceRoutes(): Route[] {
  return [
    { method: 'PATCH', path: TI, handle: patchTaskInstance },
    { method: 'GET', path: `${TI}/logs/{try_number}`, handle: logs },
    { method: 'GET', path: `${TI}/xcomEntries`, handle: xcomEntries },
    { method: 'GET', path: `${TI}/xcomEntries/{xcom_key}`, handle: xcomEntry },
    { method: 'GET', path: `${TI}/tries`, handle: tries },
    { method: 'GET', path: `${TI}/listMapped`, handle: listMapped },
    { method: 'GET', path: `${TI}/{map_index}`, handle: oneInstance },
  ];
}
