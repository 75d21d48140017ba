/**
 * The EventStore part of the Store contract (events kept for waits stored after them),
 * run on the memory store and on DynamoDB Local by memory.test.ts and dynamodb.test.ts.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AwsEvent, Store } from '../../lib/engine/index.js';
import { T0 } from './fixtures.js';

const ev = (id: string, size = 0): AwsEvent => ({ id, source: 's', 'detail-type': 'd', detail: { id, pad: 'x'.repeat(size) } });
const sec = (ms: number) => Math.ceil(ms / 1000);

export function keptEventsContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });

    it('keeps events per key, oldest first, each until its own expiry', async () => {
      await store.keepEvent('k1', { event: ev('a'), receivedAt: T0 }, sec(T0 + 60_000));
      await store.keepEvent('k1', { event: ev('b'), receivedAt: T0 + 1 }, sec(T0 + 3_600_000));
      await store.keepEvent('k2', { event: ev('c'), receivedAt: T0 + 2 }, sec(T0 + 3_600_000));
      expect(await store.keptEvents('k1', T0)).toEqual([{ event: ev('a'), receivedAt: T0 }, { event: ev('b'), receivedAt: T0 + 1 }]);
      expect((await store.keptEvents('k2', T0)).map((k) => k.event.id)).toEqual(['c']);
      expect((await store.keptEvents('k1', T0 + 120_000)).map((k) => k.event.id)).toEqual(['b']);
      expect(await store.keptEvents('k1', T0 + 7_200_000)).toEqual([]);
      expect(await store.keptEvents('none', T0)).toEqual([]);
    });

    it('keeps the newest ten of a key', async () => {
      for (let i = 0; i < 13; i++) await store.keepEvent('k', { event: ev(`e${i}`), receivedAt: T0 + i }, sec(T0 + 3_600_000));
      expect((await store.keptEvents('k', T0)).map((k) => k.event.id)).toEqual(Array.from({ length: 10 }, (_, i) => `e${i + 3}`));
    });

    it('loses no event kept at once under one key', async () => {
      await Promise.all(Array.from({ length: 8 }, (_, i) => store.keepEvent('k', { event: ev(`e${i}`), receivedAt: T0 }, sec(T0 + 3_600_000))));
      expect((await store.keptEvents('k', T0)).map((k) => k.event.id).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `e${i}`));
    });

    it('always keeps the newest, however large the events under its key', async () => {
      await store.keepEvent('big', { event: ev('a', 250_000), receivedAt: T0 }, sec(T0 + 3_600_000));
      await store.keepEvent('big', { event: ev('b', 250_000), receivedAt: T0 + 1 }, sec(T0 + 3_600_000));
      const kept = await store.keptEvents('big', T0);
      expect(kept.at(-1)!.event).toEqual(ev('b', 250_000));
    });
  });
}
