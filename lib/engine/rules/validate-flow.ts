/**
 * Validation of the flow features of a DAG spec: task groups, setup/teardown,
 * short-circuits, dependsOnPast and the run timeout. Called by validateDagSpec once the
 * edges are known to be consistent.
 */
import type { DagSpec, TaskSpec } from '../model/types.js';

type Fail = (msg: string, taskId?: string) => never;

/**
 * @example
 * checkFlow(spec, (msg, taskId) => { throw new Error(`${taskId}: ${msg}`); }, (id) => ID_PATTERN.test(id));
 */
export function checkFlow(spec: DagSpec, fail: Fail, isId: (id: string) => boolean): void {
  const t = spec.dagrunTimeoutMs;
  if (t !== undefined && !(typeof t === 'number' && Number.isFinite(t) && t > 0)) {
    fail(`invalid dagrunTimeout: expected a positive duration in ms, got ${JSON.stringify(t)}`);
  }
  const byId = new Map(spec.tasks.map((x) => [x.taskId, x]));
  for (const task of spec.tasks) checkTaskFlow(task, byId, isId, (msg) => fail(msg, task.taskId));
}

function checkTaskFlow(t: TaskSpec, byId: ReadonlyMap<string, TaskSpec>, isId: (id: string) => boolean, fail: (msg: string) => never): void {
  if (t.group !== undefined && !(typeof t.group === 'string' && isId(t.group))) fail(`invalid group id ${JSON.stringify(t.group)}`);
  if (t.setup !== undefined && t.setup !== true) fail(`setup must be true or absent, got ${JSON.stringify(t.setup)}`);
  if (t.dependsOnPast !== undefined && t.dependsOnPast !== true) fail(`dependsOnPast must be true or absent, got ${JSON.stringify(t.dependsOnPast)}`);
  if (t.shortCircuit !== undefined) {
    if (t.kind !== 'task') fail(`a ${t.kind} cannot be a short-circuit`);
    if (typeof t.shortCircuit?.ignoreDownstreamTriggerRules !== 'boolean') fail('shortCircuit.ignoreDownstreamTriggerRules must be a boolean');
  }
  if (t.triggerRule === 'all_done_setup_success' && !t.teardown) {
    fail('trigger rule all_done_setup_success is for teardown tasks only (use asTeardown({ setups }))');
  }
  const td = t.teardown;
  if (td === undefined) return;
  if (t.setup) fail('a task cannot be both a setup and a teardown');
  if (!td || !Array.isArray(td.setups) || td.setups.length === 0) fail('a teardown needs at least one setup: asTeardown({ setups: createTask })');
  if (typeof td.onFailureFailDagrun !== 'boolean') fail('teardown.onFailureFailDagrun must be a boolean');
  if (t.triggerRule !== 'all_done_setup_success') fail(`a teardown's trigger rule is all_done_setup_success, got ${t.triggerRule}`);
  for (const s of td.setups) {
    const setup = byId.get(s);
    if (!setup) fail(`teardown setup "${s}" is not a task of this DAG`);
    if (!setup.setup) fail(`teardown setup "${s}" is not marked as a setup`);
    if (!t.upstream.includes(s)) fail(`teardown setup "${s}" must be a direct upstream of the teardown`);
  }
}
