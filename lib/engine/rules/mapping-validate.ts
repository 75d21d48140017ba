/**
 * Build-time checks of `.expand(...)`, and the lookup of a mapped instance's spec.
 */
import type { DagSpec, MapSource, TaskSpec } from '../model/types.js';
import { namedSources, parseInstanceId } from './mapping-ids.js';
import { checkSource as checkReads } from './inputs.js';

/** The spec an instance id (`size#42`) runs under, when its task is mapped. */
export function instanceSpec(byId: ReadonlyMap<string, TaskSpec>, id: string): TaskSpec | undefined {
  const p = parseInstanceId(id);
  const t = p && byId.get(p.taskId);
  return t?.expand ? t : undefined;
}

/** Calls `fail` with one line on the first problem of a mapped task's expand. */
export function checkExpand(spec: DagSpec, t: TaskSpec, fail: (msg: string) => never): void {
  const e = t.expand!;
  if (t.kind !== 'task') fail(`expand is not supported on a ${t.kind} (map a plain task and put the ${t.kind} downstream of it)`);
  if (typeof e !== 'object' || e === null || (!('source' in e) && !('product' in e))) fail('expand must have a source or a product of sources');
  if ('product' in e && (typeof e.product !== 'object' || e.product === null || Object.keys(e.product).length === 0)) {
    fail('expand({...}) needs at least one named source');
  }
  if ('source' in e && e.kwargs !== undefined && e.kwargs !== true) fail('expand kwargs must be true or absent');
  for (const [name, s] of namedSources(e)) checkSource(spec, t, name, s, fail);
}

function checkSource(spec: DagSpec, t: TaskSpec, name: string, s: MapSource, fail: (msg: string) => never): void {
  const where = name ? `expand source "${name}"` : 'expand source';
  if (typeof s !== 'object' || s === null) fail(`${where} must be an array or a task handle`);
  if ('values' in s) {
    if (!Array.isArray(s.values)) fail(`${where} must be an array or a task handle`);
    return;
  }
  // A zip, or a task's output (or a property of it): rules/inputs.ts checks both ways of reading tasks.
  if ('zip' in s) return checkReads(spec, t, where, s, fail);
  if (!('task' in s) || !spec.tasks.some((o) => o.taskId === s.task)) fail(`${where} names task "${String((s as { task?: unknown }).task)}", which is not a task of this DAG`);
  if (!t.upstream.includes(s.task)) fail(`${where} is task "${s.task}", which must be upstream of "${t.taskId}" (expand adds that dependency)`);
  checkReads(spec, t, where, s, fail);
}
