/** The Store's mapping operations, on the memory store and on DynamoDB Local (the vitest project chooses). */
import { describe, expect, it } from 'vitest';
import type { TaskInstance } from '../../../lib/engine/index.js';
import { testStore } from '../../helpers/stores.js';

const parent = { dagId: 'd', runId: 'r', taskId: 'size' };
const inst = (taskId: string, extra: Partial<TaskInstance> = {}): TaskInstance =>
  ({ dagId: 'd', runId: 'r', taskId, state: 'queued', tryNumber: 1, upstream: {}, ...extra });

describe('mapping store operations', () => {
  it('counts are idempotent sets per shard: a repeated count changes nothing, a new outcome moves the index', async () => {
    const store = await testStore();
    await store.initMapCounts(parent, 250);
    expect(await store.getMapSummary(parent)).toEqual({ closed: [], want: 3 });
    const a = await store.countMapped(parent, 2, 201, 'failed');
    expect(a.want).toBe(50);
    expect(a.indexes.failed).toEqual([201]);
    expect((await store.countMapped(parent, 2, 201, 'failed')).indexes.failed).toEqual([201]);
    const moved = await store.countMapped(parent, 2, 201, 'success');
    expect(moved.indexes).toEqual({ success: [201], failed: [], skipped: [], upstream_failed: [] });
    // A repeated init (a resumed expansion) leaves the counts alone.
    await store.initMapCounts(parent, 250);
    expect((await store.getMapShards(parent, [2])).get(2)!.indexes.success).toEqual([201]);
  });

  it('closing shards is idempotent, uncounting reopens a shard, and shards are read back by number', async () => {
    const store = await testStore();
    await store.initMapCounts(parent, 150);
    expect(await store.closeMapShard(parent, 1)).toEqual({ closed: 1, want: 2 });
    expect(await store.closeMapShard(parent, 1)).toEqual({ closed: 1, want: 2 });
    expect(await store.closeMapShard(parent, 0)).toEqual({ closed: 2, want: 2 });
    await store.countMapped(parent, 1, 120, 'skipped');
    await store.uncountMapped(parent, 1, 120);
    expect(await store.getMapSummary(parent)).toEqual({ closed: [0], want: 2 });
    const shards = await store.getMapShards(parent, [0, 1]);
    expect([...shards.keys()].sort()).toEqual([0, 1]);
    expect(shards.get(1)).toEqual({ want: 50, indexes: { success: [], failed: [], skipped: [], upstream_failed: [] } });
    expect(await store.getMapSummary({ ...parent, taskId: 'other' })).toBeUndefined();
  });

  it('listMapped returns exactly the instances of one task (not the task, not a task with a longer id)', async () => {
    const store = await testStore();
    for (const t of [inst('size', { state: 'running' }), inst('size#0', { mapIndex: 0, mapItem: '"a"' }), inst('size#10', { mapIndex: 10 }), inst('size2#0', { mapIndex: 0 }), inst('sizes', {})]) {
      expect((await store.putTask(t)).ok).toBe(true);
    }
    const got = (await store.listMapped(parent)).map((t) => [t.taskId, t.mapIndex, t.mapItem]).sort();
    expect(got).toEqual([['size#0', 0, '"a"'], ['size#10', 10, undefined]]);
  });
});
