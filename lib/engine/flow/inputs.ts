/**
 * What a task function receives as its second argument (ADR 0021). A task declared in the
 * typed TaskFlow style (`report({ total: double({ n: e.rows }) })`) has `inputs` in its
 * spec: before each try the worker resolves them here (literals as written, other tasks'
 * outputs read from XCom, a property read from its own XCom key, zips zipped) and merges a
 * mapped instance's element in. `.map()` functions are bundle code: the SDK applies them
 * inside the try (lib/sdk/taskflow-run.ts). A task without `inputs` gets what it got
 * before: its mapped element, or nothing.
 */
import type { RunCtx } from '../rules/dag-index.js';
import { KWARGS_ELEMENT, type InputSource, type MapSource, type TaskInstance, type TaskSpec } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { keyOf, retainUntil } from '../write/transition.js';
import { OversizedValueError } from '../model/errors.js';
import { redactDeep } from '../rules/secrets-mask.js';
import { mapItemOf, pullMapped } from './mapping-values.js';
import { applyPath, zipArrays } from '../rules/inputs.js';

/** A resolved value, or one line saying why the source cannot give one (the same data would fail again). */
export type Resolved = { ok: true; value: unknown } | { ok: false; error: string };

/** Reads of one resolution, shared: two inputs from the same output read it once. */
type Reads = Map<string, Promise<unknown>>;

const describe = (v: unknown): string =>
  v === undefined ? 'nothing' : v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/**
 * The value of one source. An output of a mapped task is its instances' values in
 * map-index order; a zip's parts must be arrays.
 */
export async function resolveSource(p: Ports, rc: RunCtx, s: InputSource | MapSource, reads: Reads = new Map()): Promise<Resolved> {
  if ('value' in s) return { ok: true, value: s.value };
  if ('values' in s) return { ok: true, value: s.values };
  if ('zip' in s) {
    const arrays: unknown[][] = [];
    for (const [i, part] of s.zip.entries()) {
      const r = await resolveSource(p, rc, part, reads);
      if (!r.ok) return r;
      if (!Array.isArray(r.value)) {
        const what = 'task' in part ? `the output of task ${part.task}${part.key ? ` (key ${part.key})` : ''}` : `zip part ${i}`;
        return { ok: false, error: `cannot zip ${what}: it must be an array, got ${describe(r.value)}` };
      }
      arrays.push(r.value);
    }
    return { ok: true, value: zipArrays(arrays, s.fill) };
  }
  const id = `${s.task}\n${s.key ?? ''}`;
  let read = reads.get(id);
  if (!read) {
    const up = rc.spec.tasks.find((o) => o.taskId === s.task);
    read = up?.expand && s.key === undefined
      ? pullMapped(p, rc, s.task)
      : p.store.getXcom({ ...keyOf(rc, s.task), key: s.key ?? 'return_value' });
    reads.set(id, read);
  }
  return { ok: true, value: applyPath(await read, s.path) };
}

/** The try of `ti` gets a second argument: the task has `inputs` or `ti` is a mapped instance (else {@link taskArgument} has nothing to read). */
export function hasArgument(t: TaskSpec, ti: TaskInstance): boolean {
  return t.inputs !== undefined || ti.mapIndex !== undefined;
}

/**
 * The second argument of the try of `ti`: for a task with `inputs`, the object of its
 * resolved inputs, with a mapped instance's element merged in (named expand: under its
 * names; `expandKwargs`: under {@link KWARGS_ELEMENT}, which the SDK unpacks after its
 * `.map()` functions). For any other task, the mapped element or undefined, as before.
 *
 * @example
 * const arg = await taskArgument(p, rc, t, ti); // { ok: true, value: { n: 42, source: 'db' } }
 */
export async function taskArgument(p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance): Promise<Resolved> {
  if (!hasArgument(t, ti)) return { ok: true, value: undefined };
  const element = ti.mapIndex !== undefined ? await mapItemOf(p, ti) : undefined;
  if (!t.inputs) return { ok: true, value: element };
  const reads: Reads = new Map();
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(t.inputs)) {
    const r = await resolveSource(p, rc, s, reads);
    if (!r.ok) return { ok: false, error: `task ${t.taskId}: input "${name}": ${r.error}` };
    out[name] = r.value;
  }
  if (ti.mapIndex === undefined || !t.expand) return { ok: true, value: out };
  if ('product' in t.expand) return { ok: true, value: { ...out, ...(element as Record<string, unknown>) } };
  return { ok: true, value: t.expand.kwargs ? { ...out, [KWARGS_ELEMENT]: element } : out };
}

/**
 * Stores each key of a successful try's value that other tasks read (`spec.outputKeys`, from
 * `e.rows`) as an XCom of its own, beside the whole value (Airflow's multiple_outputs), so a
 * consumer reads only what it uses and the API and UI list each key. Returns why the try
 * must fail instead, as Airflow's multiple_outputs refuses a value that is not a mapping.
 */
export async function storeOutputKeys(p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance, value: unknown): Promise<{ error: string; noRetry: boolean } | undefined> {
  const keys = t.outputKeys;
  if (!keys?.length || value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { error: `task ${t.taskId} returned ${describe(value)}, but tasks read its keys ${keys.join(', ')}: return an object`, noRetry: false };
  }
  try {
    for (const k of keys) {
      if (!Object.prototype.hasOwnProperty.call(value, k)) continue;
      await p.store.putXcom({ ...keyOf(rc, ti.taskId), key: k }, redactDeep((value as Record<string, unknown>)[k]), retainUntil(p));
    }
  } catch (err) {
    if (err instanceof OversizedValueError) return { error: err.message, noRetry: true };
    throw err;
  }
  return undefined;
}
