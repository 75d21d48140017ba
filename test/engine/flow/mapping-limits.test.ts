/**
 * Mapped instances under a pool and maxActiveTisPerDagrun: each instance takes its slots
 * like a task, the mapped task's own item (the expander) takes none. Airflow 3 does not
 * respect these limits for mapped tasks (apache/airflow#48629, #49696); Airless must.
 */
import { describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../../lib/adapters/clock.js';
import { dag, definePool } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce, T0 } from '../../helpers/runtime.js';

const MIN = 60_000;

function peakCounter() {
  let active = 0;
  let peak = 0;
  return {
    get peak() { return peak; },
    async run(clock: VirtualClock, value: number) {
      active += 1;
      peak = Math.max(peak, active);
      await clock.sleep(MIN);
      active -= 1;
      return value;
    },
  };
}

describe('mapping under limits', () => {
  it('maxActiveTisPerDagrun 2: six instances run two at a time, and every value arrives downstream', async () => {
    const holder: { clock?: VirtualClock } = {};
    const c = peakCounter();
    const d = dag('mapped_limited', {}, ({ task }) => {
      const list = task('list', async () => [1, 2, 3, 4, 5, 6]);
      const size = task('size', (_ctx, n: number) => c.run(holder.clock!, n * 10), { maxActiveTisPerDagrun: 2 }).expand(list);
      size.before(task('total', async (ctx) => (await ctx.xcom.pull<number[]>('size')).reduce((s, n) => s + n, 0)));
    });
    const { rt, clock } = await makeRuntime([d], { concurrency: 8 });
    holder.clock = clock;
    const r = await runOnce(rt, 'mapped_limited');
    expect(r.run.state).toBe('success');
    expect(c.peak).toBe(2);
    expect(clock.now() - T0).toBe(3 * MIN);
    expect(r.states.total).toBe('success');
    expect(await rt.ports.store.getXcom({ dagId: 'mapped_limited', runId: r.run.runId, taskId: 'total', key: 'return_value' })).toBe(210);
  });

  it('a pool of 3 slots shared with a plain task: instances and the plain task never exceed 3, and the slots come back', async () => {
    const holder: { clock?: VirtualClock } = {};
    const c = peakCounter();
    const three = definePool('three', { slots: 3 });
    const d = dag('mapped_pool', {}, ({ task }) => {
      task('plain', () => c.run(holder.clock!, 0), { pool: three });
      task('size', (_ctx, n: number) => c.run(holder.clock!, n), { pool: 'three' }).expand([1, 2, 3, 4, 5]);
    });
    const { rt, clock } = await makeRuntime([d], { concurrency: 8 });
    holder.clock = clock;
    const r = await runOnce(rt, 'mapped_pool');
    expect(r.run.state).toBe('success');
    expect(c.peak).toBe(3);
    expect(clock.now() - T0).toBe(2 * MIN);
    expect(await rt.ports.store.getPool('three')).toMatchObject({ slots: 3, free: 3 });
  });
});
