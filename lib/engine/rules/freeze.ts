/**
 * Deep-freezes a value so that it can be shared without being changed through an alias
 * (DAG specs, cached by the stores).
 *
 * @example
 * const spec = deepFreeze(JSON.parse(text));
 */
export function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as Record<string, unknown>)) deepFreeze(x);
  }
  return v;
}
