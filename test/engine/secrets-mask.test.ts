/**
 * redactDeep (lib/engine/rules/secrets-mask.ts) over any value XCom keeps: cycles, Maps, Sets,
 * any depth (issue 19, defect 1: once a secret had been read, a circular return value
 * failed its try with a stack overflow). Engine behaviour on both stores (ENGINE_SUITES).
 */
import { describe, expect, it } from 'vitest';
import { maskSecret, redactDeep } from '../../lib/engine/index.js';
import { LocalSecrets } from '../../lib/adapters/secrets-local.js';
import { dag } from '../../lib/sdk/index.js';
import { makeRuntime, runOnce } from '../helpers/runtime.js';

describe('redactDeep', () => {
  maskSecret('hunter2-secret');

  it('masks strings in arrays, objects (keys too), Maps and Sets, keeping cycles and shared references', () => {
    const shared = { note: 'uses hunter2-secret' };
    const v: Record<string, unknown> = { list: [shared, shared], m: new Map([['k', 'hunter2-secret']]), s: new Set(['x hunter2-secret']), 'hunter2-secret': 1, n: 5n };
    v.self = v;
    const out = redactDeep(v) as Record<string, any>;
    expect(out).not.toBe(v);
    expect(out.self).toBe(out);
    expect(out.list[0]).toBe(out.list[1]);
    expect(out.list[0]).toEqual({ note: 'uses ***' });
    expect([...out.m]).toEqual([['k', '***']]);
    expect([...out.s]).toEqual(['x ***']);
    expect(out['***']).toBe(1);
    expect(out.n).toBe(5n);
    expect(v.list).toEqual([shared, shared]); // the original is untouched
    expect(shared.note).toBe('uses hunter2-secret');
  });

  it('returns a value without secrets as it is, and walks any depth without recursion', () => {
    const loop: Record<string, unknown> = { name: 'plain' };
    loop.self = loop;
    expect(redactDeep(loop)).toBe(loop);
    let deep: unknown = 'at the bottom: hunter2-secret';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let out = redactDeep(deep);
    for (let i = 0; i < 100_000; i++) out = (out as unknown[])[0];
    expect(out).toBe('at the bottom: ***');
  });
});

describe('a task that read a secret', () => {
  it('returns a circular value: the try succeeds and the stored value is masked, its cycle kept', async () => {
    const d = dag('circular_secret', {}, ({ task }) => {
      task('read', async (ctx) => {
        const token = await ctx.variables.get('api_token');
        const v: Record<string, unknown> = { header: `Bearer ${token}` };
        v.self = v;
        return v;
      });
    });
    const { rt } = await makeRuntime([d], { secrets: new LocalSecrets({ env: { AIRLESS_VAR_API_TOKEN: 'tok-circular-9876' }, dir: '/nonexistent' }) });
    const r = await runOnce(rt, 'circular_secret');
    expect(r.states).toEqual({ read: 'success' });
    const stored = (await rt.ports.store.getXcom({ dagId: 'circular_secret', runId: r.run.runId, taskId: 'read', key: 'return_value' })) as Record<string, unknown>;
    expect(stored.header).toBe('Bearer ***');
    expect(stored.self).toBe(stored);
  });
});
