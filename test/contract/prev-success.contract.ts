/**
 * The DAG's latest-success mark (PrevSuccessStore): the same tests on the memory store and
 * DynamoDB Local. The mark only moves forward in logical date, racing writers included.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunSuccessMark, Store } from '../../lib/engine/index.js';

const mark = (runId: string, logicalDate: number, extra: Partial<RunSuccessMark> = {}): RunSuccessMark => ({
  runId, logicalDate, dataIntervalStart: logicalDate - 86_400_000, dataIntervalEnd: logicalDate, ...extra,
});

export function prevSuccessContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`PrevSuccessStore contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });

    it('keeps the latest logical date; the same date rewrites (a rerun refreshes its times); other DAGs are apart', async () => {
      expect(await store.getLastSuccess('a')).toBeUndefined();
      expect(await store.putLastSuccess('a', mark('r2', 2000, { startedAt: 5, endedAt: 6 }))).toBe(true);
      expect(await store.putLastSuccess('a', mark('r1', 1000))).toBe(false);
      expect(await store.getLastSuccess('a')).toEqual(mark('r2', 2000, { startedAt: 5, endedAt: 6 }));
      expect(await store.putLastSuccess('a', mark('r2', 2000, { startedAt: 7 }))).toBe(true);
      expect(await store.getLastSuccess('a')).toEqual(mark('r2', 2000, { startedAt: 7 }));
      expect(await store.getLastSuccess('b')).toBeUndefined();
    });

    it('racing writers: the latest logical date wins whatever the order', async () => {
      const dates = [5, 3, 9, 1, 7, 8, 2].map((n) => n * 1000);
      await Promise.all(dates.map((t) => store.putLastSuccess('a', mark(`r${t}`, t))));
      expect((await store.getLastSuccess('a'))?.runId).toBe('r9000');
    });
  });
}
