/**
 * Typed TaskFlow in the manifest (issue 23, ADR 0021): what a task receives as its
 * inputs, and where mapped elements come from. The SDK writes these when a task handle is
 * called (`report({ total: double({ n: e.rows }) })`); the worker resolves them before the
 * try (lib/engine/flow/inputs.ts). Everything here is JSON.
 */

/**
 * Another task's output, or a part of it. `key` reads that XCom key instead of
 * `return_value` (a property the DAG reads, stored on its own: Airflow's multiple_outputs);
 * `path` then walks into the value (`e.rows.first` is key `rows`, path `['first']`).
 */
export interface OutputSource {
  task: string;
  key?: string;
  path?: string[];
}

/**
 * Several array sources read side by side (Airflow's `XComArg.zip`): element i is the
 * tuple of the sources' i-th elements. Without `fill` it is as long as the shortest
 * source; with `fill` as the longest, the missing places holding `fill.value`.
 */
export interface ZipSource {
  zip: MapSource[];
  fill?: { value: unknown };
}

/** Where a mapped task's elements come from (mapping-ids.ts); `values` is a literal array. */
export type MapSource = { values: unknown[] } | OutputSource | ZipSource;

/**
 * One source (`expand(list)`), or named sources whose cross product is mapped
 * (`expand({ x, y })`). `kwargs`: each element of the one source is an object of inputs
 * (Airflow's `expand_kwargs`).
 */
export type MapExpand = { source: MapSource; kwargs?: true } | { product: Record<string, MapSource> };

/** One input of a task: a literal (`value`, JSON as written) or a source resolved at run time. */
export type InputSource = { value: unknown } | OutputSource | ZipSource;

/**
 * The name under which a mapped instance of an `expandKwargs` task receives its element
 * beside the task's other inputs; the SDK merges it in after applying `.map()` functions.
 * Never a valid input name (the SDK refuses it).
 */
export const KWARGS_ELEMENT = '*';
