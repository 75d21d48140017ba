/**
 * Airflow's pools, read: the bundle's definePool pools with the slots their store
 * counters hold (a pooled task that waits for a signal holds its slot meanwhile).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dag, definePool } from '../../lib/sdk/index.js';
import { apiOverRuntime, errorText } from './support.js';

const warehouse = definePool('warehouse', { slots: 4, description: 'the shared warehouse' });
const pooled = dag('pooled_wait', { schedule: null }, ({ task }) => {
  task('hold', {
    execute: async (ctx) => ctx.defer({ trigger: { event: 'never-{{ ds }}' }, resume: 'done', timeout: '1d' }),
    done: async () => 'ok',
  }, { pool: warehouse, poolSlots: 2 });
});

let h: Awaited<ReturnType<typeof apiOverRuntime>>;
beforeAll(async () => { h = await apiOverRuntime([pooled]); });
afterAll(async () => { await h.api.close(); });

describe('pools', () => {
  it('lists the declared pools with the slots the store holds, and finds one by name', async () => {
    const idle = await h.call('GET', '/api/v2/pools');
    expect(idle.json).toEqual({ total_entries: 1, pools: [expect.objectContaining({ name: 'warehouse', slots: 4, description: 'the shared warehouse', occupied_slots: 0, open_slots: 4 })] });
    const run = await h.rt.trigger('pooled_wait');
    expect(await h.rt.runToCompletion('pooled_wait', run.runId, { maxVirtualMs: 60_000 })).toBe('stalled');
    const free = (await h.rt.ports.store.getPool('warehouse'))!.free;
    const busy = (await h.call('GET', '/api/v2/pools/warehouse')).json;
    expect(busy).toMatchObject({ name: 'warehouse', slots: 4, open_slots: free, occupied_slots: 4 - free });
    expect((await h.call('GET', '/api/v2/pools?pool_name_pattern=ware%')).json.total_entries).toBe(1);
    expect((await h.call('GET', '/api/v2/pools?pool_name_pattern=x%')).json).toEqual({ pools: [], total_entries: 0 });
    const missing = await h.call('GET', '/api/v2/pools/nope');
    expect(missing.status).toBe(404);
    expect(errorText(missing)).toMatch(/was not found/);
  });
});
