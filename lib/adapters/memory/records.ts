/**
 * The memory store's records: copies that never alias stored state, patches with
 * DynamoDB's semantics (`null` removes, `undefined` leaves as is), keys and the
 * compare-and-set failure. Pure functions, shared by store.ts and its helpers.
 */
import type { Cas, DagRecord, DagRun, TaskInstance, TaskKey, TriggerRecord, XcomKey } from '../../engine/index.js';
import { deepFreeze } from '../../engine/index.js';

/**
 * A copy as JSON would make it (what DynamoDB stores). Plain objects, arrays, strings,
 * finite numbers, booleans and null are copied directly, several times faster than a
 * round trip through a string for the small values on the hot path (a run's `conf` on
 * every read); anything else (a Date, a class, a non-finite number, `toJSON`) takes the
 * round trip, so the result is always what JSON gives.
 */
export function jsonClone<T>(v: T): T {
  if (v === undefined) return v;
  const copy = plainCopy(v, 0);
  return (copy === NOT_PLAIN ? JSON.parse(JSON.stringify(v)) : copy) as T;
}

const NOT_PLAIN = Symbol('not plain');

function plainCopy(v: unknown, depth: number): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : NOT_PLAIN;
  if (typeof v !== 'object' || depth > 64) return NOT_PLAIN;
  if (Array.isArray(v)) {
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      // JSON writes a missing, undefined or function element as null.
      const c = x === undefined || typeof x === 'function' ? null : plainCopy(x, depth + 1);
      if (c === NOT_PLAIN) return NOT_PLAIN;
      out[i] = c;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const k in v as Record<string, unknown>) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue; // JSON leaves them out
    if (k === '__proto__') return NOT_PLAIN; // an own key JSON.parse keeps, which assigning would not
    const c = plainCopy(x, depth + 1);
    if (c === NOT_PLAIN) return NOT_PLAIN;
    out[k] = c;
  }
  return out;
}

export function cloneTask(t: TaskInstance): TaskInstance {
  const c: TaskInstance = { ...t, upstream: { ...t.upstream } };
  if (t.nextKwargs !== undefined) c.nextKwargs = jsonClone(t.nextKwargs);
  if (t.trigger !== undefined) c.trigger = { ...t.trigger };
  if (t.triggerEvent !== undefined) c.triggerEvent = jsonClone(t.triggerEvent);
  return c;
}

/**
 * A task as the store keeps it: frozen, with everything it holds, so that a read returns
 * the stored object itself instead of a copy (a copy per read and per write was the
 * largest cost of a trivial task in process). A write makes a new object (withPatch),
 * sharing the frozen parts that did not change.
 */
export function frozenTask(t: TaskInstance): TaskInstance {
  const src = t as unknown as Record<string, unknown>;
  for (const k in src) {
    const v = src[k];
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) continue;
    // `upstream` holds strings only: one freeze, no walk.
    if (k === 'upstream') Object.freeze(v);
    else deepFreeze(v);
  }
  return Object.freeze(t);
}

/** A caller's task as a new stored item: compact, nothing shared with the caller, frozen. */
export function newStoredTask(t: TaskInstance, patch: Record<string, unknown>): TaskInstance {
  return frozenTask(withPatch(cloneTask(t), patch));
}

export function cloneRun(r: DagRun): DagRun {
  return { ...r, conf: jsonClone(r.conf) };
}

// Specs are JSON-copied and frozen when stored, then shared: getDag is on the hot path
// (every run start and end), and a frozen spec cannot be changed through an alias.
export function cloneDag(d: DagRecord): DagRecord {
  return { ...d, spec: Object.isFrozen(d.spec) ? d.spec : deepFreeze(jsonClone(d.spec)) };
}

export function cloneTrigger(t: TriggerRecord): TriggerRecord {
  const c = { ...t };
  if (t.pokeContext !== undefined) c.pokeContext = jsonClone(t.pokeContext);
  return c;
}

/** Applies a patch: `null` removes, `undefined` leaves as is, other values are JSON-copied. */
export function applyPatch(target: Record<string, unknown>, patch: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    if (v === null) delete target[k];
    else target[k] = typeof v === 'object' ? jsonClone(v) : v;
  }
}

/**
 * A task with a patch applied, as a new object. Stored tasks are replaced, never changed
 * by `delete`: a deleted property turns a V8 object into a slow dictionary, and every
 * later copy of it (each read returns one) pays for that.
 */
export function withPatch<T extends object>(t: T, patch: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  const src = t as Record<string, unknown>;
  for (const k in src) {
    const v = src[k];
    // A key the patch leaves undefined (absent or given as undefined) keeps its value.
    if (v !== undefined && patch[k] === undefined) out[k] = v;
  }
  for (const k in patch) {
    const v = patch[k];
    if (v !== undefined && v !== null) out[k] = typeof v === 'object' ? jsonClone(v) : v;
  }
  return out as T;
}

/** Drops keys whose value is undefined, as DynamoDB marshalling does. */
export function compact<T extends object>(o: T): T {
  return withPatch(o, {});
}

export const runKey = (dagId: string, runId: string): string => `${dagId}\u0000${runId}`;
export const taskKey = (k: TaskKey): string => `${k.dagId}\u0000${k.runId}\u0000${k.taskId}`;
export const xcomKey = (k: XcomKey): string => `${taskKey(k)}\u0000${k.key}`;

export function stateMatches<S extends string>(state: S, expected: S | readonly S[]): boolean {
  return typeof expected === 'string' ? state === expected : expected.includes(state);
}

export function conditionFailed<T>(current: T | undefined): Cas<T> {
  return { ok: false, current, reason: 'condition' };
}
