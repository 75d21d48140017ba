/**
 * Setup and teardown tasks, with Airflow 3's semantics (airflow-core models/dagrun.py
 * `_tis_for_dagrun_state`, sdk `get_upstreams_only_setups_and_teardowns`, TriggerRuleDep's
 * ALL_DONE_SETUP_SUCCESS in trigger-rules.ts):
 * - a teardown waits for all its upstreams (its setups and the work between) and runs when
 *   at least one of its setups succeeded, whatever the work did;
 * - a teardown does not speak for the run: a task whose only downstreams are such
 *   teardowns is a leaf for the run's state, the teardown is not (unless it has
 *   `onFailureFailDagrun`);
 * - clearing a task also clears its relevant setups and their teardowns.
 */
import type { DagSpec, TaskSpec } from './model.js';

const leavesCache = new WeakMap<DagSpec, ReadonlySet<string>>();

/**
 * The tasks whose state decides the run's (Airflow's effective leaves): a task none of
 * whose downstreams counts, a teardown counting only with `onFailureFailDagrun`. A DAG of
 * teardowns only falls back to its plain leaves.
 *
 * @example
 * runStateLeaves(spec).has('work'); // true for create >> work >> drop (drop a teardown)
 */
export function runStateLeaves(spec: DagSpec): ReadonlySet<string> {
  let leaves = leavesCache.get(spec);
  if (leaves) return leaves;
  const byId = new Map(spec.tasks.map((t) => [t.taskId, t]));
  const counts = (t: TaskSpec) => !t.teardown || t.teardown.onFailureFailDagrun;
  const effective = spec.tasks.filter((t) => counts(t) && t.downstream.every((d) => !counts(byId.get(d)!)));
  const chosen = effective.length > 0 ? effective : spec.tasks.filter((t) => t.downstream.length === 0);
  leaves = new Set(chosen.map((t) => t.taskId));
  leavesCache.set(spec, leaves);
  return leaves;
}

/**
 * Adds to a set of tasks being cleared the setups they need and the teardowns of those
 * setups, as Airflow's clear does: for a plain task, each upstream setup that has no
 * teardown or has one downstream of the task; for a setup, its teardowns.
 *
 * @example
 * withSetupsAndTeardowns(spec, new Set(['work'])); // Set { 'work', 'create', 'drop' }
 */
export function withSetupsAndTeardowns(spec: DagSpec, ids: ReadonlySet<string>): Set<string> {
  const out = new Set(ids);
  if (!spec.tasks.some((t) => t.setup)) return out;
  const byId = new Map(spec.tasks.map((t) => [t.taskId, t]));
  const teardownsOf = (s: TaskSpec) => s.downstream.filter((d) => byId.get(d)!.teardown);
  for (const id of ids) {
    const t = byId.get(id);
    if (!t) continue;
    if (t.setup) for (const d of teardownsOf(t)) out.add(d);
    if (t.setup || t.teardown) continue;
    const below = new Set([...walk(byId, [id], 'downstream')].filter((d) => d !== id && byId.get(d)!.teardown));
    for (const u of walk(byId, [id], 'upstream')) {
      const s = byId.get(u)!;
      if (u === id || !s.setup) continue;
      const tds = teardownsOf(s);
      if (tds.length > 0 && !tds.some((d) => below.has(d))) continue;
      out.add(u);
      for (const d of tds) out.add(d);
    }
  }
  return out;
}

function walk(byId: ReadonlyMap<string, TaskSpec>, from: readonly string[], way: 'upstream' | 'downstream'): Set<string> {
  const out = new Set<string>();
  const stack = [...from];
  while (stack.length) {
    const id = stack.pop()!;
    if (out.has(id)) continue;
    out.add(id);
    stack.push(...(byId.get(id)?.[way] ?? []));
  }
  return out;
}
