/**
 * Validation of query strings and bodies: every failure is a 4xx whose detail names the
 * field, never a 500.
 */
import { HttpError } from './http.js';

export function intQuery(url: URL, name: string, dflt: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new HttpError(422, `${name}: must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return n;
}

export function boolQuery(url: URL, name: string): boolean | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new HttpError(422, `${name}: must be true or false, got ${JSON.stringify(raw)}`);
}

/** Rejects body fields the endpoint does not know, as Airflow's models (extra = forbid) do. */
export function onlyFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(body)) {
    if (!allowed.includes(k)) throw new HttpError(422, `${k}: unknown field (allowed: ${allowed.join(', ')})`);
  }
}

export function optDate(body: Record<string, unknown>, name: string): number | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  const ms = typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : NaN;
  if (!Number.isFinite(ms)) throw new HttpError(422, `${name}: must be an ISO-8601 date-time, got ${JSON.stringify(v)}`);
  return ms;
}

export function optBool(body: Record<string, unknown>, name: string, dflt: boolean): boolean {
  const v = body[name];
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') throw new HttpError(422, `${name}: must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

export function optString(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v === '') throw new HttpError(422, `${name}: must be a non-empty string, got ${JSON.stringify(v)}`);
  return v;
}

export function optObject(body: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw new HttpError(422, `${name}: must be a JSON object, got ${JSON.stringify(v)}`);
  return v as Record<string, unknown>;
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
