/**
 * A run's state from its task instances, as Airflow decides it: running while any task
 * is unfinished; then failed when a leaf failed or is upstream-failed, else success.
 */
import type { DagSpec, TaskInstance } from '../model/types.js';
import { isTerminal, type RunState } from '../model/states.js';
import { runStateLeaves } from './setup-teardown.js';

/**
 * @example
 * decideRunState(spec, tasks); // 'running' | 'success' | 'failed'
 */
export function decideRunState(spec: DagSpec, tasks: readonly TaskInstance[]): RunState {
  const byId = new Map(tasks.map((t) => [t.taskId, t]));
  let leafFailed = false;
  const leaves = runStateLeaves(spec);
  for (const t of spec.tasks) {
    const ti = byId.get(t.taskId);
    if (!ti || !isTerminal(ti.state)) return 'running';
    if (leaves.has(t.taskId) && (ti.state === 'failed' || ti.state === 'upstream_failed')) leafFailed = true;
  }
  return leafFailed ? 'failed' : 'success';
}
