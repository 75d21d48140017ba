/**
 * More task instance endpoints: why an instance is not running (`dependencies`), the
 * dry run of a PATCH, its extra links (Airless operators define none) and the external
 * log URL (Airless's log handler has none: Airflow's 400 for such a handler).
 */
import { isTerminal } from '../engine/index.js';
import { HttpError } from './http.js';
import { onlyFields } from './params.js';
import type { Route, RouteCtx } from './router.js';
import { MARK_STATES, type MarkState } from './mark.js';
import { loadTi } from './routes-ti.js';
import { taskInstanceJson } from './shapes.js';

const TI = '/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}';

/**
 * What keeps a task instance from running, in Airflow's dependency names: the run not
 * running, upstream tasks not done for its trigger rule. A running or finished instance
 * has none (Airflow lists them only for instances waiting to be scheduled).
 */
async function dependencies({ b, p, url }: RouteCtx): Promise<unknown> {
  const { run, t, ti } = await loadTi(b, p, url);
  if (ti && ti.state !== 'scheduled' && ti.state !== 'up_for_retry') return { dependencies: [] };
  const out: { name: string; reason: string }[] = [];
  if (run.state !== 'running') out.push({ name: 'Dag Run State', reason: `Task instance's dagrun was not in the 'running' state but in the state '${run.state}'.` });
  const states = new Map((await b.ports.store.listTasks(p.dag_id, p.dag_run_id)).map((x) => [x.taskId, x.state]));
  const waiting = t.upstream.filter((u) => { const s = states.get(u); return s === undefined || !isTerminal(s); });
  if (waiting.length) {
    out.push({ name: 'Trigger Rule', reason: `Task's trigger rule '${t.triggerRule}' requires its upstream tasks to be done, but ${waiting.length} are not: ${waiting.join(', ')}` });
  }
  if (ti?.state === 'up_for_retry') out.push({ name: 'Not In Retry Period', reason: 'Task is not ready for retry yet but will be retried automatically.' });
  return { dependencies: out };
}

/** The dry run of a PATCH: the instance it would change, as it is now (none when not reached). */
async function dryRun({ b, p, url, body }: RouteCtx): Promise<unknown> {
  onlyFields(body, ['new_state', 'note', 'include_upstream', 'include_downstream', 'include_future', 'include_past']);
  if (body.new_state !== undefined && body.new_state !== null && !MARK_STATES.includes(body.new_state as MarkState)) {
    throw new HttpError(422, `new_state: must be one of ${MARK_STATES.join(', ')}, got ${JSON.stringify(body.new_state)}`);
  }
  const { dag, run, t, ti } = await loadTi(b, p, url);
  const items = ti ? [taskInstanceJson(run, dag.spec, t, t.taskId, ti)] : [];
  return { task_instances: items, total_entries: items.length };
}

/**
 * @example
 * const routes = taskInstanceExtraRoutes(); // registered in routes.ts
 */
export function taskInstanceExtraRoutes(): Route[] {
  const links = async ({ b, p, url }: RouteCtx) => { await loadTi(b, p, url); return { extra_links: {}, total_entries: 0 }; };
  return [
    { method: 'GET', path: `${TI}/dependencies`, handle: dependencies },
    { method: 'GET', path: `${TI}/{map_index}/dependencies`, handle: dependencies },
    { method: 'PATCH', path: `${TI}/dry_run`, handle: dryRun },
    { method: 'PATCH', path: `${TI}/{map_index}/dry_run`, handle: dryRun },
    { method: 'GET', path: `${TI}/links`, handle: links },
    {
      method: 'GET', path: `${TI}/externalLogUrl/{try_number}`,
      handle: async ({ b, p, url }) => {
        await loadTi(b, p, url);
        throw new HttpError(400, 'Task log handler does not support external logs.');
      },
    },
  ];
}
