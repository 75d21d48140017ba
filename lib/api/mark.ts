/**
 * Mark a task instance success, failed or skipped (Airflow's "mark success/failed").
 * Built only from engine functions; it is a transition the engine itself should own
 * (runs.ts, beside clearTasks): move it there when the engine names its transitions.
 */
import { loadRunCtx } from '../engine/dag-index.js';
import { afterTerminal, ended, slotFor, wakeReady } from '../engine/follow.js';
import type { TaskInstance } from '../engine/model.js';
import type { Ports } from '../engine/ports.js';
import { clearTasks, downstreamClosure } from '../engine/runs.js';
import { isTerminal, type TaskState } from '../engine/states.js';
import { HttpError } from './http.js';

export const MARK_STATES = ['success', 'failed', 'skipped'] as const;
export type MarkState = (typeof MARK_STATES)[number];

const outcomeOf = (s: MarkState) => (s === 'success' || s === 'failed' ? s : 'skipped');

/**
 * Sets a task instance's state. A task that has not finished ends now (its worker's
 * late result loses the compare-and-set; a sensor's or deferral's trigger is removed)
 * and its downstream tasks are decided as if it had ended so. A finished task takes
 * the new state and its finished downstream tasks are cleared, so they are decided
 * again on the new outcome, as clearing them after a mark does in Airflow.
 *
 * @example
 * await markTask(ports, 'etl', runId, 'extract', 'success');
 */
export async function markTask(p: Ports, dagId: string, runId: string, taskId: string, to: MarkState): Promise<TaskInstance> {
  const rc = await loadRunCtx(p, dagId, runId);
  if (!rc) throw new HttpError(404, `dag_run_id: run ${JSON.stringify(runId)} of DAG ${JSON.stringify(dagId)} not found`);
  const ti = await p.store.getTask({ dagId, runId, taskId });
  if (!ti) throw new HttpError(409, `task_id: task ${JSON.stringify(taskId)} has not been reached in this run; it has no state to change`);
  if (ti.state === to) return ti;
  const from: TaskState = ti.state;
  const holdsSlot = from === 'queued' || from === 'running';
  const r = await p.store.updateTask(ti, { state: from, tryNumber: ti.tryNumber }, {
    state: to, ...ended(p), leaseUntil: null, owner: null, ready: null,
    error: to === 'failed' ? 'marked failed' : null, trigger: null, nextMethod: null, nextKwargs: null,
  }, holdsSlot ? slotFor(rc, -1) : undefined);
  if (!r.ok) throw new HttpError(409, `task_id: task ${JSON.stringify(taskId)} changed state while being marked (now ${r.current?.state}); try again`);
  p.log.info(`marked ${to}`, { dagId, runId, taskId, tryNumber: ti.tryNumber, from });
  if (from === 'sensing' || from === 'deferred') await p.store.deleteTrigger(`${dagId}/${runId}/${taskId}`);
  if (!isTerminal(from)) {
    await afterTerminal(p, rc, taskId, to);
    if (holdsSlot) await wakeReady(p, rc);
    return r.item;
  }
  // Finished before: tell the downstream the new outcome first, then clear them, so the
  // decision the clear starts sees the new outcome, never the old one.
  const spec = rc.spec.tasks.find((t) => t.taskId === taskId)!;
  for (const d of spec.downstream) await p.store.recordUpstream({ dagId, runId, taskId: d }, taskId, outcomeOf(to));
  const below = [...downstreamClosure(rc.spec, spec.downstream)];
  if (below.length) await clearTasks(p, dagId, runId, below, { downstream: false });
  else await afterTerminal(p, rc, taskId, to);
  return r.item;
}
