/**
 * Setup and teardown tasks, with Airflow 3's semantics (airflow-core models/dagrun.py
 * `_tis_for_dagrun_state`, sdk `get_upstreams_only_setups_and_teardowns`, TriggerRuleDep's
 * ALL_DONE_SETUP_SUCCESS in trigger-rules.ts):
 * - a teardown waits for all its upstreams (its setups and the work between) and runs when
 *   at least one of its setups succeeded, whatever the work did;
 * - a teardown does not speak for the run: a task whose only downstreams are such
 *   teardowns is a leaf for the run's state, the teardown is not (unless it has
 *   `onFailureFailDagrun`);
 * - clearing a task also clears its relevant setups and their teardowns;
 * - a task in a setup's scope is upstream-failed (skipped) when that setup failed (was
 *   skipped), whatever its trigger rule (TriggerRuleDep `_evaluate_setup_constraint`).
 */
import { downstreamClosure, upstreamClosure, type RunCtx } from './dag-index.js';
import type { DagSpec, TaskSpec } from '../model/types.js';
import type { Ports } from '../model/ports.js';

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
    const below = new Set([...downstreamClosure(spec, [id])].filter((d) => d !== id && byId.get(d)!.teardown));
    for (const u of upstreamClosure(spec, [id])) {
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

const indirectCache = new WeakMap<DagSpec, Map<string, string[]>>();
const setupsCache = new WeakMap<DagSpec, boolean>();

/** True when the DAG has a setup task (cached: asked for every task decided). */
function hasSetups(spec: DagSpec): boolean {
  let v = setupsCache.get(spec);
  if (v === undefined) setupsCache.set(spec, (v = spec.tasks.some((x) => x.setup)));
  return v;
}

/**
 * The setups a task is in the scope of without being their direct downstream (Airflow's
 * `get_upstreams_only_setups` less the direct upstreams): an upstream setup that has no
 * teardown, or one downstream of the task. Teardowns have none.
 */
export function indirectSetups(spec: DagSpec, t: TaskSpec): readonly string[] {
  let m = indirectCache.get(spec);
  if (!m) {
    m = new Map();
    indirectCache.set(spec, m);
  }
  let out = m.get(t.taskId);
  if (out) return out;
  out = [];
  if (!t.teardown && hasSetups(spec)) {
    const byId = new Map(spec.tasks.map((x) => [x.taskId, x]));
    const below = downstreamClosure(spec, [t.taskId]);
    for (const u of upstreamClosure(spec, [t.taskId])) {
      const s = byId.get(u)!;
      if (u === t.taskId || !s.setup || t.upstream.includes(u)) continue;
      const tds = s.downstream.filter((d) => byId.get(d)!.teardown);
      if (tds.length === 0 || tds.some((d) => d !== t.taskId && below.has(d))) out.push(u);
    }
    out.sort();
  }
  m.set(t.taskId, out);
  return out;
}

/**
 * Airflow's setup constraint (TriggerRuleDep `_evaluate_setup_constraint`): a task in the
 * scope of a setup that failed is upstream-failed, of one that was skipped is skipped,
 * whatever its own trigger rule; it waits while such a setup is unfinished. Undefined when
 * the constraint leaves the decision to the trigger rule.
 */
export function setupConstraint(states: ReadonlyArray<string | undefined>): 'wait' | 'skip' | 'upstream_failed' | undefined {
  if (states.some((s) => s === undefined || !['success', 'failed', 'skipped', 'upstream_failed', 'removed'].includes(s))) return 'wait';
  if (states.some((s) => s === 'failed' || s === 'upstream_failed')) return 'upstream_failed';
  if (states.some((s) => s === 'skipped')) return 'skip';
  return undefined;
}

/** The task is in a setup's scope (the caller asks {@link setupScopeDecision} only then). */
export function inSetupScope(spec: DagSpec, t: TaskSpec): boolean {
  return indirectSetups(spec, t).length > 0;
}

/**
 * The setup constraint of a task of a run, read from its indirect setups' instances
 * (a read each, only for tasks in a setup's scope).
 */
export async function setupScopeDecision(p: Ports, rc: RunCtx, t: TaskSpec): Promise<'wait' | 'skip' | 'upstream_failed' | undefined> {
  if (!inSetupScope(rc.spec, t)) return undefined;
  const setups = indirectSetups(rc.spec, t);
  const tis = await Promise.all(setups.map((s) => p.store.getTask({ dagId: rc.run.dagId, runId: rc.run.runId, taskId: s })));
  return setupConstraint(tis.map((ti) => ti?.state));
}
