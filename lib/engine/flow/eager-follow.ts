/**
 * Eager follow (as Temporal's eager activities, docs/adr/0001): a worker that just finished
 * a task runs one follow-up task of the same run itself, skipping a queue round trip, while
 * it has budget and time left. The follow-up is a task whose only upstream it ended (created
 * already claimed) or a join whose last upstream it ended (claimed from `scheduled`,
 * docs/adr/0030).
 *
 * The worker hands an allowance down the settle chain (finishTask → afterTerminal → passOn →
 * settleDownstream, and the nested paths that end more tasks on the way: skip and
 * upstream-failed cascades, a mapped task completed by its last instance). The task it
 * claimed comes back up that chain as the return value. A path that is not handed an
 * allowance (reconcile, the poker, the API, another run's depends-on-past wake) never
 * claims: its ready tasks go through the queue. So every claimed task reaches the worker
 * that claimed it, and none waits, claimed, for its lease to expire.
 */
import type { TaskInstance, TaskSpec } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { leaseMs } from '../write/transition.js';

/** The task a worker claimed for itself while settling, to run next; undefined when none. */
export type FollowUp = TaskInstance | undefined;

/**
 * What a worker may still run itself: one follow-up per finished task (fan-out siblings
 * still go through the queue to other workers), at most `budget` per message. The
 * reservation is synchronous, so concurrent settles of siblings cannot both take it.
 *
 * @example
 * const allow = new FollowAllowance(p.config.maxEagerFollows);
 * const { next } = await finishTask(p, rc, t, ti, outcome, allow);
 * if (next) await finishTask(p, rc, taskSpec(rc.spec, next.taskId), next, await runTry(next), allow.renewed());
 */
export class FollowAllowance {
  private taken = false;

  constructor(private budget: number) {}

  /** Reserves the turn for `t` when one is left and its lease fits in the worker's remaining time. */
  take(p: Ports, t: TaskSpec): boolean {
    if (this.taken || this.budget <= 0) return false;
    if (p.remainingMs && p.remainingMs() < leaseMs(p, t)) return false;
    this.taken = true;
    this.budget -= 1;
    return true;
  }

  /** The claim's put lost (the task exists): a sibling may take the turn; the budget stays spent. */
  giveBack(): void {
    this.taken = false;
  }

  /** The allowance for the follow-up's own end: a new turn, what is left of the budget. */
  renewed(): FollowAllowance {
    return new FollowAllowance(this.budget);
  }
}

/** The one follow-up among concurrent settles (the turn lets at most one claim succeed). */
export function followUpOf(results: readonly FollowUp[]): FollowUp {
  return results.find((r) => r !== undefined);
}
