/**
 * Durations as DAG authors write them (`'30s'`, `'1h30m'`, `'500ms'`) and as the engine
 * keeps them (milliseconds).
 */
import { InvalidInputError } from '../model/errors.js';

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** Largest unit first, so the longest match wins (`ms` before `m`). */
const PART = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)/y;

/**
 * Parses a duration into milliseconds. Accepts a non-negative number of milliseconds or a
 * string of one or more `<number><unit>` parts, units `ms s m h d w`, largest first.
 * A bare number in a string is rejected: its unit would be a guess.
 *
 * @example
 * parseDuration('1h30m'); // 5_400_000
 * parseDuration('500ms'); // 500
 * parseDuration(2000);    // 2000
 * @throws InvalidInputError naming the offending text.
 */
export function parseDuration(value: string | number): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) {
      throw new InvalidInputError(`invalid duration ${String(value)}: expected a non-negative number of milliseconds`);
    }
    return Math.round(value);
  }
  if (typeof value !== 'string') {
    throw new InvalidInputError(`invalid duration ${JSON.stringify(value)}: expected a string like '30s' or a number of ms`);
  }
  const text = value.trim();
  if (text === '') throw new InvalidInputError(`invalid duration "": expected a string like '30s', '10m', '1h30m'`);
  let total = 0;
  let pos = 0;
  let lastUnit = Infinity;
  while (pos < text.length) {
    PART.lastIndex = pos;
    const m = PART.exec(text);
    if (!m) {
      const hint = /^\d+(\.\d+)?$/.test(text) ? ' (a unit is required: ms, s, m, h, d or w)' : '';
      throw new InvalidInputError(`invalid duration "${value}"${hint}: expected a string like '30s', '10m', '1h30m', '500ms'`);
    }
    const unitMs = UNIT_MS[m[2]];
    if (unitMs >= lastUnit) {
      throw new InvalidInputError(`invalid duration "${value}": units must go from largest to smallest, each once`);
    }
    lastUnit = unitMs;
    total += Number(m[1]) * unitMs;
    pos = PART.lastIndex;
    while (text[pos] === ' ') pos++;
  }
  return Math.round(total);
}

/**
 * Parses an optional duration; `undefined` stays `undefined`.
 *
 * @example
 * parseOptionalDuration(undefined); // undefined
 */
export function parseOptionalDuration(value: string | number | undefined): number | undefined {
  return value === undefined ? undefined : parseDuration(value);
}

const FORMAT_UNITS: ReadonlyArray<[string, number]> = [
  ['d', UNIT_MS.d],
  ['h', UNIT_MS.h],
  ['m', UNIT_MS.m],
  ['s', UNIT_MS.s],
  ['ms', 1],
];

/**
 * Formats milliseconds in the syntax {@link parseDuration} reads (days at most, so that
 * `parseDuration(formatDuration(x)) === x` for every non-negative integer `x`).
 *
 * @example
 * formatDuration(5_400_000); // '1h30m'
 * formatDuration(1500);      // '1s500ms'
 * formatDuration(0);         // '0s'
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const sign = ms < 0 ? '-' : '';
  let rest = Math.round(Math.abs(ms));
  if (rest === 0) return '0s';
  let out = '';
  for (const [unit, size] of FORMAT_UNITS) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return sign + out;
}
