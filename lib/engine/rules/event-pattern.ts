/**
 * EventBridge event patterns, checked and matched as EventBridge does, so a wait that names a
 * pattern, a rule the rehearsal routes and a rule deployed on AWS agree on which events match.
 *
 * Rules (Amazon EventBridge user guide, "Event patterns", "Comparison operators for use in event
 * patterns", "Arrays in event patterns"; aws/event-ruler, the library EventBridge uses):
 * - a pattern is a non-empty object; each key is a field of the event; keys are ANDed;
 * - a leaf is a non-empty array of conditions, ORed: exact values (string, number, boolean, null;
 *   numbers compare as numbers) or one-key operator objects: `prefix`, `suffix` (each a string or
 *   `{ "equals-ignore-case": s }`), `equals-ignore-case`, `wildcard`, `anything-but` (a value, a
 *   list of all strings or all numbers, or `{ prefix | suffix | equals-ignore-case | wildcard }`),
 *   `numeric` (`["=", n]`, or a lower bound `>`/`>=` and/or an upper bound `<`/`<=`, numbers within
 *   ±5e9 compared to six decimal places), `exists` (true or false);
 * - `"$or": [ {…}, {…} ]` (two or more patterns) at any level is ORed with itself and ANDed with
 *   its siblings;
 * - an array in the event matches when any element does; objects inside arrays are matched one
 *   element at a time, so two fields from different elements never combine (Ruler's "array
 *   consistency");
 * - comparison operators apply to leaves only: `exists: true` needs a leaf value (null counts), and
 *   `exists: false` holds where there is none (absent, an object, or an empty array), and is the
 *   only condition that matches an absent field.
 *
 * `cidr` is refused: nothing here needs IP ranges, and a pattern we cannot evaluate must be refused,
 * never silently never-match.
 */

import type { EventPattern } from '../model/events.js';

export type { EventPattern };

/** Ruler keeps numbers in this range, to six places after the decimal point. */
const NUMERIC_LIMIT = 5e9;
/** Operators a condition object may name. */
const OPERATORS = new Set(['prefix', 'suffix', 'equals-ignore-case', 'wildcard', 'anything-but', 'numeric', 'exists', 'cidr']);
/** Ruler refuses these as field names inside `$or` (they would read as operators). */
const RESERVED_IN_OR = new Set([...OPERATORS, 'exact']);
const LOWER = new Set(['>', '>=']);
const UPPER = new Set(['<', '<=']);

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const quote = (v: unknown) => JSON.stringify(v);
const at = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * The problem with a pattern in one line (naming the field), or undefined when EventBridge would
 * accept it and this matcher can evaluate it.
 *
 * @example
 * validatePattern({ source: ['aws.ecs'], detail: { lastStatus: ['STOPPED'] } }); // undefined
 * validatePattern({ source: 'aws.ecs' }); // 'source: must be an object or a non-empty array …'
 * validatePattern({ detail: { n: [{ numeric: ['>', 5, '<', 1] }] } }); // 'detail.n: numeric range …'
 */
export function validatePattern(pattern: unknown): string | undefined {
  if (!isObject(pattern)) return 'an event pattern must be a JSON object';
  return checkObject(pattern, '', false);
}

function checkObject(pattern: Obj, path: string, insideOr: boolean): string | undefined {
  const keys = Object.keys(pattern);
  if (keys.length === 0) return `${path || 'pattern'}: empty objects are not allowed`;
  for (const key of keys) {
    const value = pattern[key];
    const here = at(path, key);
    if (key === '$or') {
      if (!Array.isArray(value) || value.length < 2 || !value.every(isObject)) {
        return `${here}: "$or" must be an array of two or more pattern objects`;
      }
      for (const branch of value) {
        const problem = checkObject(branch, path, true);
        if (problem) return problem;
      }
      continue;
    }
    if (insideOr && RESERVED_IN_OR.has(key)) return `${here}: "${key}" is an operator name and cannot be a field inside "$or"`;
    if (isObject(value)) {
      const problem = checkObject(value, here, insideOr);
      if (problem) return problem;
    } else if (Array.isArray(value)) {
      if (value.length === 0) return `${here}: empty arrays are not allowed (they would match nothing)`;
      for (const condition of value) {
        const problem = checkCondition(condition, here);
        if (problem) return problem;
      }
    } else {
      return `${here}: must be an object or a non-empty array of values, got ${quote(value)}`;
    }
  }
  return undefined;
}

