/**
 * Task instance endpoints of the v2 API: per-try logs, XCom entries and tries.
 */
import { needRun, needTask, type ApiBackend } from './backend.js';
import { MARK_STATES, markTask, type MarkState } from './mark.js';
import { HttpError, invalid } from './http.js';
import { boolQuery, intQuery, listQuery, onlyFields, optBool } from './params.js';
import type { Route, RouteCtx } from './router.js';
import { taskInstanceJson } from './shapes.js';
import { displayValue } from '../adapters/xcom-display.js';
import { baseTaskId, instanceId, instanceValue, isInstanceId, setTaskNote } from '../engine/index.js';

const TI = '/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}';

/** The task instance a request names: the task, or with `map_index` (query or path) one of its mapped instances (404 for an unknown one). */
export async function loadTi(b: ApiBackend, p: Record<string, string>, url?: URL) {
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
  // Airflow streams the log as one JSON line per entry when asked for NDJSON (its spec's other content type).
  if (/application\/x-ndjson/.test(req.headers.accept ?? '') && !/application\/json/.test(req.headers.accept ?? '')) {
    res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
    res.end(entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
    return undefined;
  }
  return { content: entries, continuation_token: null };
}

async function xcomEntries({ b, p, url }: RouteCtx): Promise<unknown> {
  const { dag, run, t, ti, id, mapIndex } = await loadTi(b, p, url);
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
      map_index: mapIndex, task_id: p.task_id, dag_id: p.dag_id, run_id: p.dag_run_id, dag_display_name: dag.spec.displayName ?? p.dag_id, task_display_name: t.displayName ?? p.task_id,
      run_after: new Date(run.logicalDate).toISOString(),
      // Any value the codec keeps (BigInt, Map, cycles) as JSON data: JSON.stringify threw on them.
      value: displayValue(value),
    });
  }
  return { xcom_entries: entries, total_entries: entries.length };
}

/** One XCom entry of a task instance (`map_index` from the query), as `get_xcom_entry` answers it; 404 when it has none. */
export async function xcomEntry(ctx: RouteCtx): Promise<unknown> {
  ctx.url.searchParams.set('xcom_key', ctx.p.xcom_key);
  const r = (await xcomEntries(ctx)) as { xcom_entries: unknown[] };
  if (!r.xcom_entries.length) throw new HttpError(404, `xcom_key: no XCom ${JSON.stringify(ctx.p.xcom_key)} for task ${ctx.p.task_id}`);
  // `stringify=true` (XComResponseString): the value as one string, JSON here where Airflow writes Python's str().
  if (boolQuery(ctx.url, 'stringify')) {
    const entry = r.xcom_entries[0] as { value: unknown };
    return { ...entry, value: JSON.stringify(entry.value) };
  }
  return r.xcom_entries[0];
}

/**
 * Tries of a task instance (Airflow's task instance history). Airless keeps the current
 * try's record only, so earlier tries carry their number and the state implied (`up_for_retry` for a
 * retried try, null before a clear), without their own dates; their logs are kept in full.
 */
async function tries({ b, p, url }: RouteCtx): Promise<unknown> {
  const { dag, run, t, ti } = await loadTi(b, p, url);
  const out = [];
  const n = ti?.tryNumber ?? 0;
  for (let i = 1; i <= n; i++) {
    const cur = taskInstanceJson(run, dag.spec, t, t.taskId, ti);
    out.push(i === n ? cur : { ...cur, try_number: i, state: i > (ti?.tryBase ?? 0) ? 'up_for_retry' : null, start_date: null, end_date: null, duration: null });
  }
  return { task_instances: out, total_entries: out.length };
}

/** One try's record (Airflow's `get_task_instance_try_details`), from the same list as `tries`. */
async function tryDetails(ctx: RouteCtx): Promise<unknown> {
  const n = Number(ctx.p.task_try_number);
  if (!Number.isInteger(n) || n < 1) throw invalid(['path', 'task_try_number'], `task_try_number: must be a whole number from 1, got ${JSON.stringify(ctx.p.task_try_number)}`, ctx.p.task_try_number, 'int_parsing');
  const all = (await tries(ctx)) as { task_instances: unknown[] };
  const one = all.task_instances[n - 1];
  if (!one) throw new HttpError(404, `task_try_number: task ${ctx.p.task_id} has no try ${n} (tries so far: ${all.task_instances.length})`);
  return one;
}

