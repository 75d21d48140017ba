/**
 * displayValue / displayText (lib/adapters/xcom-display.ts): every value the XCom codec
 * keeps becomes JSON data, within bounds, for the CLI table, `--json`, the API and the UI
 * (issue 19, defect 1).
 */
import { describe, expect, it } from 'vitest';
import { decodeXcom, encodeXcom } from '../../lib/adapters/xcom-codec.js';
import { displayText, displayValue } from '../../lib/adapters/xcom-display.js';

const key = { dagId: 'd', runId: 'r', taskId: 't', key: 'return_value' };

describe('displayValue', () => {
  it('leaves JSON as it is and tags each other kind the codec keeps', () => {
    expect(displayValue({ rows: 42, ok: true, name: 'x', list: [1, null], at: new Date(0) })).toEqual({ rows: 42, ok: true, name: 'x', list: [1, null], at: '1970-01-01T00:00:00.000Z' });
    const kept = decodeXcom(encodeXcom({
      big: 12345678901234567890n, map: new Map<unknown, unknown>([['a', 1], [2n, new Set([3])]]), undef: undefined,
      nums: [NaN, Infinity, -Infinity, -0], re: /a+/gi, url: new URL('https://example.com/x?y=1'),
      u8: new Uint8Array([1, 255]), f64: new Float64Array([1.5]), b64: new BigInt64Array([5n]), buf: new Uint8Array([9]).buffer,
      sparse: [1, , 3], bad: new Date(NaN), // eslint-disable-line no-sparse-arrays
    }, key));
    expect(displayValue(kept)).toEqual({
      big: { $bigint: '12345678901234567890' }, map: { $map: [['a', 1], [{ $bigint: '2' }, { $set: [3] }]] }, undef: { $undefined: true },
      nums: [{ $number: 'NaN' }, { $number: 'Infinity' }, { $number: '-Infinity' }, 0], re: { $regexp: '/a+/gi' }, url: { $url: 'https://example.com/x?y=1' },
      u8: { $Uint8Array: [1, 255] }, f64: { $Float64Array: [1.5] }, b64: { $BigInt64Array: [{ $bigint: '5' }] }, buf: { $ArrayBuffer: [9] },
      sparse: [1, null, 3], bad: null,
    });
    expect(displayValue(undefined)).toEqual({ $undefined: true });
    expect(displayValue(7n)).toEqual({ $bigint: '7' });
  });

  it('shows a circular reference as the path of the value it points back to; a repeated one in full', () => {
    const shared = { id: 1 };
    const root: Record<string, unknown> = { a: { b: [shared, shared] } };
    (root.a as Record<string, unknown>).up = root;
    (root.a as { b: unknown[] }).b.push(root.a);
    const m = new Map<string, unknown>();
    m.set('me', m);
    expect(displayValue(decodeXcom(encodeXcom(root, key)))).toEqual({ a: { b: [{ id: 1 }, { id: 1 }, { $ref: '$.a' }], up: { $ref: '$' } } });
    expect(displayValue(m)).toEqual({ $map: [['me', { $ref: '$' }]] });
    expect(JSON.parse(JSON.stringify(displayValue(root)))).toBeTruthy();
  });

  it('stays within its bounds: depth, values and string length, marking what it left out', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const shown = JSON.stringify(displayValue(deep, { maxDepth: 3 }));
    expect(shown).toBe('[[["…"]]]');
    expect(() => JSON.stringify(displayValue(deep))).not.toThrow();
    expect(displayValue(Array.from({ length: 10 }, (_, i) => i), { maxNodes: 4 })).toEqual([0, 1, 2, '… 7 more']);
    expect(displayValue({ a: 1, b: 2, c: 3 }, { maxNodes: 2 })).toEqual({ a: 1, '…': '2 more' });
    expect(displayValue('x'.repeat(10), { maxString: 4 })).toBe('xxxx…');
  });

  it('keeps a key named __proto__ as data', () => {
    const shown = displayValue(JSON.parse('{"__proto__": {"polluted": 1}, "a": 1}')) as Record<string, unknown>;
    expect(Object.keys(shown)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('displayText', () => {
  it('is one line of JSON, cut at max characters with …, walking no more of the value than it shows', () => {
    expect(displayText({ total: 10n })).toEqual({ text: '{"total":{"$bigint":"10"}}', truncated: false });
    const cut = displayText({ list: Array.from({ length: 100_000 }, (_, i) => i) }, 40);
    expect(cut.truncated).toBe(true);
    expect(cut.text).toHaveLength(40);
    expect(cut.text.endsWith('…')).toBe(true);
    const loop: Record<string, unknown> = {};
    loop.loop = loop;
    expect(displayText(loop)).toEqual({ text: '{"loop":{"$ref":"$"}}', truncated: false });
  });
});
