/**
 * A DAG's asset condition (`schedule: a`, `[a, b]`, `allOf(...)`, `anyOf(...)`, nested):
 * which assets it names and whether the assets queued so far satisfy it, as Airflow's
 * `AssetAll`/`AssetAny.evaluate` decide it over the assets with queued events.
 */
import type { AssetCondition } from '../model/assets.js';

/**
 * Every asset URI the condition names, once each, in order of first appearance.
 *
 * @example
 * conditionUris({ all: [{ asset: 'a' }, { any: [{ asset: 'b' }, { asset: 'a' }] }] }); // ['a', 'b']
 */
export function conditionUris(c: AssetCondition): string[] {
  const out = new Set<string>();
  const walk = (x: AssetCondition): void => {
    if ('asset' in x) out.add(x.asset);
    else for (const y of 'all' in x ? x.all : x.any) walk(y);
  };
  walk(c);
  return [...out];
}

/**
 * Whether the condition holds given the assets that have queued events.
 * An empty `all` holds and an empty `any` does not (Python's all() and any()).
 *
 * @example
 * evaluateCondition({ any: [{ asset: 'a' }, { asset: 'b' }] }, new Set(['b'])); // true
 */
export function evaluateCondition(c: AssetCondition, queued: ReadonlySet<string>): boolean {
  if ('asset' in c) return queued.has(c.asset);
  if ('all' in c) return c.all.every((x) => evaluateCondition(x, queued));
  return c.any.some((x) => evaluateCondition(x, queued));
}

/**
 * Why a serialized condition is malformed, or undefined (manifests are read back, so the
 * shape is checked, not trusted).
 */
export function conditionProblem(c: unknown, depth = 0): string | undefined {
  if (depth > 32) return 'asset condition is nested more than 32 levels deep';
  if (typeof c !== 'object' || c === null || Array.isArray(c)) return `asset condition must be an object, got ${JSON.stringify(c)}`;
  const keys = Object.keys(c);
  if (keys.length !== 1 || !['asset', 'all', 'any'].includes(keys[0]!)) {
    return `asset condition must have exactly one of asset, all, any; got ${JSON.stringify(keys)}`;
  }
  const v = (c as Record<string, unknown>)[keys[0]!];
  if (keys[0] === 'asset') return typeof v === 'string' && v.length > 0 ? undefined : `asset condition: asset must be a URI, got ${JSON.stringify(v)}`;
  if (!Array.isArray(v)) return `asset condition: ${keys[0]} must be a list`;
  for (const x of v) {
    const p = conditionProblem(x, depth + 1);
    if (p) return p;
  }
  return undefined;
}

/**
 * A one-line rendering for lists and the UI (Airflow's UI shows the same tree).
 *
 * @example
 * describeCondition({ all: [{ asset: 's3://b/x' }, { any: [{ asset: 'y' }, { asset: 'z' }] }] });
 * // 's3://b/x & (y | z)'
 */
export function describeCondition(c: AssetCondition, nested = false): string {
  if ('asset' in c) return c.asset;
  const parts = ('all' in c ? c.all : c.any).map((x) => describeCondition(x, true));
  const text = parts.join('all' in c ? ' & ' : ' | ');
  return nested && parts.length > 1 ? `(${text})` : text;
}
