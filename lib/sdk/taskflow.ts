/**
 * Typed TaskFlow at build time (ADR 0021): calling a task handle with its inputs, and
 * `partial/expand/expandKwargs` with outputs as sources. Each records the task's `inputs`
 * (or `expand`) in its spec, links every task an input reads upstream of it, and returns
 * the task's output. What a `.map()` function or a property read needs at run time is
 * kept per task for the wrapper (taskflow-run.ts).
 *
 * Refused here, naming the DAG and the task (the build adds the file): calling a handle
 * twice (or calling and expanding it), an input that is neither an output nor a JSON
 * literal, an output hidden inside a literal, a cycle made through inputs, and a `partial`
 * input that is also expanded.
 */
import { KWARGS_ELEMENT, type InputSource, type MapExpand, type MapSource, type TaskSpec } from '../engine/index.js';
import type { DagDraft } from './dag.js';
import { describeNode, hasFns, nodeTasks, outputNode, outputOf, type OutputNode } from './outputs.js';
import { jsonProblem } from './json-literal.js';

/** How a task was placed, and what its wrapper applies at run time. */
export interface FlowRecord {
  placed?: 'called' | 'expanded';
  /** Inputs whose value passes through `.map()` functions: each element of an array (`each`), or the mapped element itself. */
  transforms: Array<{ name: string; node: OutputNode; each: boolean }>;
  /** A single-source expand whose source has `.map()` functions: applied to the element (the whole argument). */
  positional?: OutputNode;
  /** `expandKwargs`: the node of its source (for `.map()`), and the fixed inputs an element must not set again. */
  kwargs?: { node?: OutputNode; fixed: string[] };
}

const records = new WeakMap<DagDraft, Map<string, FlowRecord>>();

/** The TaskFlow record of a task (created empty). */
export function flowRecord(draft: DagDraft, taskId: string): FlowRecord {
  let m = records.get(draft);
  if (!m) records.set(draft, (m = new Map()));
  let r = m.get(taskId);
  if (!r) m.set(taskId, (r = { transforms: [] }));
  return r;
}

type Spec = Partial<TaskSpec> & { taskId: string; kind: TaskSpec['kind'] };

function specOf(draft: DagDraft, taskId: string): Spec {
  return draft.tasks.get(taskId)!.spec as Spec;
}

/** Refuses a second placement of a task: a task has one place in the DAG. */
function place(draft: DagDraft, taskId: string, how: 'called' | 'expanded'): FlowRecord {
  if (!draft.open) draft.fail(`task "${taskId}" was ${how} after dag() returned`, taskId);
  const r = flowRecord(draft, taskId);
  const before = r.placed ?? (specOf(draft, taskId).expand ? 'expanded' : undefined);
  if (before) {
    const what = before === how ? `${how === 'called' ? 'called' : 'expanded'} twice` : `${how} after it was ${before}`;
    draft.fail(`is ${what}: a task has one place in the DAG, so call (or expand) it once and reuse its output`, taskId);
  }
  r.placed = how;
  return r;
}

/** The task's own output. */
function own(draft: DagDraft, taskId: string): any {
  return outputOf(draft, { kind: 'task', taskId, path: [], fns: [] });
}

/** Links `from` upstream of `to`, refusing an edge that closes a cycle (and naming it). */
function linkInput(draft: DagDraft, from: readonly string[], to: string, what: string): void {
  for (const u of from) {
    const path = pathBetween(draft, to, u);
    if (path) draft.fail(`${what} reads task "${u}", which is downstream of "${to}": that makes a cycle ${[...path, to].join(' -> ')}`, to);
  }
  draft.link(from, [to]);
}

/** A path of edges from `a` to `b` (a, ..., b), or undefined. */
function pathBetween(draft: DagDraft, a: string, b: string): string[] | undefined {
  const prev = new Map<string, string>([[a, '']]);
  const queue = [a];
  while (queue.length) {
    const id = queue.shift()!;
    if (id === b) {
      const out = [b];
      for (let p = prev.get(b)!; p; p = prev.get(p)!) out.unshift(p);
      return out;
    }
    for (const d of draft.edges.get(id) ?? []) if (!prev.has(d)) prev.set(d, id), queue.push(d);
  }
  return undefined;
}

