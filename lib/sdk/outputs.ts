/**
 * Output references of the typed TaskFlow style (ADR 0021): what calling a task handle
 * returns. An output is a Proxy, so that any property of the task's value can be read off
 * it (`e.rows`, Airflow's `xcom_arg["rows"]`); it knows the task (or zip) it comes from,
 * the XCom key and path it reads, and the `.map()` functions applied to it. It is never a
 * value: turning it into a string or a number throws a message that says so.
 */
import { InvalidDagError } from '../engine/index.js';
import type { DagDraft } from './dag.js';
import type { Linkable } from './types.js';

/** A `.map()` function: pure and synchronous, run where the value is consumed. */
export type MapFn = (item: unknown) => unknown;

/** What an output refers to. */
export type OutputNode =
  | { kind: 'task'; taskId: string; key?: string; path: string[]; fns: MapFn[] }
  | { kind: 'zip'; parts: OutputNode[]; fill?: { value: unknown }; fns: MapFn[] };

/** The node of an output (also across copies of this module: the symbol is global). */
const NODE = Symbol.for('airless.output.node');
const DRAFT = Symbol.for('airless.output.draft');

/** Properties an output answers itself instead of reading a key of the value. */
const OWN = new Set(['before', 'after', 'map', 'then']);

/** The node of `v` when it is an output of this DAG's draft (or of any, without `draft`). */
export function outputNode(v: unknown, draft?: DagDraft, taskId?: string): OutputNode | undefined {
  if ((typeof v !== 'object' && typeof v !== 'function') || v === null) return undefined;
  const node = (v as Record<symbol, unknown>)[NODE] as OutputNode | undefined;
  if (!node) return undefined;
  if (draft && (v as Record<symbol, unknown>)[DRAFT] !== draft) {
    draft.fail(`the output ${describeNode(node)} belongs to another DAG: a task reads outputs of its own DAG only`, taskId);
  }
  return node;
}

/** The draft an output belongs to. */
export function outputDraft(v: unknown): DagDraft | undefined {
  return outputNode(v) ? ((v as Record<symbol, unknown>)[DRAFT] as DagDraft) : undefined;
}

/** True when `v` is an output reference (of any DAG). */
export function isOutput(v: unknown): boolean {
  return outputNode(v) !== undefined;
}

/** The task ids an output reads. */
export function nodeTasks(node: OutputNode): string[] {
  return node.kind === 'task' ? [node.taskId] : [...new Set(node.parts.flatMap(nodeTasks))];
}

/** True when a `.map()` function applies somewhere in the node (the SDK's wrapper must run it). */
export function hasFns(node: OutputNode): boolean {
  return node.fns.length > 0 || (node.kind === 'zip' && node.parts.some(hasFns));
}

/** `extract().rows` as a message names it. */
export function describeNode(node: OutputNode): string {
  const maps = node.fns.map(() => '.map(fn)').join('');
  if (node.kind === 'zip') return `zip(${node.parts.map(describeNode).join(', ')})${maps}`;
  const key = node.key ? `.${node.key}` : '';
  return `${node.taskId}()${key}${node.path.map((p) => `.${p}`).join('')}${maps}`;
}

const NOT_A_VALUE = (node: OutputNode) => () => {
  throw new InvalidDagError(
    `${describeNode(node)} is a reference to a task's output, not its value: pass it as an input of a task and read the value there`,
  );
};

/**
 * The output reference of `node` in `draft`.
 *
 * @example
 * const e = outputOf(draft, { kind: 'task', taskId: 'extract', path: [], fns: [] });
 * outputNode(e.rows); // { kind: 'task', taskId: 'extract', key: 'rows', path: [], fns: [] }
 */
export function outputOf(draft: DagDraft, node: OutputNode): any {
  const target = Object.create(null) as Record<PropertyKey, unknown>;
  const links = {
    before: (...targets: Array<Linkable | readonly Linkable[]>) => draft.linkBefore(nodeTasks(node), targets),
    after(this: unknown, ...sources: Array<Linkable | readonly Linkable[]>) {
      draft.link(draft.ids(sources, 'from'), nodeTasks(node));
      return proxy;
    },
    map: (fn: MapFn) => {
      if (typeof fn !== 'function') draft.fail(`${describeNode(node)}.map() takes a function, got ${typeof fn}`);
      return outputOf(draft, { ...node, fns: [...node.fns, fn] } as OutputNode);
    },
  };
  const proxy: any = new Proxy(target, {
    get(_t, prop) {
      if (prop === NODE) return node;
      if (prop === DRAFT) return draft;
      if (prop === Symbol.toPrimitive) return NOT_A_VALUE(node);
      if (typeof prop === 'symbol') return undefined;
      if (prop === 'then') return undefined; // never a thenable: `await out` must not hang
      if (OWN.has(prop)) return links[prop as keyof typeof links];
      if (prop === 'toString' || prop === 'valueOf' || prop === 'toJSON') return NOT_A_VALUE(node);
      // A key of the value: read on its own (multiple_outputs), deeper keys walk into it.
      if (node.kind !== 'task' || node.fns.length > 0) return undefined;
      return outputOf(draft, node.key === undefined ? { ...node, key: prop } : { ...node, path: [...node.path, prop] });
    },
    set() {
      return draft.fail(`${describeNode(node)} is a reference to a task's output: it cannot be assigned to`);
    },
    has: (_t, prop) => prop === NODE || OWN.has(prop as string),
    ownKeys: () => [],
    getOwnPropertyDescriptor: () => undefined,
  });
  return proxy;
}
