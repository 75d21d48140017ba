import { describe, expect, it } from 'vitest';
import { dag } from '../../lib/sdk/index.js';
import { makeRuntime, runOnce } from '../helpers/runtime.js';

describe('engine on the embedded runtime', () => {
  it('runs a chain with XCom to success', async () => {
    const d = dag('chain', {}, ({ task }) => {
      const a = task('a', async () => 21);
      const b = task('b', async (ctx) => (await ctx.xcom.pull<number>('a')) * 2);
      a.before(b);
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'chain');
    expect(r.outcome).toBe('done');
    expect(r.run.state).toBe('success');
    expect(r.states).toEqual({ a: 'success', b: 'success' });
    expect(await rt.ports.store.getXcom({ dagId: 'chain', runId: r.run.runId, taskId: 'b', key: 'return_value' })).toBe(42);
  });

  it('retries with delay then fails, upstream_failed downstream, run failed', async () => {
    let calls = 0;
    const d = dag('retry', { defaultArgs: { retries: 2, retryDelay: '10m' } }, ({ task }) => {
      const a = task('a', async () => { calls++; throw new Error('boom'); });
      const b = task('b', async () => 1);
      a.before(b);
    });
    const { rt, clock } = await makeRuntime([d]);
    const t0 = clock.now();
    const r = await runOnce(rt, 'retry');
    expect(calls).toBe(3);
    expect(r.states).toEqual({ a: 'failed', b: 'upstream_failed' });
    expect(r.tasks.a.tryNumber).toBe(3);
    expect(r.tasks.a.error).toContain('boom');
    expect(r.run.state).toBe('failed');
    expect(clock.now() - t0).toBeGreaterThanOrEqual(20 * 60_000);
  });
});
