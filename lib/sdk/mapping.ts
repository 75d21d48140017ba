/**
 * `.expand(...)` on a task handle: dynamic task mapping (Airflow's `expand`). The sources
 * are recorded in the task's spec and each task source becomes an upstream; the engine
 * creates one instance per element at run time (lib/engine/mapping-expand.ts).
 */
import type { MapExpand, MapSource, TaskSpec } from '../engine/index.js';

export interface ExpandDraft {
  fail(message: string, taskId?: string): never;
  link(from: readonly string[], to: readonly string[]): void;
}

/**
 * Turns the argument of `.expand()` into the spec's `expand` and links each task source
 * upstream of the mapped task. `handleId` returns the task id of a handle of this DAG.
 */
export function applyExpand(
  draft: ExpandDraft,
  spec: Partial<TaskSpec>,
  taskId: string,
  source: unknown,
  handleId: (v: unknown) => string | undefined,
): void {
  if (spec.expand) draft.fail('expand() called twice (pass several sources as one object for a cross product)', taskId);
  const one = (v: unknown, name: string): MapSource => {
    if (Array.isArray(v)) return { values: [...v] };
    const id = handleId(v);
    if (id !== undefined) {
      if (id === taskId) draft.fail('a task cannot expand over its own XCom', taskId);
      draft.link([id], [taskId]);
      return { task: id };
    }
    return draft.fail(`expand${name ? ` source "${name}"` : ''} must be an array or a task handle, got ${describe(v)}`, taskId);
  };
  let expand: MapExpand;
  if (Array.isArray(source) || handleId(source) !== undefined) {
    expand = { source: one(source, '') };
  } else if (source && typeof source === 'object' && Object.getPrototypeOf(source) === Object.prototype) {
    const entries = Object.entries(source as Record<string, unknown>);
    if (entries.length === 0) draft.fail('expand({}) needs at least one named source', taskId);
    expand = { product: Object.fromEntries(entries.map(([k, v]) => [k, one(v, k)])) };
  } else {
    return draft.fail(`expand() takes an array, a task handle or an object of them, got ${describe(source)}`, taskId);
  }
  spec.expand = expand;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v)}`;
  return typeof v === 'object' ? 'an object that is not a task handle of this DAG' : `${typeof v} ${String(v)}`;
}
