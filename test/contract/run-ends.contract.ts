/**
 * Contract of the run-end counts (lib/engine/model/run-ends-store.ts), run on the memory
 * store and on DynamoDB Local (memory.test.ts, dynamodb.test.ts): sets, so every count is
 * idempotent; an end moves between ok and failed; concurrent counts of one shard are all
 * kept, whether or not the adapter merges them into fewer writes.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../lib/engine/index.js';

const run = { dagId: 'wide', runId: 'r1' };

export function runEndsContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`Run-end counts contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });

    it('counts an end once, moves it between ok and failed, and returns the shard after the write', async () => {
      expect(await store.countRunEnds(run, 0, [{ index: 3, failed: false }])).toEqual({ ok: [3], failed: [] });
      expect(await store.countRunEnds(run, 0, [{ index: 3, failed: false }, { index: 7, failed: false }])).toEqual({ ok: [3, 7], failed: [] });
      expect(await store.countRunEnds(run, 0, [{ index: 7, failed: true }])).toEqual({ ok: [3], failed: [7] });
      expect(await store.countRunEnds(run, 0, [{ index: 9, failed: true }, { index: 3, failed: true }, { index: 7, failed: false }])).toEqual({ ok: [7], failed: [3, 9] });
      expect(await store.countRunEnds({ ...run, runId: 'r2' }, 0, [{ index: 1, failed: false }])).toEqual({ ok: [1], failed: [] });
      expect(await store.getRunEnds(run, [0, 1])).toEqual(new Map([[0, { ok: [7], failed: [3, 9] }]]));
    });

    it('keeps every one of many concurrent counts of one shard, each answered with a shard that holds it', async () => {
      const results = await Promise.all(Array.from({ length: 25 }, (_, i) => store.countRunEnds(run, 2, [{ index: 200 + i, failed: i % 5 === 0 }])));
      results.forEach((r, i) => expect([...r.ok, ...r.failed]).toContain(200 + i));
      const [shard] = [...(await store.getRunEnds(run, [2])).values()];
      expect(shard!.failed).toEqual([200, 205, 210, 215, 220]);
      expect(shard!.ok).toHaveLength(20);
    });

    it('closes shards idempotently, and forgetting a cleared end reopens its shard', async () => {
      await store.countRunEnds(run, 0, [{ index: 0, failed: false }, { index: 1, failed: false }]);
      expect(await store.closeRunEndShard(run, 0)).toBe(1);
      expect(await store.closeRunEndShard(run, 0)).toBe(1);
      expect(await store.closeRunEndShard(run, 1)).toBe(2);
      await store.uncountRunEnds(run, 0, [1]);
      expect(await store.getRunEnds(run, [0])).toEqual(new Map([[0, { ok: [0], failed: [] }]]));
      // Shard 0 is open again: closing it brings the count back to two, not three.
      expect(await store.closeRunEndShard(run, 0)).toBe(2);
    });
  });
}
