/**
 * Contract of the maxActiveRuns slots (lib/engine/model/run-slots-store.ts), run on the
 * memory store and on DynamoDB Local: a take is refused at max, repeated takes and
 * give-backs change nothing, concurrent takes never pass max, and the DAG record shows
 * who holds them.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../lib/engine/index.js';
import { T0, dag } from './fixtures.js';

export function runSlotsContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`Run slots contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
      await store.putDag(dag('d'));
    });

    it('takes up to max, idempotently; gives back idempotently; the DAG record shows the holders', async () => {
      expect(await store.takeRunSlot('d', 'r1', 2, T0)).toBe('taken');
      // A repeated take keeps the time the slot was first taken.
      expect(await store.takeRunSlot('d', 'r1', 2, T0 + 5)).toBe('held');
      expect(await store.takeRunSlot('d', 'r2', 2, T0)).toBe('taken');
      expect(await store.takeRunSlot('d', 'r3', 2, T0)).toBe('full');
      // A run holding a slot keeps it even when the DAG is full.
      expect(await store.takeRunSlot('d', 'r2', 2, T0)).toBe('held');
      expect(await store.getDag('d')).toMatchObject({ activeRuns: 2, runSlots: { r1: T0, r2: T0 } });
      expect(await store.releaseRunSlot('d', 'r1')).toBe(1);
      expect(await store.releaseRunSlot('d', 'r1')).toBe(1);
      expect(await store.takeRunSlot('d', 'r3', 2, T0)).toBe('taken');
      expect((await store.listDags()).find((x) => x.dagId === 'd')).toMatchObject({ activeRuns: 2, runSlots: { r2: T0, r3: T0 } });
      // Updating the DAG (a new bundle version) keeps its holders.
      expect(await store.updateDag('d', { paused: true })).toMatchObject({ ok: true, item: { activeRuns: 2 } });
      expect((await store.getDag('d'))!.runSlots).toEqual({ r2: T0, r3: T0 });
    });

    it('refuses a DAG that does not exist', async () => {
      expect(await store.takeRunSlot('missing', 'r1', 5, T0)).toBe('no_dag');
      expect(await store.releaseRunSlot('missing', 'r1')).toBeUndefined();
    });

    it('twelve concurrent takes with max 3: three taken, nine refused', async () => {
      const takes = await Promise.all(Array.from({ length: 12 }, (_, i) => store.takeRunSlot('d', `r${i}`, 3, T0)));
      expect(takes.filter((t) => t === 'taken')).toHaveLength(3);
      expect(takes.filter((t) => t === 'full')).toHaveLength(9);
      expect((await store.getDag('d'))!.activeRuns).toBe(3);
    });
  });
}
