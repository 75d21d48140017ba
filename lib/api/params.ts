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
