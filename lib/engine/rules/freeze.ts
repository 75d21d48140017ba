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
    // for...in over own keys: no array of values per object (the stores freeze every record they write).
    const o = v as Record<string, unknown>;
    for (const k in o) {
      const x = o[k];
      if (x !== null && typeof x === 'object') deepFreeze(x);
    }
  }
  return v;
}
