/**
 * Airflow's tasks of a DAG (`get_tasks`, `get_task`): each task of the DAG's spec as
 * Airflow's TaskResponse.
 */
import type { DagSpec, TaskSpec } from '../engine/index.js';
import { needDag, needTask } from './backend.js';
import { sorter } from './params.js';
import type { Route } from './router.js';
import { operatorName } from './shapes.js';

/** A duration as Airflow's TimeDelta object. */
function timeDelta(ms: number | undefined) {
  if (ms === undefined) return null;
  const days = Math.floor(ms / 86_400_000);
  const rest = ms - days * 86_400_000;
  return { __type: 'TimeDelta', days, seconds: Math.floor(rest / 1000), microseconds: Math.round((rest % 1000) * 1000) };
}

/**
 * A task as Airflow's TaskResponse. `retry_exponential_backoff` is Airflow 3.2's multiplier:
 * 2 when the task backs off exponentially (Airflow's default multiplier), 0 when not.
 */
export function taskJson(spec: DagSpec, t: TaskSpec) {
  const op = operatorName(t);
  return {
    task_id: t.taskId, task_display_name: t.displayName ?? t.taskId, owner: 'airless', start_date: null, end_date: null,
    trigger_rule: t.triggerRule, depends_on_past: t.dependsOnPast === true, wait_for_downstream: false,
    retries: t.retries, queue: null, pool: t.pool ?? 'default_pool', pool_slots: t.poolSlots ?? 1,
    execution_timeout: timeDelta(t.executionTimeoutMs), retry_delay: timeDelta(t.retryDelayMs),
    retry_exponential_backoff: t.retryExponentialBackoff ? 2 : 0, priority_weight: t.priorityWeight ?? 1,
    weight_rule: 'downstream', ui_color: '#ffefeb', ui_fgcolor: '#000', template_fields: Object.keys(t.args ?? {}),
    downstream_task_ids: [...t.downstream], doc_md: null, operator_name: op, params: spec.params ?? {},
    class_ref: { module_path: 'airless', class_name: op }, is_mapped: t.expand !== undefined, extra_links: [],
  };
}

/**
 * @example
 * const routes = taskRoutes(); // registered in routes.ts
 */
export function taskRoutes(): Route[] {
  return [
    {
      method: 'GET', path: '/api/v2/dags/{dag_id}/tasks',
      handle: async ({ b, p, url }) => {
        const { spec } = await needDag(b, p.dag_id);
        const tasks = [...spec.tasks].sort(sorter<TaskSpec>(url, 'task_id', { task_id: (t) => t.taskId, priority_weight: (t) => t.priorityWeight ?? 1, pool: (t) => t.pool ?? 'default_pool' }));
        return { tasks: tasks.map((t) => taskJson(spec, t)), total_entries: tasks.length };
      },
    },
    {
      method: 'GET', path: '/api/v2/dags/{dag_id}/tasks/{task_id}',
      handle: async ({ b, p }) => {
        const { spec } = await needDag(b, p.dag_id);
        return taskJson(spec, needTask(spec, p.task_id));
      },
    },
  ];
}
