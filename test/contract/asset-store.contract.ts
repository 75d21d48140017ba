/**
 * The AssetStore contract (lib/engine/model/asset-store.ts), run on the memory store and on
 * DynamoDB Local by test/contract/assets.test.ts, so the two adapters cannot drift apart.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AssetEventRecord, AssetRecord, Store } from '../../lib/engine/index.js';
import { assetEventHash, assetEventId, assetEventRef, assetId } from '../../lib/engine/index.js';

const T0 = Date.UTC(2026, 0, 1);
const A = 's3://lake/raw';
const B = 'customers';

function event(uri: string, key: string, at: number, over: Partial<AssetEventRecord> = {}): AssetEventRecord {
  const hash = assetEventHash(uri, key);
  return { ref: assetEventRef(at, hash), id: assetEventId(hash), uri, timestamp: at, extra: { key, n: [1, { deep: true }] }, origin: 'api', ...over };
}

function record(uri: string, over: Partial<AssetRecord> = {}): AssetRecord {
  return { uri, name: uri, group: 'asset', id: assetId(uri), active: true, createdAt: T0, updatedAt: T0, consumers: ['d'], producers: [{ dagId: 'p', taskId: 't' }], inlets: [], ...over };
}

export function assetStoreContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`AssetStore contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });

    it('keeps registry records and lists them by URI', async () => {
      await store.putAssetRecord(record(B, { extra: { tier: 1 } }));
      await store.putAssetRecord(record(A, { watchers: [{ kind: 's3', name: 'w', bucket: 'lake' }] }));
      expect(await store.getAssetRecord(A)).toEqual(record(A, { watchers: [{ kind: 's3', name: 'w', bucket: 'lake' }] }));
      expect((await store.listAssetRecords()).map((r) => r.uri)).toEqual([B, A]);
      await store.putAssetRecord(record(B, { active: false, consumers: [] }));
      expect(await store.getAssetRecord(B)).toEqual(record(B, { active: false, consumers: [] }));
      expect(await store.getAssetRecord('missing')).toBeUndefined();
    });

    it('indexes watchers by source and deletes them', async () => {
      const w1 = { source: 's3:lake', uri: A, watcher: { kind: 's3' as const, name: 'raw', bucket: 'lake', prefix: 'raw/' } };
      const w2 = { source: 's3:lake', uri: B, watcher: { kind: 's3' as const, name: 'c', bucket: 'lake' } };
      await store.putAssetWatcher(w1);
      await store.putAssetWatcher(w2);
      await store.putAssetWatcher({ source: 'sqs:q', uri: A, watcher: { kind: 'sqs', name: 'q', queue: 'q' } });
      expect((await store.listAssetWatchers('s3:lake')).sort((a, b) => (a.uri < b.uri ? -1 : 1))).toEqual([w1, w2].sort((a, b) => (a.uri < b.uri ? -1 : 1)));
      await store.deleteAssetWatcher(w1);
      expect(await store.listAssetWatchers('s3:lake')).toEqual([w2]);
      expect(await store.listAssetWatchers('nothing')).toEqual([]);
    });

    it('stores an event once per key; a second put returns the first event', async () => {
      const first = await store.putAssetEvent(event(A, 'k1', T0));
      expect(first).toEqual({ created: true, event: event(A, 'k1', T0) });
      const again = await store.putAssetEvent(event(A, 'k1', T0 + 5_000, { extra: { other: true } }));
      expect(again).toEqual({ created: false, event: event(A, 'k1', T0) });
      const many = await Promise.all(Array.from({ length: 10 }, (_, i) => store.putAssetEvent(event(A, 'k2', T0 + i))));
      expect(many.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(many.map((r) => r.event.ref)).size).toBe(1);
    });

    it('lists an asset\'s events newest first within [after, before), and gets them by ref', async () => {
      for (let i = 0; i < 5; i++) await store.putAssetEvent(event(A, `k${i}`, T0 + i * 1000));
      await store.putAssetEvent(event(B, 'other', T0 + 2500));
      const all = await store.listAssetEvents(A, { limit: 10 });
      expect(all.map((e) => e.timestamp)).toEqual([4, 3, 2, 1, 0].map((i) => T0 + i * 1000));
      expect((await store.listAssetEvents(A, { limit: 2 })).map((e) => e.timestamp)).toEqual([T0 + 4000, T0 + 3000]);
      expect((await store.listAssetEvents(A, { limit: 10, after: T0 + 1000, before: T0 + 3000 })).map((e) => e.timestamp)).toEqual([T0 + 2000, T0 + 1000]);
      const refs = [event(A, 'k3', T0 + 3000).ref, event(A, 'gone', T0).ref, event(A, 'k0', T0).ref];
      expect((await store.getAssetEvents(refs)).map((e) => e.extra.key)).toEqual(['k3', 'k0']);
    });

    it('queues an event once per DAG, even when the queueing races', async () => {
      const e = (await store.putAssetEvent(event(A, 'k', T0))).event;
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => store.queueAssetEvent('d', A, e.ref, T0 + 1, 100)));
      expect(outcomes.filter((o) => o === 'queued')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'already')).toHaveLength(7);
      expect(await store.queueAssetEvent('d2', A, e.ref, T0 + 2, 100)).toBe('queued');
      expect(await store.getAssetQueue('d')).toEqual({ dagId: 'd', gen: 0, openedAt: T0 + 1, queued: { [A]: [e.ref] } });
      expect((await store.getAssetEvents([e.ref]))[0]!.queuedFor).toEqual(['d', 'd2']);
    });

    it('counts events beyond the cap as an overflow mark instead of listing them', async () => {
      const refs: string[] = [];
      for (let i = 0; i < 3; i++) {
        const e = (await store.putAssetEvent(event(A, `k${i}`, T0 + i))).event;
        refs.push(e.ref);
        expect(await store.queueAssetEvent('d', A, e.ref, T0, 2)).toBe(i < 2 ? 'queued' : 'overflow');
      }
      expect(await store.getAssetQueue('d')).toEqual({ dagId: 'd', gen: 0, openedAt: T0, queued: { [A]: refs.slice(0, 2) }, overflow: [A] });
      expect(await store.queueAssetEvent('d', A, refs[2]!, T0, 2)).toBe('already');
    });

    it('consumes a generation once: exactly the given refs, overflow marks cleared; a stale generation loses', async () => {
      const ea = (await store.putAssetEvent(event(A, 'a', T0))).event;
      const eb = (await store.putAssetEvent(event(B, 'b', T0 + 1))).event;
      const late = (await store.putAssetEvent(event(A, 'late', T0 + 2))).event;
      await store.queueAssetEvent('d', A, ea.ref, T0, 100);
      await store.queueAssetEvent('d', B, eb.ref, T0, 100);
      await store.queueAssetEvent('d', A, late.ref, T0, 100);
      const racers = await Promise.all([0, 1, 2].map(() => store.consumeAssetQueue('d', 0, { [A]: [ea.ref], [B]: [eb.ref] }, T0 + 10)));
      expect(racers.filter((r) => r.ok)).toHaveLength(1);
      const won = racers.find((r) => r.ok)!;
      expect(won).toEqual({ ok: true, item: { dagId: 'd', gen: 1, openedAt: T0 + 10, queued: { [A]: [late.ref] } } });
      for (const lost of racers.filter((r) => !r.ok)) expect(lost).toMatchObject({ ok: false, current: { gen: 1 } });
      await store.markAssetEventsConsumed([ea.ref, eb.ref], 'd/r1');
      await store.markAssetEventsConsumed([ea.ref], 'd/r1');
      expect((await store.getAssetEvents([ea.ref]))[0]!.consumedBy).toEqual(['d/r1']);
      await store.clearAssetQueue('d', A);
      expect(await store.getAssetQueue('d')).toEqual({ dagId: 'd', gen: 1, openedAt: T0 + 10, queued: {} });
      await store.clearAssetQueue('d');
      expect(await store.getAssetQueue('d')).toBeUndefined();
    });
  });
}
