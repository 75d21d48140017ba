/**
 * Authoring of the flow between tasks: `chain` and `chainLinear`, setup/teardown tasks and
 * short-circuits (their run-time semantics live in lib/engine/rules/setup-teardown.ts and
 * lib/engine/flow/short-circuit.ts).
 */
import { InvalidDagError } from '../engine/index.js';
import type { DagDraft } from './dag.js';
import { outputDraft } from './outputs.js';
import type { Linkable, ShortCircuitOptions, TaskFn, TaskHandle, TaskMethodFn, TeardownOptions } from './types.js';

/** One argument of `chain`/`chainLinear`: a task, a group, or a list of them. */
export type ChainItem = Linkable | readonly Linkable[];

/**
 * Airflow's `chain(*tasks)`: links each argument to the next. A task or group next to anything
 * links to all of it (`chain(a, [b, c], d)`: a before b and c, both before d); two lists next
 * to each other link **pairwise** (`chain(a, [b, c], [d, e])`: b before d, c before e) and must
 * have the same length. For every-to-every between lists use {@link chainLinear}.
 *
 * @example
 * chain(extract, [cleanA, cleanB], [loadA, loadB], report); // cleanA>loadA, cleanB>loadB
 * @throws InvalidDagError naming the DAG when two adjacent lists differ in length.
 */
export function chain(...items: ChainItem[]): void {
  const draft = draftOf('chain', items);
  if (!draft) return;
  for (let i = 0; i + 1 < items.length; i++) {
    const up = items[i];
    const down = items[i + 1];
    if (!Array.isArray(up) || !Array.isArray(down)) {
      draft.link(draft.ids([up], 'from'), draft.ids([down]));
      continue;
    }
    if (up.length !== down.length) {
      const list = (l: readonly Linkable[]) => `[${draft.ids(l).join(', ')}]`;
      draft.fail(`chain: lists next to each other link pairwise and need the same length, got ${up.length} ${list(up)} and ` +
        `${down.length} ${list(down)} (arguments ${i + 1} and ${i + 2}); chainLinear() links every task of one list to every task of the next`);
    }
    up.forEach((u: Linkable, k: number) => draft.link(draft.ids([u], 'from'), draft.ids([down[k]!])));
  }
}

/**
 * Airflow's `chain_linear(*elements)`: links every task of each argument to every task of the
 * next, lists included (`chainLinear(a, [b, c], [d, e, f], g)`: b and c each before d, e and f).
 *
 * @example
 * chainLinear(start, [extractA, extractB], [checkA, checkB, checkC], publish);
 * @throws InvalidDagError when it links nothing (fewer than two non-empty arguments).
 */
export function chainLinear(...items: ChainItem[]): void {
  const draft = draftOf('chainLinear', items);
  if (!draft) throw new InvalidDagError('chainLinear: no tasks given, nothing to link');
  let linked = false;
  for (let i = 0; i + 1 < items.length; i++) {
    const from = draft.ids([items[i]!], 'from');
    const to = draft.ids([items[i + 1]!]);
    if (from.length > 0 && to.length > 0) linked = true;
    draft.link(from, to);
  }
  if (!linked) draft.fail('chainLinear set no dependency: give it at least two tasks or lists (to link the tasks of one array in order, spread it: chainLinear(...tasks))');
}

/**
 * The DAG the arguments belong to, from the first handle among them (handles of another DAG
 * are refused later, by `ids`). Undefined when there is no argument at all.
 */
function draftOf(fn: string, items: readonly ChainItem[]): DagDraft | undefined {
  const all = items.flatMap((item) => (Array.isArray(item) ? (item as readonly unknown[]) : [item]));
  for (const x of all) {
    // A typed output (`extract()`) belongs to its task's DAG like the handle does.
    const draft = outputDraft(x) ?? (x as { draft?: DagDraft } | null)?.draft;
    if (draft && typeof draft.link === 'function') return draft;
  }
  if (all.length === 0) return undefined;
  const first = all[0];
  const what = typeof first === 'string' ? `"${first}" (a string; link the handle that task() returned)` : String(first);
  throw new InvalidDagError(`${fn}: ${what} is not a task handle`);
}

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
