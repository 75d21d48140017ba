/**
 * depthProblem (lib/engine/rules/values.ts): how deep a value nests, measured without
 * recursion, in the order serializers meet containers (issue 19, defect 2).
 */
import { describe, expect, it } from 'vitest';
import { depthProblem, InvalidInputError, MAX_VALUE_DEPTH } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime } from '../../helpers/runtime.js';

const nested = (levels: number, wrap: (v: unknown) => unknown = (v) => [v]): unknown => {
  let v: unknown = 'bottom';
  for (let i = 0; i < levels; i++) v = wrap(v);
  return v;
};

describe('depthProblem', () => {
  it('accepts MAX_VALUE_DEPTH levels of any container and refuses one more, naming where', () => {
    expect(MAX_VALUE_DEPTH).toBe(1000);
    for (const wrap of [(v: unknown) => [v], (v: unknown) => ({ a: v }), (v: unknown) => new Map([['k', v]]), (v: unknown) => new Set([v])]) {
      expect(depthProblem(nested(1000, wrap))).toBeUndefined();
      expect(depthProblem(nested(1001, wrap))).toMatch(/^nested more than 1000 levels deep \(at value.{10,}\)$/);
    }
    expect(depthProblem({ a: [{ 'b c': new Map([['k', [1]]]) }] }, 4)).toBe('nested more than 4 levels deep (at value.a[0]["b c"].values[0])');
    expect(depthProblem(nested(3), 2, 'conf')).toBe('nested more than 2 levels deep (at conf[0][0])');
  });

  it('measures a million levels without a stack overflow, and shortens the path to one line', () => {
    const problem = depthProblem(nested(1_000_000));
    expect(problem).toMatch(/^nested more than 1000 levels deep \(at value\[0\]\[0\].*….*\[0\]\)$/);
    expect(problem!.length).toBeLessThan(200);
  });

  it('visits each container once: cycles end, and a shared one counts where it is first met', () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(depthProblem(loop, 2)).toBeUndefined();
    const shared = [[1]];
    // First met at depth 2 (inside `a`), later at depth 4: serializers write the second meeting as a back-reference.
    expect(depthProblem({ a: shared, b: [[shared]] }, 3)).toBeUndefined();
    expect(depthProblem({ b: [[shared]], a: shared }, 3)).toBe('nested more than 3 levels deep (at value.b[0][0])');
    expect(depthProblem(new Uint8Array(10), 0)).toBe('nested more than 0 levels deep (at value)');
    expect(depthProblem('text')).toBeUndefined();
  });
});

describe('triggerRun with a conf nested too deeply', () => {
  it('refuses it before storing anything, naming where', async () => {
    const { rt } = await makeRuntime([dag('deep_conf', {}, ({ task }) => { task('a', () => 1); })]);
    await expect(rt.trigger('deep_conf', { conf: { a: nested(1000) } })).rejects.toThrow(InvalidInputError);
    await expect(rt.trigger('deep_conf', { conf: { a: nested(1000) } })).rejects.toThrow(/^conf is nested more than 1000 levels deep \(at conf\.a\[0\]/);
    expect(await rt.ports.store.listRuns('deep_conf', {})).toEqual([]);
    expect((await rt.trigger('deep_conf', { conf: { a: nested(998) } })).state).toBeDefined();
  });
});