function checkCondition(condition: unknown, path: string): string | undefined {
  if (condition === null || typeof condition === 'string' || typeof condition === 'boolean') return undefined;
  if (typeof condition === 'number') return Number.isFinite(condition) ? undefined : `${path}: ${condition} is not a JSON number`;
  if (!isObject(condition)) return `${path}: a match value must be a string, number, true, false, null or an operator object, got ${quote(condition)}`;
  const keys = Object.keys(condition);
  if (keys.length !== 1) return `${path}: an operator object has exactly one key, got ${quote(condition)}`;
  const [op] = keys;
  const arg = condition[op];
  switch (op) {
    case 'prefix':
    case 'suffix':
      return typeof arg === 'string' || isIgnoreCase(arg) ? undefined : `${path}: "${op}" takes a string or {"equals-ignore-case": string}`;
    case 'equals-ignore-case':
      return typeof arg === 'string' ? undefined : `${path}: "equals-ignore-case" takes a string`;
    case 'wildcard':
      return typeof arg === 'string' ? checkWildcard(arg, path) : `${path}: "wildcard" takes a string`;
    case 'exists':
      return typeof arg === 'boolean' ? undefined : `${path}: "exists" takes true or false`;
    case 'numeric':
      return checkNumeric(arg, path);
    case 'anything-but':
      return checkAnythingBut(arg, path);
    case 'cidr':
      return `${path}: "cidr" is not supported by Airless's pattern matcher`;
    default:
      return `${path}: unknown operator "${op}" (expected one of ${[...OPERATORS].filter((o) => o !== 'cidr').join(', ')})`;
  }
}

function isIgnoreCase(arg: unknown): boolean {
  return isObject(arg) && Object.keys(arg).length === 1 && typeof arg['equals-ignore-case'] === 'string';
}

function checkWildcard(text: string, path: string): string | undefined {
  if (text.includes('**')) return `${path}: consecutive wildcard characters are not allowed in ${quote(text)}`;
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '\\') continue;
    if (text[i + 1] !== '*' && text[i + 1] !== '\\') return `${path}: in a wildcard only "*" and "\\" may be escaped: ${quote(text)}`;
    i++;
  }
  return undefined;
}

function checkNumeric(arg: unknown, path: string): string | undefined {
  const bad = `${path}: "numeric" takes ["=", n], or a lower bound (">" or ">=", n) and/or an upper bound ("<" or "<=", n)`;
  if (!Array.isArray(arg) || (arg.length !== 2 && arg.length !== 4)) return bad;
  for (let i = 0; i < arg.length; i += 2) {
    if (typeof arg[i] !== 'string' || !isNumber(arg[i + 1])) return bad;
    const n = arg[i + 1] as number;
    if (Math.abs(n) > NUMERIC_LIMIT) return `${path}: numeric values must be between -5e9 and 5e9, got ${n}`;
  }
  const [op, lo, op2, hi] = arg as [string, number, string?, number?];
  if (arg.length === 2) return op === '=' || LOWER.has(op) || UPPER.has(op) ? undefined : bad;
  if (!LOWER.has(op) || !UPPER.has(op2!)) return bad;
  const empty = lo > hi! || (lo === hi && (op === '>' || op2 === '<'));
  return empty ? `${path}: numeric range ${quote(arg)} matches no number` : undefined;
}

function checkAnythingBut(arg: unknown, path: string): string | undefined {
  if (typeof arg === 'string') return undefined;
  if (isNumber(arg)) return Math.abs(arg) > NUMERIC_LIMIT ? `${path}: numeric values must be between -5e9 and 5e9, got ${arg}` : undefined;
  if (Array.isArray(arg)) {
    const strings = arg.every((v) => typeof v === 'string');
    const numbers = arg.every(isNumber);
    if (arg.length === 0 || (!strings && !numbers)) return `${path}: an "anything-but" list holds only strings or only numbers, at least one`;
    return undefined;
  }
  if (isObject(arg) && Object.keys(arg).length === 1) {
    const [op] = Object.keys(arg);
    const inner = arg[op];
    if ((op === 'prefix' || op === 'suffix') && typeof inner === 'string') {
      return inner === '' ? `${path}: an empty "anything-but" ${op} is not allowed` : undefined;
    }
    const list = typeof inner === 'string' ? [inner] : inner;
    const strings = Array.isArray(list) && list.length > 0 && list.every((v) => typeof v === 'string');
    if (op === 'equals-ignore-case' && strings) return undefined;
    if (op === 'wildcard' && strings) {
      for (const w of list as string[]) {
        const problem = checkWildcard(w, path);
        if (problem) return problem;
      }
      return undefined;
    }
  }
  return `${path}: "anything-but" takes a string, a number, a list of strings or of numbers, or {prefix|suffix: string} or {equals-ignore-case|wildcard: string or list}`;
}

/**
 * Whether an event matches a pattern. The pattern must have passed {@link validatePattern};
 * a condition this matcher does not know matches nothing.
 *
 * @example
 * const pattern = { source: ['aws.batch'], detail: { status: ['SUCCEEDED', 'FAILED'] } };
 * matchesPattern(pattern, { source: 'aws.batch', detail: { status: 'FAILED' } }); // true
 * matchesPattern(pattern, { source: 'aws.batch', detail: { status: 'RUNNING' } }); // false
 */
