/**
 * Deleting a run or a task instance, and waiting for a run to end (Airflow 3.1's `/wait`),
 * over the store (its RunDeleteStore and the run's own record).
 */
import { baseTaskId, instanceId, instanceValue, isInstanceId, isRunTerminal, isTerminal, type DagRun } from '../engine/index.js';
import { needRun, needTask, type ApiBackend } from './backend.js';
import { HttpError, invalid, sendEmpty } from './http.js';
import { intQuery, listQuery } from './params.js';
import type { Route, RouteCtx } from './router.js';

const RUN = '/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}';

/**
 * Airflow's delete of a run (204). A run that has not ended is refused with a 400: it holds
 * run and pool slots and has work in flight; mark it (PATCH `state`) first.
 */
async function deleteRun({ b, p, res }: RouteCtx): Promise<undefined> {
  const { run } = await needRun(b, p.dag_id, p.dag_run_id);
  if (!isRunTerminal(run.state) || !(await b.ports.store.deleteRun(p.dag_id, p.dag_run_id))) {
    throw new HttpError(400, `dag_run_id: run ${JSON.stringify(p.dag_run_id)} is ${run.state}; only a finished run can be deleted (mark it success or failed first)`);
  }
  return sendEmpty(res);
}

/**
 * Airflow's delete of a task instance (200, a null body as Airflow's answers). An instance
 * that has not finished is the engine's to move: a 422 at `task_id` (the spec lists no 409 here).
 */
async function deleteTask({ b, p, url }: RouteCtx): Promise<unknown> {
  const { dag } = await needRun(b, p.dag_id, p.dag_run_id);
  needTask(dag.spec, p.task_id);
  const mapIndex = intQuery(url, 'map_index', -1, -1, 1_000_000);
  const taskId = mapIndex >= 0 ? instanceId(p.task_id, mapIndex) : p.task_id;
  const key = { dagId: p.dag_id, runId: p.dag_run_id, taskId };
  const ti = await b.ports.store.getTask(key);
  if (!ti) throw new HttpError(404, `Task Instance not found for dag_id=${p.dag_id}, run_id=${p.dag_run_id}, task_id=${p.task_id}${mapIndex >= 0 ? `, map_index=${mapIndex}` : ''}`);
  if (!isTerminal(ti.state) || !(await b.ports.store.deleteTask(key))) {
    throw invalid(['path', 'task_id'], `task_id: task instance ${JSON.stringify(taskId)} is ${ti.state}; only a finished task instance can be deleted`, p.task_id);
  }
  return null;
}

/** The return values of the tasks asked for: a mapped task's as a list in map-index order (as Airflow's waiter groups them). */
async function results(b: ApiBackend, run: DagRun, taskIds: string[]): Promise<Record<string, unknown>> {
  const tis = await b.ports.store.listTasks(run.dagId, run.runId);
  const out: Record<string, unknown> = {};
  for (const id of taskIds) {
    const mapped = tis.filter((ti) => isInstanceId(ti.taskId) && baseTaskId(ti.taskId) === id).sort((x, y) => (x.mapIndex ?? 0) - (y.mapIndex ?? 0));
    if (mapped.length) {
      const values = (await Promise.all(mapped.map((ti) => instanceValue(b.ports, ti)))).filter((v) => v !== undefined);
      if (values.length) out[id] = values;
      continue;
    }
    const v = await b.ports.store.getXcom({ dagId: run.dagId, runId: run.runId, taskId: id, key: 'return_value' });
    if (v !== undefined) out[id] = v;
  }
  return out;
}

/**
 * Airflow 3.1's wait: one NDJSON line `{"state": …}` now and one after each `interval`
 * seconds (on the runtime's clock) until the run has ended; the last line carries the
 * `results` asked for. A client that hangs up stops the wait.
 */
async function wait({ b, p, url, res }: RouteCtx): Promise<undefined> {
  const raw = url.searchParams.get('interval');
  const seconds = raw === null || raw === '' ? NaN : Number(raw);
  if (raw === null) throw invalid(['query', 'interval'], 'interval: Field required', null, 'missing');
  if (!Number.isFinite(seconds) || seconds <= 0) throw invalid(['query', 'interval'], `interval: must be a number of seconds above 0, got ${JSON.stringify(raw)}`, raw, 'greater_than');
  const wanted = listQuery(url, 'result');
  let { run } = await needRun(b, p.dag_id, p.dag_run_id);
  const stop = new AbortController();
  res.on('close', () => stop.abort());
  res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
  const line = async (r: DagRun) => {
    const ended = isRunTerminal(r.state);
    res.write(`${JSON.stringify({ state: r.state, ...(ended && wanted.length ? { results: await results(b, r, wanted) } : {}) })}\n`);
    return ended;
  };
  while (!(await line(run)) && !stop.signal.aborted) {
    await b.ports.clock.sleep(seconds * 1000, stop.signal);
    if (stop.signal.aborted) break;
    const now = await b.ports.store.getRun(p.dag_id, p.dag_run_id);
    // Deleted while waited for: the stream ends, as the run has no state left to report.
    if (!now) break;
    run = now;
  }
  res.end();
  return undefined;
}

/**
 * @example
 * const routes = runOpRoutes(); // registered in routes.ts
 */
export function runOpRoutes(): Route[] {
  return [
    { method: 'DELETE', path: RUN, handle: deleteRun },
    { method: 'DELETE', path: `${RUN}/taskInstances/{task_id}`, handle: deleteTask },
    { method: 'GET', path: `${RUN}/wait`, handle: wait },
  ];
}
