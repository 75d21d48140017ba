/**
 * Option value parsers shared by the commands. Each returns the typed value or throws
 * an OptionError saying what form was expected; the registry adds the option's name and
 * the text given, so every usage error reads `--NAME must be ..., got "TEXT"`.
 */
import { OptionError, type OptionSpec } from './registry.js';
import { depthProblem, MAX_VALUE_DEPTH } from '../engine/index.js';

/** A whole number in `min..max`. */
export function wholeNumber(min: number, max: number): (text: string) => number {
  return (text) => {
    const n = /^[+]?\d+$/.test(text.trim()) ? Number(text) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new OptionError(`must be a whole number from ${min} to ${max}`);
    return n;
  };
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An ISO 8601 date or date-time (`2026-01-01`, `2026-01-01T02:00:00Z`), checked for a
 * real calendar day (`2026-02-30` is refused); without a zone it is UTC. Epoch ms.
 */
export function isoDate(text: string): number {
  const m = ISO.exec(text.trim());
  if (!m) throw new OptionError('must be an ISO date such as 2026-01-01 or 2026-01-01T02:00:00Z');
  const [, y, mo, d, h = '0', mi = '0', s = '0', zone] = m;
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (day.getUTCFullYear() !== Number(y) || day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d) ||
      Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) {
    throw new OptionError('must be a real calendar date and time (ISO 8601)');
  }
  const ms = Date.parse(zone || m[4] === undefined ? text.trim().replace(' ', 'T') : `${text.trim().replace(' ', 'T')}Z`);
  if (!Number.isFinite(ms)) throw new OptionError('must be an ISO date such as 2026-01-01 or 2026-01-01T02:00:00Z');
  return ms;
}

/** A JSON object (`{"full":true}`). */
export function jsonObject(text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new OptionError('must be a JSON object such as {"full":true}');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new OptionError('must be a JSON object such as {"full":true}, not an array or a scalar');
  if (depthProblem(v)) throw new OptionError(`must be a JSON object nested at most ${MAX_VALUE_DEPTH} levels deep`);
  return v as Record<string, unknown>;
}

/** Any JSON value; text that is not JSON is kept as a plain string. */
export function jsonOrString(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface SignalOption {
  key: string;
  payload: unknown;
}

/** `KEY` or `KEY=JSON` (the payload must be JSON; without one it is `true`). */
export function signalSpec(text: string): SignalOption {
  const eq = text.indexOf('=');
  const key = eq < 0 ? text : text.slice(0, eq);
  if (!key.trim()) throw new OptionError('must be KEY or KEY=JSON with a non-empty key');
  if (eq < 0) return { key, payload: true };
  try {
    return { key, payload: JSON.parse(text.slice(eq + 1)) };
  } catch {
    throw new OptionError(`must be KEY or KEY=JSON, and the payload after "=" must be JSON`);
  }
}

/** An http(s) URL. */
export function httpUrl(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new OptionError('must be an http(s) URL such as http://127.0.0.1:8000');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new OptionError('must be an http(s) URL such as http://127.0.0.1:8000');
  return text;
}

/** One of a fixed set of words. */
export function oneOf<T extends string>(...choices: T[]): (text: string) => T {
  return (text) => {
    if (!(choices as string[]).includes(text)) throw new OptionError(`must be one of ${choices.join(', ')}`);
    return text as T;
  };
}

/** Options several commands share. */
export const COMMON = {
  stack: { type: 'string', value: 'NAME', help: 'CloudFormation stack to use (default Airless)' },
  json: { type: 'boolean', help: 'print one JSON document instead of text (shapes in docs/cli.md)' },
  conf: { type: 'string', value: 'JSON', help: 'run conf, a JSON object such as {"full":true}', parse: jsonObject },
  logicalDate: { type: 'string', value: 'ISO', help: 'logical date of the run (default now), e.g. 2026-01-01T02:00:00Z', parse: isoDate },
  noTypecheck: { type: 'boolean', help: 'skip the TypeScript type-check of the DAG files' },
  concurrency: { type: 'string', value: 'N', help: 'tasks run at once in the embedded runtime, 1..1000 (default 8)', parse: wholeNumber(1, 1000) },
} satisfies Record<string, OptionSpec>;