export function matchesPattern(pattern: EventPattern, event: unknown): boolean {
  return matchObject(pattern, event);
}

/** Matches an object pattern against the event node at the same path (any value, or absent). */
function matchObject(pattern: Obj, node: unknown): boolean {
  if (Array.isArray(node)) {
    // Objects inside arrays are matched one element at a time (array consistency).
    const elements = flatten(node);
    return elements.length === 0 ? matchFields(pattern, undefined) : elements.some((e) => matchFields(pattern, e));
  }
  return matchFields(pattern, node);
}

function matchFields(pattern: Obj, node: unknown): boolean {
  const fields = isObject(node) ? node : undefined;
  for (const [key, sub] of Object.entries(pattern)) {
    if (key === '$or') {
      if (!(sub as Obj[]).some((branch) => matchFields(branch, node))) return false;
      continue;
    }
    const value = fields && Object.hasOwn(fields, key) ? fields[key] : undefined;
    const ok = Array.isArray(sub) ? matchLeaf(sub, value) : isObject(sub) && matchObject(sub, value);
    if (!ok) return false;
  }
  return true;
}

/** Nested arrays in events are crushed into one list of elements. */
function flatten(values: unknown[]): unknown[] {
  return values.flatMap((v) => (Array.isArray(v) ? flatten(v) : [v]));
}

/** The leaf values at a path: none when absent, an object, or an array holding no leaves. */
function leavesOf(value: unknown): unknown[] {
  if (value === undefined) return [];
  const all = Array.isArray(value) ? flatten(value) : [value];
  return all.filter((v) => !isObject(v));
}

function matchLeaf(conditions: unknown[], value: unknown): boolean {
  const leaves = leavesOf(value);
  return conditions.some((condition) => {
    if (isObject(condition) && 'exists' in condition) return condition.exists === leaves.length > 0;
    return leaves.some((leaf) => matchValue(condition, leaf));
  });
}

function matchValue(condition: unknown, leaf: unknown): boolean {
  if (!isObject(condition)) return condition === leaf;
  const [op] = Object.keys(condition);
  const arg = condition[op];
  const text = typeof leaf === 'string' ? leaf : undefined;
  switch (op) {
    case 'prefix':
      return text !== undefined && (isObject(arg) ? lower(text).startsWith(lower(arg['equals-ignore-case'])) : text.startsWith(String(arg)));
    case 'suffix':
      return text !== undefined && (isObject(arg) ? lower(text).endsWith(lower(arg['equals-ignore-case'])) : text.endsWith(String(arg)));
    case 'equals-ignore-case':
      return text !== undefined && lower(text) === lower(arg);
    case 'wildcard':
      return text !== undefined && wildcard(String(arg)).test(text);
    case 'numeric':
      return isNumber(leaf) && inRange(arg as unknown[], leaf);
    case 'anything-but':
      return !butMatches(arg, leaf);
    default:
      return false;
  }
}

/** Whether the leaf is one of the values an `anything-but` excludes. */
function butMatches(arg: unknown, leaf: unknown): boolean {
  const text = typeof leaf === 'string' ? leaf : undefined;
  if (Array.isArray(arg)) return arg.some((v) => sameValue(v, leaf));
  if (!isObject(arg)) return sameValue(arg, leaf);
  const [op] = Object.keys(arg);
  const inner = arg[op];
  const list = (Array.isArray(inner) ? inner : [inner]) as string[];
  if (text === undefined) return false;
  if (op === 'prefix') return text.startsWith(String(inner));
  if (op === 'suffix') return text.endsWith(String(inner));
  if (op === 'equals-ignore-case') return list.some((v) => lower(v) === lower(text));
  if (op === 'wildcard') return list.some((v) => wildcard(v).test(text));
  return false;
}

function sameValue(a: unknown, b: unknown): boolean {
  return isNumber(a) && isNumber(b) ? micro(a) === micro(b) : a === b;
}

function lower(v: unknown): string {
  return String(v).toLowerCase();
}

/** Ruler compares numbers to six decimal places. */
function micro(n: number): number {
  return Math.round(n * 1e6);
}

function inRange(spec: unknown[], n: number): boolean {
  if (Math.abs(n) > NUMERIC_LIMIT) return false;
  const v = micro(n);
  for (let i = 0; i < spec.length; i += 2) {
    const bound = micro(spec[i + 1] as number);
    const ok = { '=': v === bound, '>': v > bound, '>=': v >= bound, '<': v < bound, '<=': v <= bound }[spec[i] as string];
    if (!ok) return false;
  }
  return true;
}

/** A wildcard as an anchored regular expression: `*` is any run, `\*` a star, `\\` a backslash. */
function wildcard(text: string): RegExp {
  let source = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) source += escape(text[++i]);
    else source += c === '*' ? '[\\s\\S]*' : escape(c);
  }
  return new RegExp(`^${source}$`, 'u');
}

function escape(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
