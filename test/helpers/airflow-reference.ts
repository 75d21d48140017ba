/**
 * An independent reference for Airflow's trigger rules, written from the structure of
 * Airflow's `TriggerRuleDep._evaluate_direct_relatives` (airflow-core, 3.x): first the
 * state change it makes when `flag_upstream_failed` is set (SKIPPED / UPSTREAM_FAILED),
 * then whether the dependency passes. Tests compare the engine with it; it shares no
 * code with lib/engine/rules/trigger-rules.ts on purpose.
 */
import type { TriggerRule } from '../../lib/engine/index.js';

/** A finished upstream's state, or undefined while it is not done. */
export type RefOutcome = 'success' | 'failed' | 'skipped' | 'upstream_failed';
export type RefDecision = 'wait' | 'run' | 'skip' | 'upstream_failed';

/**
 * @example
 * airflowDecision('one_done', ['upstream_failed', 'skipped']); // 'skip'
 */
export function airflowDecision(rule: TriggerRule, outcomes: readonly (RefOutcome | undefined)[]): RefDecision {
  const upstream = outcomes.length;
  if (upstream === 0 || rule === 'always') return 'run';
  const n = (s: RefOutcome) => outcomes.filter((o) => o === s).length;
  const success = n('success');
  const failed = n('failed');
  const skipped = n('skipped');
  const upstreamFailed = n('upstream_failed');
  const done = success + failed + skipped + upstreamFailed;
  const upstreamDone = done >= upstream;

  let newState: 'skip' | 'upstream_failed' | undefined;
  switch (rule) {
    case 'all_success':
      if (upstreamFailed || failed) newState = 'upstream_failed';
      else if (skipped) newState = 'skip';
      break;
    case 'all_failed':
      if (success || skipped) newState = 'skip';
      break;
    case 'one_success':
      if (upstreamDone && done === skipped) newState = 'skip';
      else if (upstreamDone && success <= 0) newState = 'upstream_failed';
      break;
    case 'one_failed':
      if (upstreamDone && !(failed || upstreamFailed)) newState = 'skip';
      break;
    case 'one_done':
      if (upstreamDone && !(failed || success)) newState = 'skip';
      break;
    case 'none_failed':
      if (upstreamFailed || failed) newState = 'upstream_failed';
      break;
    case 'none_failed_min_one_success':
      if (upstreamFailed || failed) newState = 'upstream_failed';
      else if (skipped === upstream) newState = 'skip';
      break;
    case 'none_skipped':
      if (skipped) newState = 'skip';
      break;
    case 'all_skipped':
      if (success || failed || upstreamFailed) newState = 'skip';
      break;
    default:
      break;
  }
  if (newState) return newState;

  let passes: boolean;
  switch (rule) {
    case 'one_success': passes = success > 0; break;
    case 'one_failed': passes = failed > 0 || upstreamFailed > 0; break;
    case 'one_done': passes = success + failed > 0; break;
    case 'all_success': passes = upstream - success <= 0; break;
    case 'all_failed': passes = upstream - failed - upstreamFailed <= 0; break;
    case 'all_done': passes = upstreamDone; break;
    case 'none_failed':
    case 'none_failed_min_one_success': passes = upstream - success - skipped <= 0; break;
    case 'none_skipped': passes = upstreamDone && skipped === 0; break;
    case 'all_skipped': passes = upstream - skipped <= 0; break;
    default: passes = true;
  }
  return passes ? 'run' : 'wait';
}

/** The final state a task reaches from a decision made over its finished upstreams. */
export function finalStateOf(decision: RefDecision): 'run' | 'skipped' | 'upstream_failed' | 'never' {
  if (decision === 'skip') return 'skipped';
  if (decision === 'upstream_failed') return 'upstream_failed';
  if (decision === 'run') return 'run';
  return 'never';
}

/**
 * ALL_DONE_SETUP_SUCCESS as TriggerRuleDep decides it (airflow-core 3.x), where
 * `isSetup[i]` tells whether upstream i is a setup: once all upstreams are done, skipped
 * when every setup was skipped, upstream-failed when none succeeded, else run.
 *
 * @example
 * airflowTeardownDecision(['failed', 'success'], [true, false]); // 'upstream_failed'
 */
export function airflowTeardownDecision(outcomes: readonly (RefOutcome | undefined)[], isSetup: readonly boolean[]): RefDecision {
  const upstreamDone = outcomes.every((o) => o !== undefined);
  const setups = outcomes.filter((_, i) => isSetup[i]);
  const upstreamSetup = setups.length;
  const skippedSetup = setups.filter((o) => o === 'skipped').length;
  const successSetup = setups.filter((o) => o === 'success').length;
  if (upstreamDone && upstreamSetup && skippedSetup >= upstreamSetup) return 'skip';
  if (upstreamDone && upstreamSetup && successSetup === 0) return 'upstream_failed';
  return upstreamDone ? 'run' : 'wait';
}
