/**
 * Airflow's date macros in templates (`airflow/sdk/execution_time/macros.py`):
 * `{{ macros.ds_add(ds, 7) }}` and `{{ macros.ds_format(ds, '%Y-%m-%d', '%d.%m.%Y') }}`
 * (`macros.` may be left out). Arguments are variables (`ds`, `params.days`), quoted
 * strings or integers; nothing else is evaluated, so templates stay a closed language.
 */
import { InvalidInputError } from '../model/errors.js';

const CALL = /^(?:macros\.)?([A-Za-z_]+)\s*\((.*)\)$/s;
const NUMBER = /^[+-]?\d+(\.\d+)?$/;
/** strftime/strptime directives these macros read and write (UTC, no locale). */
const DIRECTIVES: Record<string, { re: string; get: (d: Date) => string }> = {
  Y: { re: '(\\d{4})', get: (d) => String(d.getUTCFullYear()).padStart(4, '0') },
  y: { re: '(\\d{2})', get: (d) => String(d.getUTCFullYear() % 100).padStart(2, '0') },
  m: { re: '(\\d{1,2})', get: (d) => String(d.getUTCMonth() + 1).padStart(2, '0') },
  d: { re: '(\\d{1,2})', get: (d) => String(d.getUTCDate()).padStart(2, '0') },
  H: { re: '(\\d{1,2})', get: (d) => String(d.getUTCHours()).padStart(2, '0') },
  M: { re: '(\\d{1,2})', get: (d) => String(d.getUTCMinutes()).padStart(2, '0') },
  S: { re: '(\\d{1,2})', get: (d) => String(d.getUTCSeconds()).padStart(2, '0') },
};

/**
 * Whether an expression is a macro call, and if so its value; `lookup` resolves variable
 * arguments. Undefined when the expression is not a call.
 *
 * @example
 * macroCall('macros.ds_add(ds, -1)', (p) => vars[p], template); // '2025-12-31' when ds is 2026-01-01
 * @throws InvalidInputError on an unknown macro or a bad argument, naming the template.
 */
export function macroCall(expr: string, lookup: (path: string) => unknown, template: string): string | undefined {
  const m = CALL.exec(expr);
  if (!m) return undefined;
  const fail = (why: string): never => {
    throw new InvalidInputError(`template "${template}": ${m[1]}(): ${why}`);
  };
  const args = splitArgs(m[2], fail).map((a) => argValue(a, lookup));
  if (m[1] === 'ds_add') {
    if (args.length !== 2) fail('takes ds and a number of days');
    const days = Number(args[1]);
    if (!Number.isInteger(days)) fail(`days must be an integer, got ${JSON.stringify(args[1])}`);
    return format(parse(String(args[0]), '%Y-%m-%d', fail) + days * 86_400_000, '%Y-%m-%d', fail);
  }
  if (m[1] === 'ds_format') {
    if (args.length !== 3) fail('takes ds, an input format and an output format');
    return format(parse(String(args[0]), String(args[1]), fail), String(args[2]), fail);
  }
  return fail('unknown macro (macros are ds_add and ds_format)');
}

function splitArgs(text: string, fail: (why: string) => never): string[] {
  const out: string[] = [];
  let cur = '';
  let quote = '';
  for (const c of text) {
    if (quote) {
      cur += c;
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') {
      cur += c;
      quote = c;
    } else if (c === ',') {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  if (quote) fail('a quoted argument is not closed');
  if (cur.trim() !== '' || out.length) out.push(cur.trim());
  if (out.some((a) => a === '')) fail('an argument is empty');
  return out;
}

function argValue(arg: string, lookup: (path: string) => unknown): unknown {
  if (/^(['"]).*\1$/s.test(arg)) return arg.slice(1, -1);
  if (NUMBER.test(arg)) return Number(arg);
  return lookup(arg);
}

function pieces(fmt: string, fail: (why: string) => never): Array<string | { key: string }> {
  const out: Array<string | { key: string }> = [];
  for (let i = 0; i < fmt.length; i++) {
    if (fmt[i] !== '%') {
      out.push(fmt[i]);
      continue;
    }
    const k = fmt[++i];
    if (k === '%') out.push('%');
    else if (k !== undefined && DIRECTIVES[k]) out.push({ key: k });
    else fail(`format "${fmt}" uses %${k ?? ''}; supported: %Y %y %m %d %H %M %S %%`);
  }
  return out;
}

function parse(text: string, fmt: string, fail: (why: string) => never): number {
  const ps = pieces(fmt, fail);
  const re = new RegExp(`^${ps.map((p) => (typeof p === 'string' ? p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : DIRECTIVES[p.key].re)).join('')}$`);
  const m = re.exec(text);
  if (!m) fail(`"${text}" does not match the format "${fmt}"`);
  const f: Record<string, number> = { Y: 1970, m: 1, d: 1, H: 0, M: 0, S: 0 };
  let g = 1;
  for (const p of ps) if (typeof p !== 'string') f[p.key] = Number(m![g++]);
  if (f.y !== undefined) f.Y = f.y < 69 ? 2000 + f.y : 1900 + f.y; // Python's %y pivot
  const t = Date.UTC(f.Y, f.m - 1, f.d, f.H, f.M, f.S);
  const d = new Date(t);
  if (d.getUTCMonth() !== f.m - 1 || d.getUTCDate() !== f.d || f.H > 23 || f.M > 59 || f.S > 59) fail(`"${text}" is not a date`);
  return t;
}

/** A UTC instant in a strftime format (the directives above), for date arithmetic's `.strftime()`. */
export function formatDate(t: number, fmt: string, fail: (why: string) => never): string {
  return format(t, fmt, fail);
}

function format(t: number, fmt: string, fail: (why: string) => never): string {
  const d = new Date(t);
  return pieces(fmt, fail).map((p) => (typeof p === 'string' ? p : DIRECTIVES[p.key].get(d))).join('');
}
