/**
 * The poker-state part of the Store contract (lib/engine/model/poker-state.ts), run on the
 * memory store and on DynamoDB Local: each write succeeds only over the version before it
 * (one winner among racing writers, the loser told the state as it is), reads are
 * consistent, and a virtual shard's sensors are found. Each test gets a fresh store.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { PokerState, Store, TriggerRecord } from '../../lib/engine/index.js';
import { T0 } from './fixtures.js';

const state = (shard: number, want: PokerState['want'], version: number, since = T0): PokerState => ({ shard, want, version, since });

export function pokerStateContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store contract, poker states: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });

    it('has no state until the first write (version 1), then reads back what was written', async () => {
      expect(await store.getPokerState(3)).toBeUndefined();
      expect(await store.putPokerState(state(3, 'on', 1))).toEqual({ ok: true, item: state(3, 'on', 1) });
      expect(await store.getPokerState(3)).toEqual(state(3, 'on', 1));
      expect(await store.getPokerState(4)).toBeUndefined();
    });

    it('writes only over the version before: a stale or skipping write fails with the stored state', async () => {
      await store.putPokerState(state(0, 'on', 1));
      await store.putPokerState(state(0, 'draining', 2, T0 + 60_000));
      expect(await store.putPokerState(state(0, 'on', 1))).toMatchObject({ ok: false, current: state(0, 'draining', 2, T0 + 60_000) });
      expect(await store.putPokerState(state(0, 'off', 2))).toMatchObject({ ok: false, current: state(0, 'draining', 2, T0 + 60_000) });
      expect(await store.putPokerState(state(0, 'off', 4))).toMatchObject({ ok: false });
      expect((await store.putPokerState(state(0, 'off', 3))).ok).toBe(true);
      expect(await store.getPokerState(0)).toEqual(state(0, 'off', 3));
    });

    it('lets exactly one of 8 racing writers of the same version win', async () => {
      await store.putPokerState(state(1, 'off', 1));
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.putPokerState(state(1, i % 2 ? 'on' : 'draining', 2, T0 + i))));
      const won = results.filter((r) => r.ok);
      expect(won).toHaveLength(1);
      expect(await store.getPokerState(1)).toEqual(won[0]!.ok ? won[0]!.item : undefined);
      for (const r of results.filter((x) => !x.ok)) expect(r).toMatchObject({ ok: false, current: { version: 2 } });
    });

    it('finds the sensor registrations of a virtual shard, and none once they are gone', async () => {
      const reg: TriggerRecord = {
        id: 'd/r/s', kind: 'sensor', dagId: 'd', runId: 'r', taskId: 's', tryNumber: 1, createdAt: T0,
        sensorType: 'probe', pokeContext: {}, hashcode: 'h', shardcode: 13, nextPokeAt: T0,
      };
      expect(await store.hasSensorTriggers(13)).toBe(false);
      await store.putTrigger(reg);
      expect(await store.hasSensorTriggers(13)).toBe(true);
      expect(await store.hasSensorTriggers(12)).toBe(false);
      await store.deleteTrigger(reg.id);
      expect(await store.hasSensorTriggers(13)).toBe(false);
    });
  });
}
