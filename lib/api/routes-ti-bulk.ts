/**
 * Airflow's `bulk_task_instances` (PATCH on a run's task instances, `~` for any DAG or
 * run when the entities name theirs): update marks a state (`new_state`, the engine's mark,
 * as `patch_task_instance`) and writes a `note`; delete removes a finished task instance
 * and its XComs (store RunDeleteStore). Task instances are the engine's to create: a
 * `create` action is a 422. Each action reports its keys, `dag/run/task` (with `/map_index`
 * for a mapped instance), and stops at its first failure, which it reports.
 */
import { instanceId, isTerminal, setTaskNote, type TaskKey } from '../engine/index.js';
import type { ApiBackend } from './backend.js';
import { runBulk, type BulkOps } from './bulk.js';
import { HttpError, invalid } from './http.js';
import { MARK_STATES, markTask, type MarkState } from './mark.js';
import { onlyFields } from './params.js';
import type { Route, RouteCtx } from './router.js';

const FIELDS = ['task_id', 'map_index', 'dag_id', 'dag_run_id', 'new_state', 'note', 'include_upstream', 'include_downstream', 'include_future', 'include_past'];

interface Change { key: TaskKey; name: string; state?: MarkState; note?: string | null; hasNote: boolean }

function tiOps(b: ApiBackend, p: Record<string, string>): BulkOps<Change> {
  const keys = new Map<string, TaskKey>();
  const name = (k: TaskKey, task: string, mapIndex: number) => {
    const n = `${k.dagId}/${k.runId}/${task}${mapIndex >= 0 ? `/${mapIndex}` : ''}`;
    keys.set(n, k);
    return n;
  };
  const keyOf = (e: Record<string, unknown>): string => {
    onlyFields(e, FIELDS);
    if (typeof e.task_id !== 'string' || !e.task_id) throw invalid(['body', 'task_id'], `task_id: must be a task id, got ${JSON.stringify(e.task_id ?? null)}`, e.task_id ?? null, 'string_type');
    const dagId = typeof e.dag_id === 'string' ? e.dag_id : p.dag_id;
    const runId = typeof e.dag_run_id === 'string' ? e.dag_run_id : p.dag_run_id;
    if (dagId === '~' || runId === '~') throw invalid(['body', dagId === '~' ? 'dag_id' : 'dag_run_id'], `${dagId === '~' ? 'dag_id' : 'dag_run_id'}: required in each entity when the path has ~`, null, 'missing');
    const mapIndex = e.map_index ?? -1;
    if (!Number.isInteger(mapIndex) || (mapIndex as number) < -1) throw invalid(['body', 'map_index'], `map_index: must be a whole number from -1, got ${JSON.stringify(mapIndex)}`, mapIndex, 'int_type');
    const m = mapIndex as number;
    return name({ dagId, runId, taskId: m >= 0 ? instanceId(e.task_id, m) : e.task_id }, e.task_id, m);
  };
  return {
    noun: 'task instances', keyName: 'key',
    keyOf,
    get: async (k) => {
      const key = keys.get(k) ?? keys.get(keyOf({ task_id: k }));
      return key && b.ports.store.getTask(key);
    },
    build: (e) => {
      for (const f of ['include_upstream', 'include_downstream', 'include_future', 'include_past']) if (e[f] === true) throw invalid(['body', f], `${f}: not supported yet (name each task instance)`, true);
      if (e.new_state !== undefined && e.new_state !== null && !MARK_STATES.includes(e.new_state as MarkState)) throw invalid(['body', 'new_state'], `new_state: must be one of ${MARK_STATES.join(', ')}, got ${JSON.stringify(e.new_state)}`, e.new_state, 'enum');
      if (e.note !== undefined && e.note !== null && (typeof e.note !== 'string' || e.note.length > 1000)) throw invalid(['body', 'note'], 'note: must be a string of at most 1000 characters', e.note, 'string_type');
      const n = keyOf(e);
      return { key: keys.get(n)!, name: n, state: (e.new_state ?? undefined) as MarkState | undefined, note: e.note as string | null | undefined, hasNote: 'note' in e };
    },
    save: async (c) => {
      if (c.state) await markTask(b.ports, c.key.dagId, c.key.runId, c.key.taskId, c.state);
      if (c.hasNote && !(await setTaskNote(b.ports, c.key, c.note ?? null))) throw new HttpError(409, `task_id: ${c.name} has not been reached; it has no note to set`);
    },
    remove: async (k) => {
      const key = keys.get(k) ?? keys.get(keyOf({ task_id: k }))!;
      const ti = await b.ports.store.getTask(key);
      if (ti && !isTerminal(ti.state)) throw new HttpError(409, `task_id: ${k} is ${ti.state}; only a finished task instance can be deleted`);
      return b.ports.store.deleteTask(key);
    },
  };
}

async function bulk({ b, p, body }: RouteCtx): Promise<unknown> {
  const actions = Array.isArray(body.actions) ? body.actions : [];
  actions.forEach((a, i) => {
    if (a && typeof a === 'object' && (a as { action?: unknown }).action === 'create') throw invalid(['body', 'actions', i, 'action'], `actions[${i}].action: task instances cannot be created (the engine creates them); use update or delete`, 'create', 'value_error');
  });
  return runBulk(body, tiOps(b, p));
}

/**
 * @example
 * const routes = taskInstanceBulkRoutes(); // registered in routes.ts
 */
export function taskInstanceBulkRoutes(): Route[] {
  return [{ method: 'PATCH', path: '/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances', handle: bulk }];
}