/** The manifest form of an output's node; its tasks are linked upstream of `taskId`. */
function sourceOf(draft: DagDraft, taskId: string, node: OutputNode, what: string): InputSource & MapSource {
  if (node.kind === 'zip') {
    const zip = node.parts.map((p) => sourceOf(draft, taskId, p, what));
    return node.fill ? { zip, fill: { value: node.fill.value } } : { zip };
  }
  if (node.taskId === taskId) draft.fail(`${what} is the task's own output`, taskId);
  linkInput(draft, [node.taskId], taskId, what);
  if (node.key !== undefined) markOutputKey(draft, node.taskId, node.key);
  return { task: node.taskId, ...(node.key !== undefined ? { key: node.key } : {}), ...(node.path.length ? { path: [...node.path] } : {}) };
}

/** A property a task reads: the producer stores that key of its value as its own XCom. */
function markOutputKey(draft: DagDraft, producer: string, key: string): void {
  if (key === 'return_value') draft.fail(`the key "return_value" of its output cannot be read on its own: it is the whole value`, producer);
  const spec = specOf(draft, producer);
  if (spec.kind === 'sensor') draft.fail('a sensor has no output to read a key of', producer);
  const keys = new Set(spec.outputKeys ?? []);
  keys.add(key);
  spec.outputKeys = [...keys].sort();
}

/** One input: a JSON literal as written, or an output (linked, with its `.map()` functions recorded). */
function inputOf(draft: DagDraft, taskId: string, name: string, value: unknown, record: FlowRecord): InputSource {
  const what = `input "${name}"`;
  if (name === KWARGS_ELEMENT) draft.fail(`"${KWARGS_ELEMENT}" is not a valid input name`, taskId);
  const node = outputNode(value, draft, taskId);
  if (node) {
    if (hasFns(node)) record.transforms.push({ name, node, each: true });
    return sourceOf(draft, taskId, node, what);
  }
  const handle = typeof value === 'function' ? (value as unknown as { taskId?: unknown }).taskId : undefined;
  if (handle !== undefined) {
    draft.fail(`${what} is the task handle "${String(handle)}", not its output: call it (${String(handle)}()) and pass what the call returns`, taskId);
  }
  const problem = jsonProblem(value, isHidden);
  if (problem) draft.fail(`${what} ${problem}`, taskId);
  return { value: structuredClone(value) };
}

const isHidden = (v: unknown): string | undefined => {
  const node = outputNode(v);
  return node ? describeNode(node) : undefined;
};

/** The inputs object of a call, checked. */
function inputsOf(draft: DagDraft, taskId: string, inputs: unknown, record: FlowRecord): Record<string, InputSource> {
  if (inputs === undefined) return {};
  if (inputs === null || typeof inputs !== 'object' || Array.isArray(inputs) || outputNode(inputs) || Object.getPrototypeOf(inputs) !== Object.prototype) {
    draft.fail(`takes one object of named inputs, as ${taskId}({ name: value }); got ${outputNode(inputs) ? 'an output (name it: { rows: extract() })' : Array.isArray(inputs) ? 'an array' : inputs === null ? 'null' : typeof inputs}`, taskId);
  }
  const out: Record<string, InputSource> = {};
  for (const [name, v] of Object.entries(inputs as Record<string, unknown>)) {
    if (v === undefined) continue; // an optional input left out
    out[name] = inputOf(draft, taskId, name, v, record);
  }
  return out;
}

/**
 * `handle(inputs)`: places the task with its inputs and returns its output.
 *
 * @example
 * const total = callTask(draft, 'double', [{ n: e.rows }]);
 */
export function callTask(draft: DagDraft, taskId: string, args: readonly unknown[]): any {
  const record = place(draft, taskId, 'called');
  if (args.length > 1) draft.fail(`takes one object of named inputs, got ${args.length} arguments`, taskId);
  const spec = specOf(draft, taskId);
  if (spec.kind === 'sensor' && args[0] !== undefined) draft.fail('a sensor takes no inputs', taskId);
  spec.inputs = inputsOf(draft, taskId, args[0], record);
  return own(draft, taskId);
}

