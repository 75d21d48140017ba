/**
 * Mark a task instance success, failed or skipped (Airflow's "mark success/failed").
 * The operator's word overrides the state machine: it is the one transition that may leave
 * any state for these three (`MARK_STATES`), and it is still one compare-and-set through
 * `transition`, so a worker finishing the same try at the same moment loses cleanly.
 */
import type { Cas } from '../model/ports.js';
import type { Ports } from '../model/ports.js';
import type { TaskInstance } from '../model/types.js';
import { isTerminal, type TaskState } from '../model/states.js';
import { loadRunCtx } from '../rules/dag-index.js';
import { afterTerminal, wakeReady } from './settle.js';
import { transition } from '../write/transition.js';
import { clearTasks, downstreamClosure } from './runs.js';
import { wakeLimits } from './pools.js';
import { isInstanceId } from '../rules/mapping-ids.js';
import { countEnds } from './run-ends.js';

export const MARK_STATES = ['success', 'failed', 'skipped'] as const;
export type MarkState = (typeof MARK_STATES)[number];

/**
 * Why a mark did not happen: no such run, a task not reached yet, a lost race, or a
 * finished mapped instance (its outcome is already counted in its task's map shards).
 */
export type MarkResult = { ok: true; item: TaskInstance } | { ok: false; reason: 'no_run' | 'not_reached' | 'raced' | 'finished_instance'; current?: TaskInstance };

/**
 * Sets a task instance's state. A task that has not finished ends now (its worker's late
 * result loses the compare-and-set; a sensor's or deferral's trigger is removed) and its
 * downstream tasks are decided as if it had ended so. A finished task takes the new state
 * and its finished downstream tasks are cleared, so they are decided again on the new
 * outcome, as clearing them after a mark does in Airflow.
 *
 * @example
 * const r = await markTask(ports, 'etl', runId, 'extract', 'success');
 */
export async function markTask(p: Ports, dagId: string, runId: string, taskId: string, to: MarkState): Promise<MarkResult> {
  const rc = await loadRunCtx(p, dagId, runId);
  if (!rc) return { ok: false, reason: 'no_run' };
  const ti = await p.store.getTask({ dagId, runId, taskId });
  if (!ti) return { ok: false, reason: 'not_reached' };
  if (ti.state === to) return { ok: true, item: ti };
  // A finished instance has been counted into its task's outcome: changing it alone would
  // leave the mapped task's state wrong. Mark (or clear) the mapped task instead.
  if (isInstanceId(taskId) && isTerminal(ti.state)) return { ok: false, reason: 'finished_instance', current: ti };
  const from: TaskState = ti.state;
  const r: Cas<TaskInstance> = await transition(p, rc, ti, to, {
    owner: null, error: to === 'failed' ? 'marked failed' : null, trigger: null, nextMethod: null, nextKwargs: null,
  }, { mark: true });
  if (!r.ok) return { ok: false, reason: 'raced', current: r.current };
  p.log.info(`marked ${to}`, { dagId, runId, taskId, tryNumber: ti.tryNumber, from });
  if (from === 'sensing' || from === 'deferred') await p.store.deleteTrigger(`${dagId}/${runId}/${taskId}`);
  if (!isTerminal(from)) {
    await afterTerminal(p, rc, taskId, to);
    if (from === 'queued' || from === 'running') await wakeReady(p, rc);
    await wakeLimits(p, rc, ti);
    return r;
  }
  // Finished before: tell the downstream the new outcome first, then clear them, so the
  // decision the clear starts sees the new outcome, never the old one.
  const spec = rc.spec.tasks.find((t) => t.taskId === taskId)!;
  for (const d of spec.downstream) await p.store.recordUpstream({ dagId, runId, taskId: d }, taskId, to);
  // Its own end changes outcome in a counted run's counts; what follows below is cleared (and
  // uncounted) next, so this count cannot complete the run.
  if (spec.downstream.length) await countEnds(p, rc, [{ taskId, state: to }]);
  const below = [...downstreamClosure(rc.spec, spec.downstream)];
  if (below.length) await clearTasks(p, dagId, runId, below, { downstream: false });
  else await afterTerminal(p, rc, taskId, to);
  return r;
}
