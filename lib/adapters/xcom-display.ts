/**
 * How an XCom value is shown: the one rendering behind the run summary table, `--json`,
 * the API's XCom and task responses and so the UI (issue 19, defect 1). The codec
 * (xcom-codec.ts) keeps values JSON cannot write (BigInt, Map, Set, undefined, NaN,
 * typed arrays, circular references): `JSON.stringify` threw on them and the CLI ended
 * without its table, the API answered an empty 200. This turns any value into JSON data,
 * always, within bounds, without recursion past {@link DisplayLimits.maxDepth}.
 *
 * JSON values come out as they are (so `{ "rows": 42 }` stays `{ "rows": 42 }`); a Date
 * is its ISO string, as `JSON.stringify` writes it; everything else becomes an object
 * with one `$`-key naming what it was:
 *
 * | value | shown as |
 * |---|---|
 * | `12n` | `{ "$bigint": "12" }` |
 * | `new Map([['a', 1]])` | `{ "$map": [["a", 1]] }` |
 * | `new Set([1])` | `{ "$set": [1] }` |
 * | `undefined` | `{ "$undefined": true }` |
 * | `NaN`, `Infinity` | `{ "$number": "NaN" }` (`-0` is `0`, as in JSON) |
 * | `/a+/g`, a URL | `{ "$regexp": "/a+/g" }`, `{ "$url": "https://…" }` |
 * | `new Uint8Array([1])`, an ArrayBuffer | `{ "$Uint8Array": [1] }`, `{ "$ArrayBuffer": [1] }` |
 * | a reference to a value it is inside | `{ "$ref": "$.a.b" }` (the path from the root `$`) |
 * | past the limits | `"…"` (and `{ "…": "3 more" }` / a last `"… 3 more"` element) |
 *
 * Hand-written rather than `util.inspect` (cycle-aware and bounded, but text in JavaScript
 * syntax, not JSON data the API can send) or superjson (JSON plus a separate meta tree a
 * person cannot read in a table cell).
 */

export interface DisplayLimits {
  /** Containers nested at most (deeper ones show as `"…"`). Default 1,000, the depth XCom stores. */
  maxDepth: number;
  /** Values (leaves and containers) shown at most; the rest is counted. Default 100,000. */
  maxNodes: number;
  /** Characters of one string shown at most. Default 100,000. */
  maxString: number;
}

const DEFAULTS: DisplayLimits = { maxDepth: 1000, maxNodes: 100_000, maxString: 100_000 };
const CUT = '…';

/**
 * Any value as JSON data (see the table above).
 *
 * @example
 * displayValue({ total: 12n, seen: new Set(['a']) }); // { total: { $bigint: '12' }, seen: { $set: ['a'] } }
 */
export function displayValue(value: unknown, limits: Partial<DisplayLimits> = {}): unknown {
  return new Renderer({ ...DEFAULTS, ...limits }).render(value, 0, '$');
}

/**
 * A value as one line of JSON text at most `max` characters long: `{ text, truncated }`.
 * Only as much of the value is walked as the text can show.
 *
 * @example
 * displayText(new Map([['a', 1n]])).text; // '{"$map":[["a",{"$bigint":"1"}]]}'
 */
export function displayText(value: unknown, max = 1024): { text: string; truncated: boolean } {
  // Every shown value costs at least one character, so a text of `max` characters never
  // needs more than `max` values: the walk stops there, however large the value.
  const r = new Renderer({ ...DEFAULTS, maxNodes: max + 1, maxString: max + 1 });
  const text = JSON.stringify(r.render(value, 0, '$'));
  if (text.length > max) return { text: `${text.slice(0, max - 1)}${CUT}`, truncated: true };
  return { text, truncated: r.cut };
}

class Renderer {
  private nodes = 0;
  /** Containers on the path from the root to where the walk is, with their paths. */
  private readonly open = new Map<object, string>();
  /** True once anything was left out. */
  cut = false;

  constructor(private readonly limits: DisplayLimits) {}

  render(v: unknown, depth: number, path: string): unknown {
    this.nodes++;
    switch (typeof v) {
      case 'string':
        if (v.length <= this.limits.maxString) return v;
        this.cut = true;
        return `${v.slice(0, this.limits.maxString)}${CUT}`;
      case 'number':
        if (Number.isFinite(v)) return Object.is(v, -0) ? 0 : v;
        return { $number: String(v) };
      case 'boolean':
        return v;
      case 'bigint':
        return { $bigint: v.toString() };
      case 'undefined':
        return { $undefined: true };
      case 'symbol':
        return { $symbol: v.description ?? '' };
      case 'function':
        return { $function: v.name || 'anonymous' };
    }
    if (v === null) return null;
    return this.object(v as object, depth, path);
  }

  private object(v: object, depth: number, path: string): unknown {
    const ancestor = this.open.get(v);
    if (ancestor !== undefined) return { $ref: ancestor };
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
    if (v instanceof RegExp) return { $regexp: String(v) };
    if (typeof URL !== 'undefined' && v instanceof URL) return { $url: v.href };
    if (typeof URLSearchParams !== 'undefined' && v instanceof URLSearchParams) return { $urlsearchparams: v.toString() };
    if (v instanceof String || v instanceof Number || v instanceof Boolean) return this.render(v.valueOf(), depth, path);
    if (depth >= this.limits.maxDepth) {
      this.cut = true;
      return CUT;
    }
    this.open.set(v, path);
    try {
      // A Map counts one level, as in the value: its entries' keys and values sit one below it.
      if (v instanceof Map) return { $map: this.list([...v], depth, `${path}.$map`, ([k, x], p) => [this.render(k, depth + 1, `${p}[0]`), this.render(x, depth + 1, `${p}[1]`)]) };
      if (v instanceof Set) return { $set: this.list([...v], depth, `${path}.$set`) };
      if (Array.isArray(v)) return this.list(v, depth, path);
      if (v instanceof ArrayBuffer) return { $ArrayBuffer: this.list([...new Uint8Array(v)], depth, path) };
      if (ArrayBuffer.isView(v)) {
        const items = v instanceof DataView ? [...new Uint8Array(v.buffer, v.byteOffset, v.byteLength)] : [...(v as unknown as ArrayLike<unknown> & Iterable<unknown>)];
        return { [`$${v.constructor.name}`]: this.list(items, depth, path) };
      }
      return this.fields(v as Record<string, unknown>, depth, path);
    } finally {
      this.open.delete(v);
    }
  }

  /** Elements in order while the budget lasts, then one `"… N more"`. */
  private list<T>(items: ArrayLike<T>, depth: number, path: string, each?: (x: T, path: string) => unknown): unknown[] {
    const out: unknown[] = [];
    for (let i = 0; i < items.length; i++) {
      if (this.nodes >= this.limits.maxNodes) {
        this.cut = true;
        out.push(`${CUT} ${items.length - i} more`);
        break;
      }
      const p = `${path}[${i}]`;
      // A hole in a sparse array is shown as JSON writes it: null.
      out.push(each ? each(items[i], p) : i in items ? this.render(items[i], depth + 1, p) : (this.nodes++, null));
    }
    return out;
  }

  private fields(v: Record<string, unknown>, depth: number, path: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      if (this.nodes >= this.limits.maxNodes) {
        this.cut = true;
        out[CUT] = `${keys.length - i} more`;
        break;
      }
      const k = keys[i];
      const p = /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
      // defineProperty: a key named __proto__ is data here, not the prototype.
      Object.defineProperty(out, k, { value: this.render(v[k], depth + 1, p), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
}
