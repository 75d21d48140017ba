/**
 * Short-circuit tasks (Airflow's ShortCircuitOperator, whose skip list comes from
 * `get_tasks_to_skip` in the standard provider): a truthy result lets everything
 * downstream proceed; a falsy one skips the direct downstreams (the branch machinery:
 * they are followed by nobody) and, with `ignoreDownstreamTriggerRules` (the default), every
 * task below, whatever its trigger rule. Teardowns are never skipped by a short-circuit.
 */
import { taskSpec, type RunCtx } from '../rules/dag-index.js';
import type { DagSpec, TaskSpec } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { isTerminal, type TaskState } from '../model/states.js';
import { createTask, keyOf, transition } from '../write/transition.js';

/**
 * The downstreams a short-circuit follows, as a branch's `chosen`: undefined (all of them)
 * for a truthy result; only its direct teardowns for a falsy one.
 *
 * @example
 * shortCircuitChosen(spec, gate, false); // [] (no teardown below): every direct downstream is skipped
 */
export function shortCircuitChosen(spec: DagSpec, t: TaskSpec, value: unknown): string[] | undefined {
  if (value) return undefined;
  return t.downstream.filter((d) => taskSpec(spec, d).teardown);
}

/** A short-circuit that ignores downstream trigger rules ended choosing (the caller calls {@link skipBelowShortCircuit} only then). */
export function skipsBelow(t: TaskSpec, state: TaskState, chosen: readonly string[] | undefined): boolean {
  return t.shortCircuit?.ignoreDownstreamTriggerRules === true && state === 'success' && chosen !== undefined;
}

/**
 * After a falsy short-circuit that ignores downstream trigger rules: skips every task below
 * it that has not started (teardowns excepted), before any outcome is passed on, so that no
 * `all_done` task below can run in between. Returns the tasks it skipped; the caller passes
 * their outcome on.
 */
export async function skipBelowShortCircuit(
  p: Ports,
  rc: RunCtx,
  taskId: string,
  state: TaskState,
  chosen: readonly string[] | undefined,
): Promise<string[]> {
  const t = taskSpec(rc.spec, taskId);
  if (!skipsBelow(t, state, chosen)) return [];
  const below = new Set<string>();
  const stack = [...t.downstream];
  while (stack.length) {
    const id = stack.pop()!;
    if (below.has(id)) continue;
    below.add(id);
    stack.push(...taskSpec(rc.spec, id).downstream);
  }
  const targets = [...below].filter((id) => !taskSpec(rc.spec, id).teardown);
  const skipped = await Promise.all(targets.map((id) => skipOne(p, rc, id)));
  return targets.filter((_, i) => skipped[i]);
}

async function skipOne(p: Ports, rc: RunCtx, taskId: string): Promise<boolean> {
  const t = taskSpec(rc.spec, taskId);
  const created = await createTask(p, rc, t, 'skipped');
  if (created.ok) return true;
  const ti = created.current ?? (await p.store.getTask(keyOf(rc, taskId)));
  if (!ti || ti.state !== 'scheduled' || isTerminal(ti.state)) return false;
  return (await transition(p, rc, ti, 'skipped')).ok;
}
