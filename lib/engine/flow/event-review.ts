/**
 * Reconcile's look at a task waiting for an event, when its `dueAt` comes: at its timeout
 * the try fails (and the one writer stops its job, job-stop.ts); a wait that is not a
 * job's is matched once more against the kept events a minute after it was stored (an
 * event whose arrival missed it, event-wait.ts); after that the task leaves the due index
 * until its timeout. Nothing polls while it waits.
 */
import { taskSpec, type RunCtx } from '../rules/dag-index.js';
import type { TaskInstance } from '../model/types.js';
import type { EventTrigger } from '../model/events.js';
import type { Ports } from '../model/ports.js';
import { annotate } from '../write/transition.js';
import { failTry } from './worker-finish.js';
import { describeWait, matchKept } from './event-wait.js';

/**
 * @example
 * if (isEventTrigger(ti.trigger)) return reviewEventWait(p, rc, ti);
 */
export async function reviewEventWait(p: Ports, rc: RunCtx, ti: TaskInstance): Promise<void> {
  const now = p.clock.now();
  const trigger = ti.trigger as EventTrigger;
  if (ti.deferTimeoutAt !== undefined && ti.deferTimeoutAt <= now) {
    const deadline = new Date(ti.deferTimeoutAt).toISOString();
    await failTry(p, rc, taskSpec(rc.spec, ti.taskId), ti, `timed out waiting for ${describeWait(trigger)} (deadline ${deadline})`, false);
    return;
  }
  if (!trigger.job && (await matchKept(p, rc, ti))) return;
  await annotate(p, ti, { dueAt: ti.deferTimeoutAt ?? null });
}
