/**
 * Typed TaskFlow at run time (ADR 0021), inside the try: the engine hands the task its
 * resolved inputs (lib/engine/flow/inputs.ts); this wrapper around the author's function
 * applies what only bundle code can do, then calls it:
 * - `.map()` functions, where the value is consumed (Airflow's XComArg.map): on each
 *   element of an input, or on a mapped instance's own element;
 * - an `expandKwargs` element: mapped, checked to be an object, merged over the fixed inputs.
 * (The keys of the result other tasks read are stored by the engine: flow/inputs.ts.)
 */
import { KWARGS_ELEMENT } from '../engine/index.js';
import type { TaskContext } from '../engine/index.js';
import type { DagDraft } from './dag.js';
import { describeNode, type OutputNode } from './outputs.js';
import { flowRecord, type FlowRecord } from './taskflow.js';

type Body = (ctx: TaskContext, arg: unknown) => unknown;

const kindOf = (v: unknown): string =>
  v === undefined ? 'nothing' : v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/** Applies a node's `.map()` functions to one element (a zip's parts first, each on its place of the tuple). */
function applyElement(node: OutputNode, element: unknown): unknown {
  let v = element;
  if (node.kind === 'zip' && Array.isArray(v)) v = v.map((x, i) => (node.parts[i] ? applyElement(node.parts[i]!, x) : x));
  for (const fn of node.fns) {
    v = fn(v);
    if (v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function') {
      throw new Error(`a .map() function of ${describeNode(node)} returned a promise: it must be synchronous (it runs inside the consuming task)`);
    }
  }
  return v;
}

function applyEach(node: OutputNode, value: unknown, taskId: string, name: string): unknown {
  if (value === undefined || value === null) return value;
  if (!Array.isArray(value)) throw new Error(`task ${taskId}: input "${name}" is ${describeNode(node)}, which needs an array to map over, got ${kindOf(value)}`);
  return value.map((x) => applyElement(node, x));
}

/** The argument the author's function gets, from what the engine delivered. */
function prepare(r: FlowRecord, ctx: TaskContext, arg: unknown): unknown {
  if (r.positional && ctx.mapIndex !== undefined) return applyElement(r.positional, arg);
  if (arg === null || typeof arg !== 'object' || Array.isArray(arg)) return arg;
  const inputs = { ...(arg as Record<string, unknown>) };
  for (const t of r.transforms) {
    if (!(t.name in inputs)) continue;
    // An expanded name holds this instance's element; any other input holds the whole array.
    inputs[t.name] = t.each || ctx.mapIndex === undefined ? applyEach(t.node, inputs[t.name], ctx.taskId, t.name) : applyElement(t.node, inputs[t.name]);
  }
  if (r.kwargs && KWARGS_ELEMENT in inputs) {
    const element = r.kwargs.node ? applyElement(r.kwargs.node, inputs[KWARGS_ELEMENT]) : inputs[KWARGS_ELEMENT];
    delete inputs[KWARGS_ELEMENT];
    if (element === null || typeof element !== 'object' || Array.isArray(element)) {
      throw new Error(`task ${ctx.taskId} [${ctx.mapIndex}]: expandKwargs needs each element to be an object of inputs, got ${kindOf(element)}`);
    }
    const again = Object.keys(element).find((k) => r.kwargs!.fixed.includes(k));
    if (again) throw new Error(`task ${ctx.taskId} [${ctx.mapIndex}]: its expandKwargs element sets "${again}", which partial() already gives`);
    Object.assign(inputs, element);
  }
  return inputs;
}

/**
 * Wraps the function of task `taskId`. The wrapper reads the task's record when it runs (the
 * DAG is complete by then), so a task declared in the old style runs exactly as before.
 *
 * @example
 * const execute = wrapBody(draft, 'report', (ctx, { total }) => total);
 */
export function wrapBody(draft: DagDraft, taskId: string, fn: Body): Body {
  const record = flowRecord(draft, taskId);
  const run = (ctx: TaskContext, arg: unknown): unknown => {
    const typed = record.transforms.length > 0 || record.positional !== undefined || record.kwargs !== undefined;
    return fn(ctx, typed ? prepare(record, ctx, arg) : arg);
  };
  // Keeps the author's function name in stack traces and logs.
  Object.defineProperty(run, 'name', { value: fn.name || taskId });
  return run;
}
