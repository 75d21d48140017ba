/**
 * Airflow-style datetime arithmetic in templates, closed to one shape (issue 23 §2):
 * a datetime variable, plus or minus `macros.timedelta(...)` terms, optionally in
 * parentheses followed by `.strftime(fmt)` or `.isoformat()`:
 *
 *   {{ (data_interval_start - macros.timedelta(days=1)).strftime('%Y-%m-%d') }}
 *   {{ logical_date + macros.timedelta(hours=6) }}
 *   {{ data_interval_end.isoformat() }}
 *
 * Jinja evaluates any Python expression there; Airless keeps templates a closed language,
 * so anything else that looks like date arithmetic is refused in one line naming the template.
 */
import { InvalidInputError } from '../model/errors.js';
import { formatDate } from './macros.js';

/** Template variables that are datetimes in Airflow's context (the others are strings). */
export const DATETIME_VARS: ReadonlySet<string> = new Set([
  'logical_date', 'data_interval_start', 'data_interval_end',
  'prev_data_interval_start_success', 'prev_data_interval_end_success', 'prev_start_date_success', 'prev_end_date_success',
]);
const UNITS: Record<string, number> = { weeks: 604_800_000, days: 86_400_000, hours: 3_600_000, minutes: 60_000, seconds: 1000, milliseconds: 1 };
const SHAPE = "supported: <datetime variable> [+|- macros.timedelta(days=..., hours=...)], optionally (...).strftime('fmt') or (...).isoformat()";
const METHOD = /^(.*?)\s*\.\s*(strftime|isoformat)\s*\((.*)\)$/s;
const VAR = /^[A-Za-z_][A-Za-z0-9_]*/;
const TERM = /^\s*([+-])\s*(?:macros\.)?timedelta\s*\(([^()]*)\)/;
const NUMBER = /^[+-]?\d+(\.\d+)?$/;

/** Python's `str(datetime)` / `isoformat()` of a UTC instant: microseconds only when non-zero. */
export function pythonDate(t: number, sep: 'T' | ' '): string {
  const iso = new Date(t).toISOString();
  const ms = iso.slice(20, 23);
  return `${iso.slice(0, 10)}${sep}${iso.slice(11, 19)}${ms === '000' ? '' : `.${ms}000`}+00:00`;
}

/**
 * Whether an expression is date arithmetic, and if so its rendering; `lookup` resolves a
 * variable. Undefined when the expression uses none of `timedelta`, `.strftime(`, `.isoformat(`.
 *
 * @example
 * dateExpr("(data_interval_start - macros.timedelta(days=1)).strftime('%Y-%m-%d')", lookup, t); // '2025-12-31'
 * @throws InvalidInputError naming the template when the expression is not of the supported shape.
 */
export function dateExpr(expr: string, lookup: (path: string) => unknown, template: string): string | undefined {
  if (!/timedelta|\.\s*(strftime|isoformat)\s*\(/.test(expr)) return undefined;
  const fail = (why: string): never => {
    throw new InvalidInputError(`template "${template}": ${why}; ${SHAPE}`);
  };
  const m = METHOD.exec(expr);
  let body = m ? m[1].trim() : expr.trim();
  if (m && body.startsWith('(')) {
    if (!body.endsWith(')')) fail(`"${body}" is not closed`);
    body = body.slice(1, -1).trim();
  } else if (m && /[+-]/.test(body)) fail('put the arithmetic in parentheses before the method');
  const t = arithmetic(body, lookup, fail);
  if (!m) return pythonDate(t, ' ');
  const arg = m[3].trim();
  if (m[2] === 'isoformat') {
    if (arg !== '') fail('isoformat() takes no argument');
    return pythonDate(t, 'T');
  }
  const fmt = /^(['"])(.*)\1$/s.exec(arg)?.[2] ?? (arg !== '' && VAR.test(arg) ? lookup(arg) : undefined);
  if (typeof fmt !== 'string') fail('strftime() takes one format string');
  return formatDate(t, fmt as string, (why) => fail(`strftime(): ${why}`));
}

function arithmetic(body: string, lookup: (path: string) => unknown, fail: (why: string) => never): number {
  const head = VAR.exec(body)?.[0];
  if (!head) fail(`"${body}" does not start with a datetime variable`);
  if (!DATETIME_VARS.has(head!)) fail(`"${head}" is not a datetime (datetimes: ${[...DATETIME_VARS].join(', ')})`);
  const value = lookup(head!);
  if (value === undefined || value === null || value === '') fail(`"${head}" has no value in this run`);
  let t = Date.parse(String(value));
  if (Number.isNaN(t)) fail(`"${head}" is not a date`);
  let rest = body.slice(head!.length);
  while (rest.trim() !== '') {
    const term = TERM.exec(rest);
    if (!term) fail(`"${rest.trim()}" is not "+ macros.timedelta(...)" or "- macros.timedelta(...)"`);
    t += (term![1] === '-' ? -1 : 1) * delta(term![2], lookup, fail);
    rest = rest.slice(term![0].length);
  }
  return t;
}

function delta(args: string, lookup: (path: string) => unknown, fail: (why: string) => never): number {
  let ms = 0;
  for (const raw of args.split(',')) {
    const arg = raw.trim();
    if (arg === '') continue;
    const kv = /^([a-z]+)\s*=\s*(.+)$/.exec(arg);
    if (!kv || UNITS[kv[1]] === undefined) fail(`timedelta(): "${arg}" is not one of ${Object.keys(UNITS).map((u) => `${u}=n`).join(', ')}`);
    const n = NUMBER.test(kv![2]) ? Number(kv![2]) : VAR.test(kv![2]) ? Number(lookup(kv![2])) : NaN;
    if (!Number.isFinite(n)) fail(`timedelta(): ${kv![1]} must be a number, got ${JSON.stringify(kv![2])}`);
    ms += n * UNITS[kv![1]];
  }
  return Math.round(ms);
}

const EXPR = /\{\{\s*([^{}]*?)\s*\}\}/g;
const DYNAMIC = Symbol('dynamic');

function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) stringsIn(v, out);
  return out;
}

/**
 * The first date-arithmetic template in a task's templated fields (a built-in task's,
 * an operator's, a sensor's poke context) whose shape is wrong, checked at build: variables
 * other than the datetimes are only known at run time, so an expression using one is left
 * to render time.
 *
 * @example
 * badDateTemplate({ builtin: { conf: { d: '{{ ds - macros.timedelta(days=1) }}' } } }); // 'template "...": "ds" is not a datetime ...'
 */
export function badDateTemplate(fields: unknown): string | undefined {
  for (const str of stringsIn(fields)) {
    if (!str.includes('{{')) continue;
    for (const m of str.matchAll(EXPR)) {
      try {
        dateExpr(m[1], (path) => {
          if (DATETIME_VARS.has(path)) return '2026-01-01 00:00:00+00:00';
          throw DYNAMIC;
        }, str);
      } catch (err) {
        if (err === DYNAMIC) continue;
        if (err instanceof InvalidInputError) return err.message;
        throw err;
      }
    }
  }
  return undefined;
}
