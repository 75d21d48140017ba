import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatDuration, parseDuration, parseOptionalDuration } from '../../../lib/engine/duration.js';
import { InvalidInputError } from '../../../lib/engine/index.js';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['10m', 600_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['1h30m', 5_400_000],
    ['1h 30m', 5_400_000],
    ['500ms', 500],
    ['1m500ms', 60_500],
    ['1.5s', 1500],
    ['1w', 604_800_000],
    ['0s', 0],
  ])('%s -> %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it('takes a number as milliseconds', () => {
    expect(parseDuration(2500)).toBe(2500);
    expect(parseOptionalDuration(undefined)).toBeUndefined();
  });

  it.each(['', 'abc', '5', '10 parsecs', '1m1h', '1s1s', '-5s', '5s!', 'h'])('rejects %j naming the text', (text) => {
    expect(() => parseDuration(text)).toThrow(InvalidInputError);
    expect(() => parseDuration(text)).toThrow(`"${text}"`);
  });

  it('explains a missing unit', () => {
    expect(() => parseDuration('300')).toThrow('a unit is required');
  });

  it.each([-1, Number.NaN, Infinity])('rejects the number %d', (n) => {
    expect(() => parseDuration(n)).toThrow(InvalidInputError);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [500, '500ms'],
    [1500, '1s500ms'],
    [5_400_000, '1h30m'],
    [90_061_001, '1d1h1m1s1ms'],
  ])('%d -> %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('round-trips through parseDuration', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 * 86_400_000 }), (ms) => parseDuration(formatDuration(ms)) === ms),
    );
  });
});
