/**
 * Masking of secrets, as Airflow's secrets masker: every connection password, every
 * sensitive connection extra and every variable whose key looks sensitive is registered
 * when a task reads it, and the log sink, stored errors and XCom replace it with `***`.
 * The registry is per process (as Airflow's), so a value read in one try stays masked in
 * whatever this process logs later.
 */

/** Key fragments that make a variable or an extra field secret (Airflow's DEFAULT_SENSITIVE_FIELDS). */
const SENSITIVE = ['access_token', 'api_key', 'apikey', 'authorization', 'passphrase', 'passwd', 'password', 'private_key', 'secret', 'token', 'keyfile_dict', 'service_account'];

/** Shorter values are not masked (Airflow's `min_length_masked_secret`): masking `a` would garble every log line. */
export const MIN_MASKED_LENGTH = 5;
export const MASK = '***';

const secrets = new Set<string>();
let pattern: RegExp | undefined;

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

/** {@link redact} over every string leaf of plain data (objects and arrays rebuilt only when something changed). */
export function redactDeep<T>(value: T): T {
  if (!pattern) return value;
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) {
    const out = value.map((v) => redactDeep(v));
    return (out.some((v, i) => v !== value[i]) ? out : value) as T;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = redactDeep(v);
      if (out[k] !== v) changed = true;
    }
    return (changed ? out : value) as T;
  }
  return value;
}

/** True once any secret is registered (callers skip the walk otherwise). */
export function hasSecrets(): boolean {
  return pattern !== undefined;
}
