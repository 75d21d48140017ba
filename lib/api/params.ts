/**
 * Validation of query strings and bodies: every failure is a 4xx whose detail names the
 * field, never a 500.
 */
import { invalid } from './http.js';

export function intQuery(url: URL, name: string, dflt: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw invalid(['query', name], `${name}: must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`, raw);
  return n;
}

export function boolQuery(url: URL, name: string): boolean | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw invalid(['query', name], `${name}: must be true or false, got ${JSON.stringify(raw)}`, raw, 'bool_parsing');
}

/** Rejects body fields the endpoint does not know, as Airflow's models (extra = forbid) do. */
export function onlyFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(body)) {
    if (!allowed.includes(k)) throw invalid(['body', k], `${k}: unknown field (allowed: ${allowed.join(', ')}); Extra inputs are not permitted`, body[k], 'extra_forbidden');
  }
}

export function optDate(body: Record<string, unknown>, name: string): number | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  const ms = typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(ms)) throw invalid(['body', name], `${name}: must be an ISO-8601 date-time, got ${JSON.stringify(v)}`, v, 'datetime_from_date_parsing');
  return ms;
}

export function optBool(body: Record<string, unknown>, name: string, dflt: boolean): boolean {
  const v = body[name];
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') throw invalid(['body', name], `${name}: must be true or false, got ${JSON.stringify(v)}`, v, 'bool_type');
  return v;
}

export function optString(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v === '') throw invalid(['body', name], `${name}: must be a non-empty string, got ${JSON.stringify(v)}`, v, 'string_type');
  return v;
}

export function optObject(body: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid(['body', name], `${name}: must be a JSON object, got ${JSON.stringify(v)}`, v, 'dict_type');
  return v as Record<string, unknown>;
}

/** `limit` and `offset` of a listing (Airflow's defaults: 50 and 0). */
export function page<T>(url: URL, items: readonly T[], dflt = 50): T[] {
  const limit = intQuery(url, 'limit', dflt, 0, 10_000);
  const offset = intQuery(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  return items.slice(offset, offset + limit);
}

/** A query date (ISO-8601); undefined when absent. */
export function dateQuery(url: URL, name: string): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : NaN;
  if (!Number.isFinite(ms)) throw invalid(['query', name], `${name}: must be an ISO-8601 date-time, got ${JSON.stringify(raw)}`, raw, 'datetime_from_date_parsing');
  return ms;
}

/**
 * Airflow's range filters `<name>_gte`, `_gt`, `_lte`, `_lt` (dates, or with `numeric`
 * numbers) as one predicate; a value that is absent passes only when no bound is given.
 *
 * @example
 * const inRange = rangeQuery(url, 'start_date'); inRange(run.startedAt);
 */
export function rangeQuery(url: URL, name: string, numeric = false): (v: number | undefined | null) => boolean {
  const read = (suffix: string) => {
    const q = `${name}_${suffix}`;
    if (!numeric) return dateQuery(url, q);
    const raw = url.searchParams.get(q);
    if (raw === null || raw === '') return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n)) throw invalid(['query', q], `${q}: must be a number, got ${JSON.stringify(raw)}`, raw, 'float_parsing');
    return n;
  };
  const [gte, gt, lte, lt] = ['gte', 'gt', 'lte', 'lt'].map(read);
  if (gte === undefined && gt === undefined && lte === undefined && lt === undefined) return () => true;
  return (v) => v !== undefined && v !== null && (gte === undefined || v >= gte) && (gt === undefined || v > gt) && (lte === undefined || v <= lte) && (lt === undefined || v < lt);
}