/**
 * Airflow's PATCH of a task instance (by `map_index` in the query or the path):
 * `new_state` (success, failed, skipped) marks it, `note` sets or with null removes its
 * note; at least one of them. `update_mask` limits the fields read.
 */
async function patchTaskInstance({ b, p, body, url }: RouteCtx): Promise<unknown> {
  onlyFields(body, ['new_state', 'note', 'include_upstream', 'include_downstream', 'include_future', 'include_past']);
  for (const f of ['include_upstream', 'include_downstream', 'include_future', 'include_past']) {
    if (optBool(body, f, false)) throw new HttpError(422, `${f}: not supported yet (mark each task instance)`);
  }
  const mask = listQuery(url, 'update_mask');
  for (const f of mask) if (f !== 'new_state' && f !== 'note') throw new HttpError(400, `update_mask: Invalid field \`${f}\` in update mask (use new_state, note)`);
  const wantNote = mask.length ? mask.includes('note') : 'note' in body;
  const wantState = mask.length ? mask.includes('new_state') : 'new_state' in body || !wantNote;
  if (wantState && !MARK_STATES.includes(body.new_state as MarkState)) throw new HttpError(422, `new_state: must be one of ${MARK_STATES.join(', ')}, got ${JSON.stringify(body.new_state)}`);
  const note = body.note;
  if (wantNote && note !== null && (typeof note !== 'string' || note.length > 1000)) throw invalid(['body', 'note'], 'note: must be a string of at most 1000 characters', note, 'string_type');
  const { dag, run, t, id } = await loadTi(b, p, url);
  let ti = wantState ? await markTask(b.ports, p.dag_id, p.dag_run_id, id, body.new_state as MarkState) : undefined;
  if (wantNote) {
    ti = await setTaskNote(b.ports, { dagId: p.dag_id, runId: p.dag_run_id, taskId: id }, (note as string | null) ?? null);
    if (!ti) throw new HttpError(409, `task_id: task ${JSON.stringify(p.task_id)} has not been reached in this run; it has no note to set`);
  }
  return { task_instances: [taskInstanceJson(run, dag.spec, t, t.taskId, ti)], total_entries: 1 };
}

/** Airflow's listMapped: the mapped instances of a task, in map-index order. */
async function listMapped({ b, p }: RouteCtx): Promise<unknown> {
  const { dag, run, t } = await loadTi(b, p);
  const all = await b.ports.store.listTasks(p.dag_id, p.dag_run_id);
  const mapped = all.filter((ti) => isInstanceId(ti.taskId) && baseTaskId(ti.taskId) === t.taskId).sort((a, c) => (a.mapIndex ?? 0) - (c.mapIndex ?? 0));
  const out = mapped.map((ti) => taskInstanceJson(run, dag.spec, t, t.taskId, ti));
  return { task_instances: out, total_entries: out.length };
}

/** One task instance by `{map_index}` in the path (-1: the unmapped task). */
async function oneInstance({ b, p }: RouteCtx): Promise<unknown> {
  const { dag, run, t, ti } = await loadTi(b, p);
  return taskInstanceJson(run, dag.spec, t, t.taskId, ti);
}

export function taskInstanceRoutes(): Route[] {
  return [
    { method: 'PATCH', path: TI, handle: patchTaskInstance },
    { method: 'GET', path: `${TI}/logs/{try_number}`, handle: logs },
    { method: 'GET', path: `${TI}/xcomEntries`, handle: xcomEntries },
    { method: 'GET', path: `${TI}/xcomEntries/{xcom_key}`, handle: xcomEntry },
    { method: 'GET', path: `${TI}/tries`, handle: tries },
    { method: 'GET', path: `${TI}/tries/{task_try_number}`, handle: tryDetails },
    { method: 'PATCH', path: `${TI}/{map_index}`, handle: patchTaskInstance },
    { method: 'GET', path: `${TI}/{map_index}/tries`, handle: tries },
    { method: 'GET', path: `${TI}/{map_index}/tries/{task_try_number}`, handle: tryDetails },
    { method: 'GET', path: `${TI}/listMapped`, handle: listMapped },
    { method: 'GET', path: `${TI}/{map_index}`, handle: oneInstance },
  ];
}
