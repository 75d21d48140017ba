/**
 * The one call a run's end makes for triggerDagRun (flow/trigger-dag-run.ts): when a run
 * another DAG's task waits for ends, a fire message wakes that task, as its own timer would.
 * A message, not a direct call, because a run can end in any function; the message carries
 * the waiting deferral's claim token, so a wake that comes late or twice resumes nothing,
 * and the task's slow timer covers a wake that is lost.
 */
import type { DagRun } from '../model/types.js';
import type { FireMessage, Ports } from '../model/ports.js';

/**
 * @example
 * await wakeRunWaiter(p, run); // nothing for a run no task waits for
 */
export async function wakeRunWaiter(p: Ports, run: Pick<DagRun, 'waiter' | 'dagId' | 'runId' | 'state'>): Promise<void> {
  const w = run.waiter;
  if (!w) return;
  try {
    const ti = await p.store.getTask(w);
    if (!ti || ti.state !== 'deferred' || ti.tryNumber !== w.tryNumber || ti.owner === undefined) return;
    const msg: FireMessage = { kind: 'fire', ...w, reason: 'trigger', token: ti.owner, payload: { dagId: run.dagId, runId: run.runId, state: run.state } };
    await p.queue.send([msg]);
  } catch (err) {
    p.log.warn('could not wake the task waiting for this run; its timer will', { dagId: run.dagId, runId: run.runId, waiter: `${w.dagId}/${w.runId}/${w.taskId}`, error: String(err) });
  }
}
