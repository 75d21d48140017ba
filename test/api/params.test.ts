/**
 * `likeMatcher` (lib/api/params.ts): SQL LIKE matched without a regular expression, the
 * same answers as one on small inputs, and linear-ish on large ones (issue 19, defect 6).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { likeMatcher } from '../../lib/api/params.js';

/** LIKE as a regular expression: right on small inputs, exponential on many `%`s. */
function reference(pattern: string, value: string): boolean {
  const body = pattern.split('%').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('_', '.')).join('.*');
  return new RegExp(`^.*${body}.*$`, 'is').test(value);
}

describe('likeMatcher', () => {
  it('agrees with a regular-expression LIKE on small patterns and values', () => {
    const pattern = fc.array(fc.constantFrom('a', 'b', 'B', '%', '_'), { maxLength: 7 }).map((c) => c.join(''));
    const value = fc.array(fc.constantFrom('a', 'b', 'A', 'B'), { maxLength: 9 }).map((c) => c.join(''));
    fc.assert(fc.property(pattern, value, (p, v) => { expect(likeMatcher(p)(v)).toBe(reference(p, v)); }), { numRuns: 500 });
  });

  it('escapes % and _ with a backslash, and takes | as or', () => {
    expect(likeMatcher('a\\_b')('xa_by')).toBe(true);
    expect(likeMatcher('a\\_b')('xacby')).toBe(false);
    expect(likeMatcher('100\\%')('100%')).toBe(true);
    expect(likeMatcher('zzz | etl')('ETL_daily')).toBe(true);
    expect(likeMatcher('')('anything')).toBe(true);
  });

  it('answers the patterns that made the regular expression backtrack for ever', () => {
    const id = 'a'.repeat(250);
    expect(likeMatcher(`${'%a'.repeat(200)}%b`)(id)).toBe(false);
    expect(likeMatcher(`${'%'.repeat(5000)}a${'_%'.repeat(100)}`)(id)).toBe(true);
  });
});
