/**
 * Trigger rules, as Airflow's TriggerRuleDep decides them: from the outcomes recorded
 * so far, a task either waits, runs, is skipped or is upstream-failed. Decisions are
 * made as early as the rule allows (e.g. `all_success` is upstream-failed by the first
 * failed upstream), so a cascade never waits for unrelated branches.
 */
import type { TriggerRule } from '../model/types.js';
import type { UpstreamOutcome } from '../model/states.js';

export type RuleDecision = 'wait' | 'run' | 'skip' | 'upstream_failed';

interface Counts {
  total: number;
  done: number;
  success: number;
  failed: number;
  upstreamFailed: number;
  skipped: number;
}

function count(upstreamIds: readonly string[], recorded: Readonly<Record<string, UpstreamOutcome>>): Counts {
  const c: Counts = { total: upstreamIds.length, done: 0, success: 0, failed: 0, upstreamFailed: 0, skipped: 0 };
  for (const id of upstreamIds) {
    const o = recorded[id];
    if (o === undefined) continue;
    c.done++;
    if (o === 'success') c.success++;
    else if (o === 'failed') c.failed++;
    else if (o === 'upstream_failed') c.upstreamFailed++;
    else c.skipped++;
  }
  return c;
}

/**
 * Decides a task's fate from its upstream outcomes.
 *
 * @example
 * evaluateTriggerRule('all_success', ['a', 'b'], { a: 'success' }); // 'wait'
 * evaluateTriggerRule('all_success', ['a', 'b'], { a: 'failed' });  // 'upstream_failed'
 */
export function evaluateTriggerRule(
  rule: TriggerRule,
  upstreamIds: readonly string[],
  recorded: Readonly<Record<string, UpstreamOutcome>>,
  /** A teardown's setups (direct upstreams), for `all_done_setup_success`. */
  setups: readonly string[] = [],
): RuleDecision {
  // A branch that did not choose this task skips it whatever the rule.
  for (const id of upstreamIds) if (recorded[id] === 'branch_skipped') return 'skip';
  if (upstreamIds.length === 0) return 'run';
  const c = count(upstreamIds, recorded);
  const allDone = c.done === c.total;
  const anyFailed = c.failed + c.upstreamFailed > 0;
  switch (rule) {
    case 'all_success':
      if (anyFailed) return 'upstream_failed';
      if (c.skipped > 0) return 'skip';
      return allDone ? 'run' : 'wait';
    case 'all_failed':
      if (c.success + c.skipped > 0) return 'skip';
      return allDone ? 'run' : 'wait';
    case 'all_done':
      return allDone ? 'run' : 'wait';
    case 'all_skipped':
      if (c.success + c.failed + c.upstreamFailed > 0) return 'skip';
      return allDone ? 'run' : 'wait';
    case 'one_success':
      if (c.success > 0) return 'run';
      if (!allDone) return 'wait';
      return c.skipped === c.total ? 'skip' : 'upstream_failed';
    case 'one_failed':
      if (anyFailed) return 'run';
      return allDone ? 'skip' : 'wait';
    case 'one_done':
      // Airflow skips (never upstream-fails) a one_done task whose upstreams all ended
      // without a success or a failure, upstream_failed ones included.
      if (c.success + c.failed > 0) return 'run';
      return allDone ? 'skip' : 'wait';
    case 'none_failed':
      if (anyFailed) return 'upstream_failed';
      return allDone ? 'run' : 'wait';
    case 'none_failed_min_one_success':
      if (anyFailed) return 'upstream_failed';
      if (!allDone) return 'wait';
      return c.skipped === c.total ? 'skip' : 'run';
    case 'none_skipped':
      if (c.skipped > 0) return 'skip';
      return allDone ? 'run' : 'wait';
    case 'always':
      return 'run';
    case 'all_done_setup_success':
      return teardownDecision(allDone, setups, recorded);
  }
}

/**
 * Airflow's ALL_DONE_SETUP_SUCCESS (TriggerRuleDep): once every upstream is done, a
 * teardown is skipped when all its setups were skipped, upstream-failed when none of them
 * succeeded, and runs otherwise, whatever the work between them did.
 */
function teardownDecision(allDone: boolean, setups: readonly string[], recorded: Readonly<Record<string, UpstreamOutcome>>): RuleDecision {
  if (!allDone) return 'wait';
  if (setups.length === 0) return 'run';
  const outcomes = setups.map((s) => recorded[s]);
  if (outcomes.every((o) => o === 'skipped' || o === 'branch_skipped')) return 'skip';
  return outcomes.some((o) => o === 'success') ? 'run' : 'upstream_failed';
}
