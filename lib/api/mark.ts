/**
 * Mark a task instance success, failed or skipped over HTTP: the engine's `markTask` (one
 * writer of task state), its typed refusals mapped to Airflow's status codes.
 */
import { MARK_STATES, markTask as engineMark, type MarkState, type Ports, type TaskInstance } from '../engine/index.js';
import { HttpError } from './http.js';

export { MARK_STATES, type MarkState };

/**
 * @example
 * await markTask(ports, 'etl', runId, 'extract', 'success');
 */
export async function markTask(p: Ports, dagId: string, runId: string, taskId: string, to: MarkState): Promise<TaskInstance> {
  const r = await engineMark(p, dagId, runId, taskId, to);
  if (r.ok) return r.item;
  if (r.reason === 'no_run') throw new HttpError(404, `dag_run_id: run ${JSON.stringify(runId)} of DAG ${JSON.stringify(dagId)} not found`);
  if (r.reason === 'finished_instance') throw new HttpError(409, `map_index: mapped instance ${JSON.stringify(taskId)} has finished (${r.current?.state}); mark or clear its task instead`);
  if (r.reason === 'not_reached') throw new HttpError(409, `task_id: task ${JSON.stringify(taskId)} has not been reached in this run; it has no state to change`);
  throw new HttpError(409, `task_id: task ${JSON.stringify(taskId)} changed state while being marked (now ${r.current?.state}); try again`);
}
