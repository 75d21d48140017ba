/**
 * The backfill part of the Store contract (lib/engine/model/backfill-store.ts), run on
 * the memory store and on DynamoDB Local: ids, one open backfill per DAG, the cursor's
 * compare-and-set with the run it writes, the backfill's slots moved by run writes, and
 * completion. Each test gets a fresh store.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Backfill, BackfillStep, Store } from '../../lib/engine/index.js';
import { T0, run } from './fixtures.js';

function backfill(id: number, dagId = 'd', over: Partial<Backfill> = {}): Backfill {
  return {
    id, dagId, fromDate: T0, toDate: T0 + 9 * 86_400_000, reprocess: 'none', maxActiveRuns: 2, reverse: false,
    conf: { a: [1, { b: true }] }, runOnLatestVersion: true, schedule: { kind: 'cron', expr: '0 0 * * *', timezone: 'UTC' },
    anchor: 0, createdAt: T0, updatedAt: T0, total: 3, handled: 0, created: 0, reprocessed: 0, skipped: 0, active: 0, paused: false,
    ...over,
  };
}

const step = (from: number | undefined, to: number, outcome: BackfillStep['outcome'] = 'created'): BackfillStep => ({ from, to, outcome, now: T0 + 1 });

export function backfillStoreContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store contract, backfills: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });

    it('hands out ids 1, 2, 3... once each, also to concurrent callers', async () => {
      const ids = await Promise.all(Array.from({ length: 10 }, () => store.nextBackfillId()));
      expect([...ids].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });

    it('one open backfill per DAG: of 8 racing creations one wins, the others see it; completion frees the DAG', async () => {
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.createBackfill(backfill(i + 1))));
      const won = results.filter((r) => r.ok);
      expect(won).toHaveLength(1);
      const winner = won[0]!.ok ? won[0]!.item : undefined;
      for (const r of results.filter((x) => !x.ok)) expect(r).toMatchObject({ ok: false, current: { id: winner!.id } });
      expect(await store.getBackfill(winner!.id)).toEqual(backfill(winner!.id));
      expect(await store.listOpenBackfills()).toEqual([winner!.id]);
      expect(await store.createBackfill(backfill(20, 'other'))).toMatchObject({ ok: true });
      expect(await store.listOpenBackfills()).toEqual([winner!.id, 20].sort((a, b) => a - b));
      // Not done: refused; cancelled: done, and the DAG may have another.
      expect(await store.completeBackfill(winner!.id, T0 + 5)).toMatchObject({ ok: false });
      expect(await store.completeBackfill(winner!.id, T0 + 5, true)).toMatchObject({ ok: true, item: { completedAt: T0 + 5, cancelled: true, paused: true } });
      expect(await store.completeBackfill(winner!.id, T0 + 6, true)).toMatchObject({ ok: false, current: { completedAt: T0 + 5 } });
      expect(await store.listOpenBackfills()).toEqual([20]);
      expect(await store.createBackfill(backfill(30))).toMatchObject({ ok: true });
      expect((await store.listBackfills('d')).map((b) => b.id)).toEqual([winner!.id, 30]);
      expect(await store.getBackfill(999)).toBeUndefined();
    });

    it('a step is a compare-and-set on the cursor: of 10 racing steps from the same cursor one wins, with its run', async () => {
      await store.createBackfill(backfill(1));
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) =>
        store.stepBackfill(1, step(undefined, T0), { put: run('d', 'backfill__1', { state: 'running', backfillId: 1, queuedAt: T0 + i }) })));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      for (const r of results.filter((x) => !x.ok)) expect(r).toMatchObject({ ok: false });
      expect(await store.getBackfill(1)).toMatchObject({ cursor: T0, handled: 1, created: 1, active: 1, updatedAt: T0 + 1 });
      expect(await store.getRun('d', 'backfill__1')).toMatchObject({ state: 'running', backfillId: 1 });
      expect((await store.listActiveRuns()).map((r) => r.runId)).toEqual(['backfill__1']);
      // A stale cursor loses without writing its run.
      expect(await store.stepBackfill(1, step(undefined, T0 + 1), { put: run('d', 'backfill__x', { state: 'running' }) })).toMatchObject({ ok: false, reason: 'backfill' });
      expect(await store.getRun('d', 'backfill__x')).toBeUndefined();
    });

    it('a step that starts a run needs a free slot; a skip does not; a run that exists refuses the step', async () => {
      await store.createBackfill(backfill(1, 'd', { maxActiveRuns: 1, total: 4 }));
      expect(await store.stepBackfill(1, step(undefined, 1), { put: run('d', 'r1', { state: 'running' }) })).toMatchObject({ ok: true });
      const full = await store.stepBackfill(1, step(1, 2), { put: run('d', 'r2', { state: 'running' }) });
      expect(full).toMatchObject({ ok: false, reason: 'slots', current: { cursor: 1, active: 1 } });
      expect(await store.getRun('d', 'r2')).toBeUndefined();
      expect(await store.stepBackfill(1, step(1, 2, 'skipped'))).toMatchObject({ ok: true, item: { cursor: 2, skipped: 1, active: 1 } });
      expect(await store.backfillSlotHolders(1)).toEqual(['r1']);
      // The run's slot goes back after its end is written (idempotent); then a step may start another.
      expect(await store.updateRun('d', 'r1', { state: 'running' }, { state: 'success' })).toMatchObject({ ok: true });
      await store.releaseBackfillSlot(1, 'r1');
      await store.releaseBackfillSlot(1, 'r1');
      expect(await store.getBackfill(1)).toMatchObject({ active: 0 });
      expect(await store.backfillSlotHolders(1)).toEqual([]);
      await store.createRun(run('d', 'r3', { state: 'success' }));
      expect(await store.stepBackfill(1, step(2, 3), { put: run('d', 'r3', { state: 'running' }) })).toMatchObject({ ok: false, reason: 'run' });
      expect(await store.getBackfill(1)).toMatchObject({ cursor: 2, active: 0 });
      expect(await store.getRun('d', 'r3')).toMatchObject({ state: 'success' });
    });

    it('a step may reopen a finished run (its expected state), marking it as being cleared; one at a time', async () => {
      await store.createBackfill(backfill(1, 'd', { maxActiveRuns: 3 }));
      await store.createRun(run('d', 'old', { state: 'failed', endedAt: T0 + 9, error: 'x' }));
      const reopen = (expectState: 'failed' | 'success') => ({ reopen: { dagId: 'd', runId: 'old', expectState, patch: { state: 'running' as const, runType: 'backfill' as const, backfillId: 1, conf: { z: 1 }, endedAt: null, error: null } } });
      expect(await store.stepBackfill(1, { ...step(undefined, T0, 'reprocessed'), clearing: 'old' }, reopen('success'))).toMatchObject({ ok: false, reason: 'run' });
      expect(await store.stepBackfill(1, { ...step(undefined, T0, 'reprocessed'), clearing: 'old' }, reopen('failed'))).toMatchObject({ ok: true, item: { reprocessed: 1, active: 1, clearing: 'old', clearingAt: T0 + 1 } });
      const reopened = (await store.getRun('d', 'old'))!;
      expect(reopened).toMatchObject({ state: 'running', runType: 'backfill', backfillId: 1, conf: { z: 1 } });
      expect(reopened).not.toHaveProperty('endedAt');
      expect(reopened).not.toHaveProperty('error');
      expect((await store.listActiveRuns()).map((r) => r.runId)).toEqual(['old']);
      await store.createRun(run('d', 'old2', { state: 'success' }));
      const second = { reopen: { dagId: 'd', runId: 'old2', expectState: 'success' as const, patch: { state: 'running' as const } } };
      expect(await store.stepBackfill(1, { ...step(T0, T0 + 1, 'reprocessed'), clearing: 'old2' }, second)).toMatchObject({ ok: false, reason: 'backfill' });
      expect(await store.updateBackfill(1, { clearing: null, clearingAt: null }, { clearing: 'other' })).toMatchObject({ ok: false });
      expect(await store.updateBackfill(1, { clearing: null, clearingAt: null }, { clearing: 'old' })).toMatchObject({ ok: true });
      expect(await store.getBackfill(1)).not.toHaveProperty('clearing');
    });

    it('paused: no step and no slot taken by a run start; a release still goes through, once per run', async () => {
      await store.createBackfill(backfill(1));
      await store.stepBackfill(1, step(undefined, 1), { put: run('d', 'r1', { state: 'running' }) });
      await store.createRun(run('d', 'r2', { state: 'queued', backfillId: 1 }));
      expect(await store.updateBackfill(1, { paused: true }, { open: true })).toMatchObject({ ok: true, item: { paused: true } });
      expect(await store.stepBackfill(1, step(1, 2, 'skipped'))).toMatchObject({ ok: false, reason: 'backfill' });
      expect(await store.takeBackfillSlot(1, 'r2', T0)).toBe('full');
      await store.releaseBackfillSlot(1, 'r1');
      await store.updateBackfill(1, { paused: false }, { open: true });
      expect(await store.takeBackfillSlot(1, 'r2', T0)).toBe('taken');
      expect(await store.takeBackfillSlot(1, 'r2', T0)).toBe('held');
      expect(await store.getBackfill(1)).toMatchObject({ active: 1 });
      expect(await store.backfillSlotHolders(1)).toEqual(['r2']);
      // A backfill that does not exist: no slot to take, a release is a no-op.
      expect(await store.takeBackfillSlot(42, 'r9', T0)).toBe('gone');
      await store.releaseBackfillSlot(42, 'r9');
    });

    it('completes on its own only when every date is handled and none of its runs runs', async () => {
      await store.createBackfill(backfill(1, 'd', { total: 1 }));
      await store.stepBackfill(1, step(undefined, 1), { put: run('d', 'r1', { state: 'running' }) });
      expect(await store.completeBackfill(1, T0 + 2)).toMatchObject({ ok: false, current: { active: 1 } });
      await store.updateRun('d', 'r1', { state: 'running' }, { state: 'success' });
      await store.releaseBackfillSlot(1, 'r1');
      expect(await store.completeBackfill(1, T0 + 3)).toMatchObject({ ok: true, item: { completedAt: T0 + 3 } });
      expect(await store.getBackfill(1)).not.toHaveProperty('cancelled');
      expect(await store.listOpenBackfills()).toEqual([]);
      expect(await store.updateBackfill(1, { paused: true }, { open: true })).toMatchObject({ ok: false });
    });
  });
}
