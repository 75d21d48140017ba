import { describe, expect, it } from 'vitest';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';

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

  // Airflow 3: airflow/utils/helpers.py validate_key (max_length=250) for dag and task ids.
  it('runs a DAG whose dag and task ids are 250 characters long, with a retry on the way', async () => {
    const dagId = 'd'.repeat(250);
    const [a, b] = ['a'.repeat(250), 'b'.repeat(250)];
    let tries = 0;
    const d = dag(dagId, { defaultArgs: { retries: 1, retryDelay: '1m' } }, ({ task }) => {
      task(a, () => { if (++tries === 1) throw new Error('once'); return 1; }).before(task(b, async (ctx) => ctx.xcom.pull<number>(a)));
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, dagId);
    expect(r.run.state).toBe('success');
    expect(r.states).toEqual({ [a]: 'success', [b]: 'success' });
    expect(await rt.ports.store.getXcom({ dagId, runId: r.run.runId, taskId: b, key: 'return_value' })).toBe(1);
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