/** A source of `expand`: a literal array, an output, or (old style) a task handle. */
function expandSource(draft: DagDraft, taskId: string, name: string, v: unknown, handleId: (v: unknown) => string | undefined): { source: MapSource; node?: OutputNode } {
  const where = name ? `expand source "${name}"` : 'expand source';
  const node = outputNode(v, draft, taskId);
  if (node) return { source: sourceOf(draft, taskId, node, where), node };
  const id = handleId(v);
  if (id !== undefined) {
    if (id === taskId) draft.fail('a task cannot expand over its own XCom', taskId);
    linkInput(draft, [id], taskId, where);
    return { source: { task: id } };
  }
  if (Array.isArray(v)) {
    const problem = jsonProblem(v, isHidden);
    if (problem) draft.fail(`${where} ${problem}`, taskId);
    return { source: { values: structuredClone(v) } };
  }
  return draft.fail(`${where} must be an array, a task's output or a task handle, got ${describe(v)}`, taskId);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v)}`;
  return typeof v === 'object' ? 'an object that is not a task handle of this DAG' : `${typeof v} ${String(v)}`;
}

/** How `expandTask` was asked to map. */
export type ExpandMode = { kind: 'expand'; fixed?: Record<string, unknown> } | { kind: 'kwargs'; fixed?: Record<string, unknown> };

/**
 * `handle.expand(...)`, `handle.partial(fixed).expand(...)` and `.expandKwargs(...)`: records
 * the spec's `expand` (and the fixed inputs), links the sources, and returns the mapped
 * output (the instances' results in map-index order).
 */
export function expandTask(draft: DagDraft, taskId: string, source: unknown, mode: ExpandMode, handleId: (v: unknown) => string | undefined): any {
  const spec = specOf(draft, taskId);
  if (spec.kind !== 'task') draft.fail(`expand is not supported on a ${spec.kind} (map a plain task and put the ${spec.kind} downstream of it)`, taskId);
  if (spec.expand) draft.fail('expand() called twice (pass several sources as one object for a cross product)', taskId);
  const record = place(draft, taskId, 'expanded');
  const fixed = mode.fixed === undefined ? undefined : inputsOf(draft, taskId, mode.fixed, record);
  let expand: MapExpand;
  if (mode.kind === 'kwargs') {
    const s = expandSource(draft, taskId, '', source, handleId);
    expand = { source: s.source, kwargs: true };
    record.kwargs = { ...(s.node && hasFns(s.node) ? { node: s.node } : {}), fixed: Object.keys(fixed ?? {}) };
  } else if (Array.isArray(source) || outputNode(source) || handleId(source) !== undefined) {
    if (fixed) draft.fail('partial(...).expand() takes named sources: expand({ name: source })', taskId);
    const s = expandSource(draft, taskId, '', source, handleId);
    if (s.node && hasFns(s.node)) record.positional = s.node;
    expand = { source: s.source };
  } else if (source && typeof source === 'object' && Object.getPrototypeOf(source) === Object.prototype) {
    const entries = Object.entries(source as Record<string, unknown>);
    if (entries.length === 0) draft.fail('expand({}) needs at least one named source', taskId);
    const twice = entries.find(([k]) => fixed && Object.prototype.hasOwnProperty.call(fixed, k));
    if (twice) draft.fail(`input "${twice[0]}" is given by partial() and expanded too: give it once`, taskId);
    const product: Record<string, MapSource> = {};
    for (const [k, v] of entries) {
      const s = expandSource(draft, taskId, k, v, handleId);
      if (s.node && hasFns(s.node)) record.transforms.push({ name: k, node: s.node, each: false });
      product[k] = s.source;
    }
    expand = { product };
  } else {
    return draft.fail(`expand() takes an array, a task handle or an object of them, got ${describe(source)}`, taskId);
  }
  spec.expand = expand;
  // expandKwargs always has inputs (none fixed: {}), so the engine hands each element over
  // under KWARGS_ELEMENT and the wrapper applies the source's .map() before unpacking it.
  if (fixed || mode.kind === 'kwargs') spec.inputs = fixed ?? {};
  return own(draft, taskId);
}

/**
 * `zip(a, b, ...)` of outputs or literal arrays (Airflow's `XComArg.zip`): element i is the
 * tuple of the i-th elements; with a last argument `{ fillValue }` as long as the longest.
 */
export function zipNode(draft: DagDraft, args: readonly unknown[]): OutputNode {
  const last = args[args.length - 1];
  const hasFill = args.length > 0 && last !== null && typeof last === 'object' && !Array.isArray(last) && !outputNode(last);
  const parts = hasFill ? args.slice(0, -1) : args;
  if (parts.length === 0) draft.fail('zip() needs at least one source');
  const nodes = parts.map((p, i): OutputNode => {
    const node = outputNode(p, draft);
    if (node) return node;
    draft.fail(`zip() argument ${i + 1} must be a task's output, got ${Array.isArray(p) ? 'an array (zip outputs; a literal array goes in expand as it is)' : describe(p)}`);
  });
  if (!hasFill) return { kind: 'zip', parts: nodes, fns: [] };
  const fill = (last as { fillValue?: unknown }).fillValue;
  const problem = jsonProblem(fill, isHidden);
  if (problem) draft.fail(`zip() fillValue ${problem}`);
  return { kind: 'zip', parts: nodes, fill: { value: fill ?? null }, fns: [] };
}

export { nodeTasks };
