/**
 * Dynamic task mapping, the pure part: how a mapped instance is named, which shard
 * counts it, what element it gets, and how a downstream sees a mapped upstream under its
 * trigger rule. docs/adr/0013-dynamic-task-mapping.md records the design.
 *
 * An instance of mapped task `size` is the task instance `size#42` (map index 42): `#` is
 * not allowed in a task id (ID_PATTERN), so no task id can collide with an instance id,
 * and the instances share their parent's sort-key prefix (`size#`), which one Query reads.
 */
import type { DagSpec, MapExpand, MapSource, TaskSpec } from '../model/types.js';
import type { UpstreamOutcome } from '../model/states.js';
import { sourceTaskIds } from './inputs.js';
import { MAP_OUTCOMES, type MapOutcome } from '../model/mapping-store.js';
export { MAP_OUTCOMES, type MapOutcome };

export const MAP_SEP = '#';
/** Instances counted by one shard item (kept under 1 KB, so each count is one write unit). */
export const MAP_SHARD_SIZE = 100;
/** Elements and return values up to this many characters of JSON live on the instance item. */
export const MAP_INLINE_MAX = 512;
/** Marker of an element or value kept in XCom instead (too large or not plain JSON). */
export const IN_XCOM = '@';

const INSTANCE = /^(.+)#(\d{1,9})$/;

export function instanceId(taskId: string, mapIndex: number): string {
  return `${taskId}${MAP_SEP}${mapIndex}`;
}

/** `{ taskId: 'size', mapIndex: 42 }` for `size#42`, undefined for a plain task id. */
export function parseInstanceId(id: string): { taskId: string; mapIndex: number } | undefined {
  const m = INSTANCE.exec(id);
  return m ? { taskId: m[1]!, mapIndex: Number(m[2]) } : undefined;
}

export function isInstanceId(id: string): boolean {
  return id.includes(MAP_SEP) && INSTANCE.test(id);
}

/** The task id of an instance id or of a mapped upstream's flag (`size#failed`); a plain id as it is. */
export function baseTaskId(id: string): string {
  const i = id.lastIndexOf(MAP_SEP);
  return i < 0 ? id : id.slice(0, i);
}

export function isMapped(t: TaskSpec): boolean {
  return t.expand !== undefined;
}

export function shardOfIndex(mapIndex: number): number {
  return Math.floor(mapIndex / MAP_SHARD_SIZE);
}

export function shardCount(n: number): number {
  return Math.ceil(n / MAP_SHARD_SIZE);
}

/** Instances counted by shard `s` of a task mapped over `n` elements. */
export function shardWant(n: number, s: number): number {
  return Math.min(MAP_SHARD_SIZE, n - s * MAP_SHARD_SIZE);
}

export function outcomeOfState(state: string): MapOutcome {
  if (state === 'success' || state === 'failed' || state === 'upstream_failed') return state;
  return 'skipped';
}

/** The sources of an expand, named (`''` for a single source). */
export function namedSources(e: MapExpand): Array<[string, MapSource]> {
  return 'source' in e ? [['', e.source]] : Object.entries(e.product);
}

/** Task ids an expand reads the XCom of. */
export function sourceTasks(e: MapExpand): string[] {
  return namedSources(e).flatMap(([, s]) => sourceTaskIds(s));
}

/** Number of instances: the length of the one source, or the product of the lengths. */
export function mapLength(e: MapExpand, arrays: readonly unknown[][]): number {
  return arrays.reduce((n, a) => n * a.length, 1);
}

/**
 * The element of instance `i`: the i-th of the one source, or for several named sources
 * the combination at position i of their cross product, the last source varying fastest
 * (Airflow's order for `expand(x=[1, 2], y=['p', 'q'])`: {1,p}, {1,q}, {2,p}, {2,q}).
 */
export function elementAt(e: MapExpand, arrays: readonly unknown[][], i: number): unknown {
  if ('source' in e) return arrays[0]![i];
  const names = Object.keys(e.product);
  const out: Record<string, unknown> = {};
  let rest = i;
  for (let k = names.length - 1; k >= 0; k--) {
    const a = arrays[k]!;
    out[names[k]!] = a[rest % a.length];
    rest = Math.floor(rest / a.length);
  }
  // Keys in the author's order.
  return Object.fromEntries(names.map((n) => [n, out[n]]));
}

/** JSON text of a value when it is plain JSON and short enough to live on an item. */
export function inlineJson(v: unknown): string | undefined {
  if (!isPlainJson(v, 0)) return undefined;
  const s = JSON.stringify(v);
  return s.length <= MAP_INLINE_MAX ? s : undefined;
}

function isPlainJson(v: unknown, depth: number): boolean {
  if (depth > 20) return false;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (Array.isArray(v)) return v.every((x) => isPlainJson(x, depth + 1));
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.values(v as object).every((x) => isPlainJson(x, depth + 1));
  }
  return false;
}

const mappedSpecs = new WeakMap<DagSpec, Set<string>>();

function mappedIds(spec: DagSpec): Set<string> {
  let s = mappedSpecs.get(spec);
  if (!s) {
    s = new Set(spec.tasks.filter(isMapped).map((t) => t.taskId));
    mappedSpecs.set(spec, s);
  }
  return s;
}

export function hasMappedTask(spec: DagSpec): boolean {
  return mappedIds(spec).size > 0;
}

/**
 * How a task's trigger rule sees its upstreams when one is mapped. A mapped upstream `u`
 * is recorded on the downstream as flags `u#success`, `u#failed`, ... (one per outcome
 * that at least one instance reached) and `u` itself once every instance is done. Each
 * present flag counts as one upstream with that outcome, and `u` as one more (pending
 * until recorded); the rules depend only on "any of an outcome" and "all done", so this
 * decides exactly as n upstreams would, with at most five attributes instead of n.
 */
export function mappedView(
  spec: DagSpec,
  t: TaskSpec,
  recorded: Readonly<Record<string, UpstreamOutcome>>,
): [readonly string[], Readonly<Record<string, UpstreamOutcome>>] {
  const mapped = mappedIds(spec);
  if (mapped.size === 0 || !t.upstream.some((u) => mapped.has(u))) return [t.upstream, recorded];
  const ids: string[] = [];
  for (const u of t.upstream) {
    if (mapped.has(u)) for (const o of MAP_OUTCOMES) if (recorded[`${u}${MAP_SEP}${o}`] !== undefined) ids.push(`${u}${MAP_SEP}${o}`);
    ids.push(u);
  }
  return [ids, recorded];
}