/** Query values of a list parameter, repeated or comma-separated (`?state=a&state=b`, `?dag_ids=a,b`). */
export function listQuery(url: URL, name: string): string[] {
  return url.searchParams.getAll(name).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

/** Values a query parameter may take, refused otherwise (422 at the parameter). */
export function enumQuery(url: URL, name: string, allowed: readonly string[]): string[] {
  const values = listQuery(url, name);
  for (const v of values) if (!allowed.includes(v)) throw invalid(['query', name], `${name}: ${JSON.stringify(v)} is not one of ${allowed.join(', ')}`, v, 'enum');
  return values;
}

/**
 * Airflow's `order_by`: fields, repeated or comma-separated, `-` for descending; a field
 * the model does not sort by is a 422 at `order_by`, as the spec lists for these operations.
 *
 * @example
 * items.sort(sorter(url, 'dag_id', { dag_id: (d) => d.dagId }));
 */
export function sorter<T>(url: URL, dflt: string, fields: Record<string, (x: T) => string | number | undefined | null>): (a: T, b: T) => number {
  const given = listQuery(url, 'order_by');
  const keys = (given.length ? given : [dflt]).map((k) => {
    const desc = k.startsWith('-');
    const name = desc ? k.slice(1) : k;
    // Own keys only: `__proto__` or `constructor` must not reach Object.prototype.
    const f = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (!f) throw invalid(['query', 'order_by'], `order_by: Ordering with ${JSON.stringify(name)} is disallowed or the attribute does not exist on the model (use one of ${Object.keys(fields).join(', ')}, optionally with -)`, k);
    return { f, desc };
  });
  return (a, b) => {
    for (const { f, desc } of keys) {
      const x = f(a) ?? '';
      const y = f(b) ?? '';
      if (x !== y) return (x < y ? -1 : 1) * (desc ? -1 : 1);
    }
    return 0;
  };
}

/** A LIKE pattern cut at `%` into literal segments; `_` in a segment is any one character. */
type Segment = { chars: string[]; wild: boolean[] };

function segmentsOf(pattern: string): Segment[] {
  const out: Segment[] = [];
  let cur: Segment = { chars: [], wild: [] };
  for (let i = 0; i < pattern.length; i++) {
    let c = pattern[i];
    if (c === '%') {
      if (cur.chars.length) out.push(cur);
      cur = { chars: [], wild: [] };
      continue;
    }
    if (c === '\\' && i + 1 < pattern.length) c = pattern[++i];
    else if (c === '_') {
      cur.chars.push('');
      cur.wild.push(true);
      continue;
    }
    cur.chars.push(c.toLowerCase());
    cur.wild.push(false);
  }
  if (cur.chars.length) out.push(cur);
  return out;
}

function segmentAt(text: string, at: number, s: Segment): boolean {
  for (let j = 0; j < s.chars.length; j++) if (!s.wild[j] && text[at + j] !== s.chars[j]) return false;
  return true;
}

/**
 * Airflow's `*_pattern` query parameters: a case-insensitive SQL LIKE that matches anywhere
 * in the value (Airflow queries `ilike('%' + pattern + '%')`), `%` any run of characters,
 * `_` any one, `\` escaping either, and `|` between alternatives (Airflow 3.2).
 *
 * Matched without a regular expression: each segment between `%`s is placed at its
 * leftmost position after the previous one, which is correct for LIKE (a `%` absorbs any
 * gap) and costs at most value length x pattern length. The regular expression this
 * replaces backtracked exponentially in the number of `%`s (16 took 2.6 s per DAG and
 * stalled the dev scheduler: issue 19, defect 6).
 *
 * @example
 * likeMatcher('%etl_d%|report')('ETL_daily'); // true
 */
export function likeMatcher(pattern: string): (value: string) => boolean {
  const alternatives = pattern.split('|').map((p) => segmentsOf(p.trim()));
  return (value) => {
    const text = value.toLowerCase();
    return alternatives.some((segments) => {
      let at = 0;
      for (const s of segments) {
        const last = text.length - s.chars.length;
        while (at <= last && !segmentAt(text, at, s)) at++;
        if (at > last) return false;
        at += s.chars.length;
      }
      return true;
    });
  };
}
