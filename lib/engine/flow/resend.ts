/**
 * Messages reconcile may send again (docs/adr/0020). A plain task is created by the message
 * that runs it (a root when its run starts, the only downstream of a task that ended), so
 * until a worker takes that message the task has no item, and a lost message leaves nothing
 * behind but the missing item. Reconcile sends such a message again after `requeueAfterMs`,
 * then after twice that, and so on (at most 64 times it), so that a long backlog is not
 * flooded with copies while a truly lost message is still sent again (docs/adr/0005,
 * requeue storm). The backoff is kept on what is there: the run (roots) or the ended upstream.
 */
import { countsSlots, type RunCtx } from '../rules/dag-index.js';
import type { DagRun, TaskInstance, TaskSpec } from '../model/types.js';
import type { EngineConfig } from '../model/ports.js';
import { limitsApply } from '../rules/pool-limits.js';
import { indirectSetups } from '../rules/setup-teardown.js';
import { isTerminal } from '../model/states.js';

/**
 * @example
 * resendDueAt(endedAt, 0, config); // endedAt + requeueAfterMs
 * resendDueAt(resentAt, 3, config); // resentAt + 8 * requeueAfterMs
 */
export function resendDueAt(since: number, resends: number | undefined, config: Pick<EngineConfig, 'requeueAfterMs'>): number {
  return since + config.requeueAfterMs * 2 ** Math.min(resends ?? 0, 6);
}

/**
 * True when `t` is created already claimed by the message that runs it: a plain task (no
 * sensor, no maxActiveTasks counter that can bind, no pool or per-task limit, no
 * depends-on-past, no setup scope to read). Others are created `scheduled` and decided.
 */
export function createdByItsMessage(rc: RunCtx, t: TaskSpec): boolean {
  return t.kind !== 'sensor' && !countsSlots(rc.spec) && !limitsApply(t, t.taskId) && !t.dependsOnPast && indirectSetups(rc.spec, t).length === 0;
}

/** A root of the run: it may run as soon as the run does (`always` does not wait for anything). */
export function isRoot(t: TaskSpec): boolean {
  return t.upstream.length === 0 || t.triggerRule === 'always';
}

/** When the roots of a run that have no item may be sent again. */
export function rootsDueAt(run: DagRun, config: Pick<EngineConfig, 'requeueAfterMs'>): number {
  return resendDueAt(run.rootsResentAt ?? run.startedAt ?? 0, run.rootsResends, config);
}

/** When the downstream of an ended task that has no item may be sent again. */
export function followDueAt(ti: TaskInstance, config: Pick<EngineConfig, 'requeueAfterMs'>): number {
  return resendDueAt(ti.followResentAt ?? ti.endedAt ?? 0, ti.followResends, config);
}

/**
 * The earliest time reconcile has something to send again in a running run, from its
 * tasks as listed: a missing root, or the missing downstream of an ended task. For
 * runtimes on a virtual clock, which tick only when something is due.
 */
export function resendsDueAt(rc: RunCtx, tis: readonly TaskInstance[], config: Pick<EngineConfig, 'requeueAfterMs'>): number {
  const byId = new Map(tis.map((t) => [t.taskId, t]));
  let at = Number.POSITIVE_INFINITY;
  for (const t of rc.spec.tasks) {
    const ti = byId.get(t.taskId);
    if (!ti) {
      if (isRoot(t) && createdByItsMessage(rc, t)) at = Math.min(at, rootsDueAt(rc.run, config));
      continue;
    }
    if (!isTerminal(ti.state)) continue;
    const lazy = t.downstream.some((d) => !byId.has(d));
    if (lazy) at = Math.min(at, followDueAt(ti, config));
  }
  return at;
}
