/**
 * Masking of secrets, as Airflow's secrets masker: every connection password, every
 * sensitive connection extra and every variable whose key looks sensitive is registered
 * when a task reads it, and the log sink, stored errors and XCom replace it with `***`.
 * The registry is per process (as Airflow's), so a value read in one try stays masked in
 * whatever this process logs later.
 */

/** Key fragments that make a variable or an extra field secret: Airflow's DEFAULT_SENSITIVE_FIELDS (secrets_masker.py), all twelve. */
const SENSITIVE = ['access_token', 'api_key', 'apikey', 'authorization', 'passphrase', 'passwd', 'password', 'private_key', 'secret', 'token', 'keyfile_dict', 'service_account'];

/** Shorter values are not masked (Airflow's `min_length_masked_secret`): masking `a` would garble every log line. */
export const MIN_MASKED_LENGTH = 5;
export const MASK = '***';

const secrets = new Set<string>();
let pattern: RegExp | undefined;
/** The same alternatives without the global flag: a `test` that keeps no position between calls. */
let probe: RegExp | undefined;

/**
 * True when a variable key or an extra field name names a secret.
 *
 * @example
 * isSensitiveKey('slack_api_key'); // true
 */
export function isSensitiveKey(key: string): boolean {
  const k = key.toLowerCase();
  return SENSITIVE.some((s) => k.includes(s));
}

/**
 * Registers a value to mask from now on in this process.
 *
 * @example
 * maskSecret(conn.password);
 */
export function maskSecret(value: unknown): void {
  if (typeof value !== 'string' || value.length < MIN_MASKED_LENGTH || secrets.has(value)) return;
  secrets.add(value);
  // Longest first, so that a secret containing another is masked whole.
  const sorted = [...secrets].sort((a, b) => b.length - a.length).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  pattern = new RegExp(sorted.join('|'), 'g');
  probe = new RegExp(pattern.source);
}

/** Registers every string leaf under a sensitive key of an object (connection extras, a JSON variable). */
export function maskSensitiveFields(value: unknown, sensitive = false): void {
  if (typeof value === 'string') {
    if (sensitive) maskSecret(value);
  } else if (Array.isArray(value)) {
    for (const v of value) maskSensitiveFields(v, sensitive);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) maskSensitiveFields(v, sensitive || isSensitiveKey(k));
  }
}

/**
 * Replaces every registered secret in a string.
 *
 * @example
 * redact('connecting with hunter22'); // 'connecting with ***'
 */
export function redact(text: string): string {
  if (!pattern) return text;
  pattern.lastIndex = 0;
  return text.replace(pattern, MASK);
}

type Container = unknown[] | Map<unknown, unknown> | Set<unknown> | Record<string, unknown>;

/** Arrays, Maps, Sets and plain objects are walked; a Date, a RegExp, typed arrays are kept as they are. */
function isContainer(v: unknown): v is Container {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v) || v instanceof Map || v instanceof Set) return true;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** True when some string in `value` (keys included) holds a registered secret. Iterative: any depth, cycles. */
function holdsSecret(value: unknown): boolean {
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  // Only strings and objects go on the stack; numbers and the like cannot hold a secret.
  const push = (x: unknown) => { if (typeof x === 'string' || (x !== null && typeof x === 'object')) stack.push(x); };
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (probe!.test(v)) return true;
      continue;
    }
    if (!isContainer(v) || seen.has(v)) continue;
    seen.add(v);
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) push(v[i]);
    else if (v instanceof Map) for (const [k, x] of v) { push(k); push(x); }
    else if (v instanceof Set) for (const x of v) push(x);
    else for (const k of Object.keys(v)) { stack.push(k); push((v as Record<string, unknown>)[k]); }
  }
  return false;
}

/**
 * {@link redact} over every string of a value: in arrays, plain objects (keys too), Maps
 * and Sets, at any depth. A value that holds no secret is returned as it is; otherwise a
 * copy in which repeated and circular references stay repeated and circular (the value
 * is walked with a list, not recursion: a circular or deeply nested XCom used to fail its
 * try with a stack overflow once a secret had been read).
 *
 * @example
 * redactDeep({ dsn: 'postgres://u:hunter22@db' }); // { dsn: 'postgres://u:***@db' }
 */
export function redactDeep<T>(value: T): T {
  if (!pattern) return value;
  if (typeof value === 'string') return redact(value) as T;
  if (!isContainer(value) || !holdsSecret(value)) return value;
  const copies = new Map<object, Container>();
  const todo: [Container, Container][] = [];
  const mask = (text: string) => (probe!.test(text) ? redact(text) : text);
  const copyOf = (v: unknown): unknown => {
    if (typeof v === 'string') return mask(v);
    if (!isContainer(v)) return v;
    let c = copies.get(v);
    if (!c) {
      c = Array.isArray(v) ? new Array<unknown>(v.length) : v instanceof Map ? new Map() : v instanceof Set ? new Set() : Object.create(Object.getPrototypeOf(v)) as Record<string, unknown>;
      copies.set(v, c);
      todo.push([v, c]);
    }
    return c;
  };
  const root = copyOf(value);
  while (todo.length) {
    const [src, dst] = todo.pop()!;
    if (Array.isArray(src)) {
      for (let i = 0; i < src.length; i++) if (i in src) (dst as unknown[])[i] = copyOf(src[i]);
    } else if (src instanceof Map) {
      for (const [k, x] of src) (dst as Map<unknown, unknown>).set(copyOf(k), copyOf(x));
    } else if (src instanceof Set) {
      for (const x of src) (dst as Set<unknown>).add(copyOf(x));
    } else {
      for (const k of Object.keys(src)) {
        const key = mask(k);
        const x = copyOf((src as Record<string, unknown>)[k]);
        // A key named __proto__ is data, as it was in the value (assignment would set the prototype).
        if (key === '__proto__') Object.defineProperty(dst, key, { value: x, enumerable: true, writable: true, configurable: true });
        else (dst as Record<string, unknown>)[key] = x;
      }
    }
  }
  return root as T;
}

/**
 * Plain data as shown to a person (Airflow's `redact` with a name): every string under a
 * sensitive key ({@link isSensitiveKey}), at any depth, becomes `***`; other strings
 * have the registered secrets masked. `connections get` shows extras with it, so a
 * `keyfile_dict`, a `service_account` or a password nested in an extra never prints.
 * Past 100 levels a value is `***` whole (shown data is small; no recursion without end).
 *
 * @example
 * maskFields({ project: 'p1', keyfile_dict: { private_key: 'k', n: 1 }, auth: { password: 'x' } });
 * // { project: 'p1', keyfile_dict: { private_key: '***', n: 1 }, auth: { password: '***' } }
 */
export function maskFields(value: unknown, sensitive = false, depth = 0): unknown {
  if (depth > 100) return MASK;
  if (typeof value === 'string') return sensitive ? MASK : redact(value);
  if (Array.isArray(value)) return value.map((v) => maskFields(v, sensitive, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, { value: maskFields(v, sensitive || isSensitiveKey(k), depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/** True once any secret is registered (callers skip the walk otherwise). */
export function hasSecrets(): boolean {
  return pattern !== undefined;
}
