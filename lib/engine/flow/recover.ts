/**
 * Recovery of tries whose owner disappeared, found by reconcile's scan of running runs
 * (queued and running tasks keep no `dueAt`, so the hot path writes no index entries):
 * a queued try whose message was lost is re-sent, with a backoff so that a long backlog
 * is not flooded with copies; a running try whose lease expired fails or retries.
 */
import { taskSpec, type RunCtx } from '../rules/dag-index.js';
import type { TaskInstance } from '../model/types.js';
import type { EngineConfig, Ports } from '../model/ports.js';
import { failTry } from './worker-finish.js';
import { expandTask, isMappedParent } from './mapping-expand.js';
import { annotate } from '../write/transition.js';
import { EVENT_RECHECK_MS, resumeDeferred } from './waiting.js';
import { taskKeyString } from '../model/types.js';
import { resendDueAt } from './resend.js';
import { isEventTrigger } from './event-wait.js';
import { reviewEventWait } from './event-review.js';

/**
 * When reconcile should next look at a queued or running try: a queued try's message is
 * re-sent after `requeueAfterMs`, then after twice that, and so on; a running try is
 * failed when its lease ends. Undefined for other states.
 */
export function recoveryDueAt(ti: TaskInstance, config: EngineConfig): number | undefined {
  if (ti.state === 'running') return ti.leaseUntil;
  if (ti.state !== 'queued') return undefined;
  return resendDueAt(ti.requeuedAt ?? ti.queuedAt ?? 0, ti.requeues, config);
}

/** Re-sends a queued try's message when it has waited too long (see {@link recoveryDueAt}). */
export async function requeueIfLost(p: Ports, ti: TaskInstance): Promise<boolean> {
  const now = p.clock.now();
  const n = ti.requeues ?? 0;
  if (now < (recoveryDueAt(ti, p.config) ?? Number.POSITIVE_INFINITY)) return false;
  // Concurrent reconcilers may both pass this write and both send: a duplicate message
  // loses its claim, so that is harmless (and rare).
  const r = await annotate(p, ti, { requeuedAt: now, requeues: n + 1, dueAt: null });
  if (!r.ok) return false;
  p.metrics.count('Requeued');
  await p.queue.send([{ kind: 'task', dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber }]);
  return true;
}

/** Fails (or retries) a running try whose lease has expired: its worker is gone. */
export async function expireLease(p: Ports, rc: RunCtx, ti: TaskInstance): Promise<boolean> {
  if ((ti.leaseUntil ?? Number.POSITIVE_INFINITY) > p.clock.now()) return false;
  p.metrics.count('ExpiredLeases');
  // A mapped task whose expander was lost mid-way: resume the expansion from its cursor.
  if (isMappedParent(taskSpec(rc.spec, ti.taskId), ti) && ti.mapLength !== undefined) return expandTask(p, rc, taskSpec(rc.spec, ti.taskId), ti).then(() => true);
  return (await failTry(p, rc, taskSpec(rc.spec, ti.taskId), ti, 'the worker running this try was lost (lease expired)', false)).ok;
}

/** Reconcile's look at a deferred task that is due: time out, fire a lost timer, or re-check a signal. */
export async function reviewDeferred(p: Ports, rc: RunCtx, ti: TaskInstance): Promise<void> {
  if (isEventTrigger(ti.trigger)) return reviewEventWait(p, rc, ti); // an EventBridge event (flow/event-review.ts)
  const now = p.clock.now();
  const t = taskSpec(rc.spec, ti.taskId);
  if (ti.deferTimeoutAt !== undefined && ti.deferTimeoutAt <= now) {
    await failTry(p, rc, t, ti, `deferral timed out waiting for ${describeTrigger(ti)}`, false);
    if (ti.trigger && 'event' in ti.trigger) await p.store.deleteTrigger(taskKeyString(ti));
    return;
  }
  if (ti.trigger && 'at' in ti.trigger && Number(ti.trigger.at) <= now) {
    p.metrics.count('TimersRecovered');
    await resumeDeferred(p, rc, ti, { reason: 'trigger' });
    return;
  }
  if (ti.trigger && 'event' in ti.trigger) {
    const sig = await p.store.getSignal(ti.trigger.event, now);
    if (sig) {
      await resumeDeferred(p, rc, ti, { payload: sig.payload, key: ti.trigger.event, reason: 'trigger' });
      return;
    }
  }
  const next = Math.min(now + EVENT_RECHECK_MS, ti.deferTimeoutAt ?? Number.POSITIVE_INFINITY);
  await annotate(p, ti, { dueAt: next });
}

function describeTrigger(ti: TaskInstance): string {
  const tr = ti.trigger;
  if (tr && 'event' in tr) return `event ${JSON.stringify(tr.event)}`;
  if (tr && 'at' in tr) return `the timer of ${new Date(Number(tr.at)).toISOString()}`;
  return 'its trigger';
}

