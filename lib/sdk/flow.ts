/**
 * Authoring of setup/teardown tasks and short-circuits (their run-time semantics live in
 * lib/engine/setup-teardown.ts and lib/engine/short-circuit.ts).
 */
import type { DagDraft } from './dag.js';
import type { ShortCircuitOptions, TaskFn, TaskHandle, TaskMethodFn, TeardownOptions } from './types.js';

/** Airflow's `as_setup()`. */
export function markSetup(draft: DagDraft, taskId: string): void {
  const spec = draft.tasks.get(taskId)!.spec;
  if (spec.teardown) draft.fail('a task cannot be both a setup and a teardown', taskId);
  spec.setup = true;
}

/**
 * Airflow's `as_teardown(setups=…, on_failure_fail_dagrun=…)`: the setups become setups and
 * upstream of the teardown, whose trigger rule becomes `all_done_setup_success`.
 */
export function markTeardown(draft: DagDraft, taskId: string, options: TeardownOptions): void {
  const o = options ?? ({} as TeardownOptions);
  const list = o.setups === undefined ? [] : Array.isArray(o.setups) ? (o.setups as readonly TaskHandle[]) : [o.setups as TaskHandle];
  if (list.length === 0) draft.fail('a teardown needs at least one setup: asTeardown({ setups: createTask })', taskId);
  if (o.onFailureFailDagrun !== undefined && typeof o.onFailureFailDagrun !== 'boolean') {
    draft.fail(`onFailureFailDagrun must be a boolean, got ${JSON.stringify(o.onFailureFailDagrun)}`, taskId);
  }
  const setups = draft.ids(list, 'from');
  if (setups.includes(taskId)) draft.fail('a teardown cannot be its own setup', taskId);
  const spec = draft.tasks.get(taskId)!.spec;
  if (spec.setup) draft.fail('a task cannot be both a setup and a teardown', taskId);
  for (const s of setups) markSetup(draft, s);
  const before = spec.teardown?.setups ?? [];
  spec.teardown = { setups: [...new Set([...before, ...setups])].sort(), onFailureFailDagrun: o.onFailureFailDagrun ?? false };
  spec.triggerRule = 'all_done_setup_success';
  draft.link(setups, [taskId]);
}

/** `shortCircuit(id, fn, opts)`: a task whose falsy result skips downstream. */
export function shortCircuitTask(draft: DagDraft, taskId: string, body: TaskFn<any>, opts: ShortCircuitOptions = {}): TaskHandle {
  if (typeof body !== 'function') draft.fail('a shortCircuit body must be a function', taskId);
  const ignore = opts.ignoreDownstreamTriggerRules ?? true;
  if (typeof ignore !== 'boolean') draft.fail(`ignoreDownstreamTriggerRules must be a boolean, got ${JSON.stringify(ignore)}`, taskId);
  const { ignoreDownstreamTriggerRules: _, ...rest } = opts;
  return draft.add(taskId, 'task', { execute: body as TaskMethodFn }, rest, { shortCircuit: { ignoreDownstreamTriggerRules: ignore } });
}
