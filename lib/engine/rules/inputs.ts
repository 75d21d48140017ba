/**
 * Typed TaskFlow, the pure part (ADR 0021): checking a task's `inputs` and mapped sources
 * in a manifest, zipping arrays, and walking a property path. The SDK writes valid specs;
 * these checks are for manifests written by hand or by another tool, and they name the
 * task and the input.
 */
import { KWARGS_ELEMENT, type DagSpec, type InputSource, type MapSource, type TaskSpec } from '../model/types.js';

type Fail = (msg: string) => never;

/** Task ids an input or a mapped source reads (a zip reads each of its parts). */
export function sourceTaskIds(s: InputSource | MapSource): string[] {
  if ('task' in s) return [s.task];
  if ('zip' in s) return s.zip.flatMap(sourceTaskIds);
  return [];
}

/**
 * Element i of a zip is the tuple of the arrays' i-th elements: as long as the shortest
 * array, or with `fill` as the longest, missing places holding `fill.value` (Airflow's
 * `zip(..., fillvalue=...)`).
 *
 * @example
 * zipArrays([[1, 2, 3], ['a', 'b']]);                  // [[1, 'a'], [2, 'b']]
 * zipArrays([[1, 2, 3], ['a', 'b']], { value: null }); // [[1, 'a'], [2, 'b'], [3, null]]
 */
export function zipArrays(arrays: readonly (readonly unknown[])[], fill?: { value: unknown }): unknown[][] {
  if (arrays.length === 0) return [];
  const lengths = arrays.map((a) => a.length);
  const n = fill ? Math.max(...lengths) : Math.min(...lengths);
  return Array.from({ length: n }, (_, i) => arrays.map((a) => (i < a.length ? a[i] : fill!.value)));
}

/**
 * Walks `path` into `value`; a missing step gives undefined (as a missing key of an
 * Airflow XCom dict does for `xcom_arg["key"]` on a value that lacks it... there it
 * raises: here the task gets undefined and its types said it might).
 *
 * @example
 * applyPath({ a: { b: 2 } }, ['a', 'b']); // 2
 */
export function applyPath(value: unknown, path: readonly string[] | undefined): unknown {
  let v = value;
  for (const step of path ?? []) {
    if (v === null || typeof v !== 'object') return undefined;
    v = Object.prototype.hasOwnProperty.call(v, step) ? (v as Record<string, unknown>)[step] : undefined;
  }
  return v;
}

/** Calls `fail` with one line on the first problem of a task's `inputs` and `outputKeys`. */
export function checkInputs(spec: DagSpec, t: TaskSpec, fail: Fail): void {
  if (t.outputKeys !== undefined) {
    if (!Array.isArray(t.outputKeys) || t.outputKeys.some((k) => typeof k !== 'string' || k === '' || k === 'return_value')) {
      fail('outputKeys must be a list of XCom keys other than return_value');
    }
  }
  if (t.inputs === undefined) return;
  if (typeof t.inputs !== 'object' || t.inputs === null || Array.isArray(t.inputs)) fail('inputs must be an object of named inputs');
  if (t.kind === 'sensor') fail('a sensor takes no inputs');
  for (const [name, s] of Object.entries(t.inputs)) {
    if (name === KWARGS_ELEMENT) fail(`"${KWARGS_ELEMENT}" is not a valid input name`);
    if (typeof s !== 'object' || s === null) fail(`input "${name}" must be { value }, { task } or { zip }`);
    if ('value' in s) continue;
    checkSource(spec, t, `input "${name}"`, s, fail);
  }
  const e = t.expand;
  if (e && 'product' in e) {
    const both = Object.keys(e.product).filter((k) => Object.prototype.hasOwnProperty.call(t.inputs, k));
    if (both.length) fail(`input "${both[0]}" is both a fixed input (partial) and an expanded one: give it once`);
  }
}

/** Checks one source that reads other tasks: each an upstream of `t`, keys and paths strings, zips non-empty. */
export function checkSource(spec: DagSpec, t: TaskSpec, where: string, s: MapSource | InputSource, fail: Fail): void {
  if ('zip' in s) {
    if (!Array.isArray(s.zip) || s.zip.length === 0) fail(`${where}: a zip needs at least one source`);
    if (s.fill !== undefined && (typeof s.fill !== 'object' || s.fill === null || !('value' in s.fill))) fail(`${where}: a zip's fill must be { value }`);
    s.zip.forEach((part, i) => {
      if (typeof part !== 'object' || part === null) fail(`${where}: zip part ${i} must be an array or a task output`);
      if ('values' in part) {
        if (!Array.isArray(part.values)) fail(`${where}: zip part ${i} must be an array or a task output`);
      } else checkSource(spec, t, `${where} (zip part ${i})`, part, fail);
    });
    return;
  }
  if (!('task' in s) || typeof s.task !== 'string') return fail(`${where} must name a task ({ task })`);
  if (!spec.tasks.some((o) => o.taskId === s.task)) fail(`${where} reads task "${s.task}", which is not a task of this DAG`);
  if (s.task === t.taskId) fail(`${where} reads the task's own output`);
  if (!t.upstream.includes(s.task)) fail(`${where} reads task "${s.task}", which must be upstream of "${t.taskId}" (an input adds that dependency)`);
  if (s.key !== undefined && (typeof s.key !== 'string' || s.key === '')) fail(`${where}: key must be a non-empty string`);
  if (s.path !== undefined && (!Array.isArray(s.path) || s.path.some((p) => typeof p !== 'string'))) fail(`${where}: path must be a list of strings`);
}
