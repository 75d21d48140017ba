/**
 * Edge labels (Airflow's `Label`, sdk/definitions/edges.py): `a.before(b, { label: 'yes' })`
 * or `b.after(a, { label: 'yes' })` labels every edge that call makes. An options object
 * last in the call, rather than Airflow's `a >> Label('yes') >> b`, because TypeScript has
 * no `>>` to overload and `before`/`after` already are the edge: the label is one more
 * property of it, checked by the type of `before`. Serialized as `DagSpec.edgeLabels`
 * (upstream → downstream → label, as Airflow's `edge_info`).
 */
import type { DagSpec } from '../engine/index.js';
import type { Linkable } from './types.js';

/** The options of one `before`/`after` call: its edges' label. */
export interface EdgeOptions {
  /** Shown on the edge in the graph view (Airflow's `Label`). */
  label: string;
}

/** One argument of `before`/`after`: a link end, a list of them, or (last) the edge options. */
export type LinkArg = Linkable | readonly Linkable[] | EdgeOptions;

/**
 * The link ends of a `before`/`after` call and its edge options, when its last argument is one.
 *
 * @example
 * splitEdgeOptions([b, { label: 'yes' }]); // { ends: [b], label: 'yes' }
 */
export function splitEdgeOptions<T>(args: readonly T[], isEnd: (x: unknown) => boolean): { ends: T[]; label?: string } {
  const last = args[args.length - 1];
  if (args.length < 2 || !isEdgeOptions(last, isEnd)) return { ends: [...args] };
  return { ends: args.slice(0, -1), label: (last as unknown as EdgeOptions).label };
}

function isEdgeOptions(x: unknown, isEnd: (x: unknown) => boolean): boolean {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && Object.getPrototypeOf(x) === Object.prototype && 'label' in x && !isEnd(x);
}

/**
 * The spec field of a draft's labels, keyed `upstream\u0000downstream`; none without labels.
 *
 * @example
 * edgeLabelsField(new Map([['a\u0000b', 'yes']])); // { edgeLabels: { a: { b: 'yes' } } }
 */
export function edgeLabelsField(labels: ReadonlyMap<string, string>): Pick<DagSpec, 'edgeLabels'> {
  if (labels.size === 0) return {};
  const out: Record<string, Record<string, string>> = {};
  for (const [key, label] of [...labels].sort(([x], [y]) => (x < y ? -1 : 1))) {
    const [a, b] = key.split('\u0000');
    (out[a] ??= {})[b] = label;
  }
  return { edgeLabels: out };
}
