/**
 * The memory store's copies: `jsonClone` gives exactly what a JSON round trip gives (what
 * DynamoDB would store), by a direct copy for plain values and the round trip otherwise.
 */
import { describe, expect, it } from 'vitest';
import { jsonClone } from '../../../lib/adapters/memory/records.js';

const roundTrip = (v: unknown) => JSON.parse(JSON.stringify(v));

describe('jsonClone', () => {
  const values: Record<string, unknown> = {
    'an empty object': {},
    'nested plain values': { a: 1, b: 'x', c: [1, 'two', { d: null, e: false }], f: { g: { h: [] } } },
    'undefined, a function and a symbol in an object': { a: undefined, b: () => 1, c: Symbol('s'), d: 2 },
    'undefined and a function in an array': [undefined, () => 1, 3],
    'a sparse array': [1, , 3], // eslint-disable-line no-sparse-arrays
    'non-finite numbers': { a: NaN, b: Infinity, c: [-Infinity] },
    'a Date': { at: new Date(Date.UTC(2026, 0, 1)) },
    'a toJSON method': { v: { toJSON: () => 'custom' } },
    'a class instance': { m: new Map([['k', 1]]) },
    'an own __proto__ key': JSON.parse('{"__proto__": {"polluted": true}, "a": 1}'),
    'a null-prototype object': Object.assign(Object.create(null), { a: 1 }),
    'a string': 'text',
    'null': null,
  };
  for (const [name, v] of Object.entries(values)) {
    it(`copies ${name} as JSON does`, () => {
      const copy = jsonClone(v);
      expect(JSON.stringify(copy)).toBe(JSON.stringify(roundTrip(v)));
      expect(copy).toEqual(roundTrip(v));
    });
  }

  it('never aliases what it copied', () => {
    const v = { a: { b: [1, { c: 2 }] } };
    const copy = jsonClone(v);
    (copy.a.b[1] as { c: number }).c = 3;
    expect(v.a.b[1]).toEqual({ c: 2 });
  });

  it('keeps an own __proto__ key as data, never as the prototype', () => {
    const copy = jsonClone(JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('leaves undefined as it is', () => {
    expect(jsonClone(undefined)).toBeUndefined();
  });
});
