/**
 * Sending a task on: queueing a try (or holding it for a maxActiveTasks slot), starting a
 * sensor's wait instead, waking the best task waiting for a freed slot, and the message
 * that creates a task already claimed. Nothing here decides or settles, so settle.ts and
 * mapping-settle.ts both call it directly (split from settle.ts, docs/adr/0026).
 */
import { countsSlots, taskSpec, type RunCtx } from '../rules/dag-index.js';
import type { TaskInstance } from '../model/types.js';
import type { Ports, TaskMessage } from '../model/ports.js';
import type { UpstreamOutcome } from '../model/states.js';
import { limitsApply } from '../rules/pool-limits.js';
import { transition } from '../write/transition.js';
import { queueLimited, wakeWaiters } from './pools.js';
import { startWaiting } from './sensor-start.js';
import { matWaitKey, waitForSlot } from './active-tasks.js';

/** True when a task write that enters or leaves queued/running moves the run's slot counter. */
export function holdsSlots(rc: RunCtx): boolean {
  return countsSlots(rc.spec);
}

/**
 * Queues a task try: a conditional write, then one message. From `scheduled` and
 * `up_for_retry` this starts a new try; from `deferred` it resumes the same try.
 * When maxActiveTasks is reached the task stays `scheduled` with `ready` set, and the
 * next task to leave `running` wakes it.
 */
export async function queueTask(p: Ports, rc: RunCtx, ti: TaskInstance): Promise<boolean> {
  if (limitsApply(taskSpec(rc.spec, ti.taskId), ti.taskId)) return queueLimited(p, rc, ti);
  const r = await transition(p, rc, ti, 'queued');
  if (r.ok) {
    await p.queue.send([{ kind: 'task', dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: r.item.tryNumber }]);
    return true;
  }
  // Woken by the next task that leaves queued/running (wakeReady), through the waiting index.
  if (r.reason === 'slots') await waitForSlot(p, rc, ti);
  return false;
}

/**
 * Starts a try of a task whose rule passed or whose retry is due: a batched (or time)
 * sensor starts waiting with no worker, anything else is queued.
 */
export async function startTry(p: Ports, rc: RunCtx, ti: TaskInstance): Promise<void> {
  const t = taskSpec(rc.spec, ti.taskId);
  if (t.kind === 'sensor' && t.sensor && (t.sensor.mode === 'batched' || t.sensor.type === 'time')) {
    await startWaiting(p, rc, ti, t);
  } else {
    await queueTask(p, rc, ti);
  }
}

/** Gives a freed maxActiveTasks slot to the best task waiting for one (the run's waiting line). */
export async function wakeReady(p: Ports, rc: RunCtx): Promise<void> {
  if (!countsSlots(rc.spec)) return;
  await wakeWaiters(p, matWaitKey(rc.run), 1, rc);
}

/** The message that creates a plain task already claimed, with its upstream outcomes (flow/claim.ts). */
export function createMessage(p: Ports, rc: RunCtx, taskId: string, up: Record<string, UpstreamOutcome>): TaskMessage {
  return { kind: 'task', dagId: rc.run.dagId, runId: rc.run.runId, taskId, tryNumber: 1, up, at: p.clock.now() };
}
