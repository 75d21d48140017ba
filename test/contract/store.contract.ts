/**
 * The one Store contract: the same `describe` runs on the memory store and on DynamoDB
 * Local, so the two adapters cannot drift apart. Each test gets a fresh store.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../lib/engine/index.js';
import type { TaskKey } from '../../lib/engine/index.js';
import { T0, bigValue, dag, eventTrigger, run, sensorTrigger, task } from './fixtures.js';

export function storeContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });

    describe('DAG registry', () => {
      it('puts, gets, lists and deletes DAG records', async () => {
        await store.putDag(dag('b'));
        await store.putDag(dag('a', { nextTickAt: T0 }));
        expect(await store.getDag('a')).toEqual(dag('a', { nextTickAt: T0 }));
        expect((await store.listDags()).map((d) => d.dagId).sort()).toEqual(['a', 'b']);
        await store.deleteDag('a');
        expect(await store.getDag('a')).toBeUndefined();
        expect(await store.getDag('missing')).toBeUndefined();
      });

      it('updateDag compares nextTickAt: a number, null for absent, nothing for no condition', async () => {
        await store.putDag(dag('a'));
        const lost = await store.updateDag('a', { nextTickAt: T0 + 1 }, T0);
        expect(lost).toMatchObject({ ok: false, current: { dagId: 'a' } });
        const won = await store.updateDag('a', { nextTickAt: T0 }, null);
        expect(won).toMatchObject({ ok: true, item: { nextTickAt: T0 } });
        expect(await store.updateDag('a', { nextTickAt: T0 + 2 }, T0)).toMatchObject({ ok: true });
        expect(await store.updateDag('a', { paused: true })).toMatchObject({ ok: true, item: { paused: true, nextTickAt: T0 + 2 } });
        expect(await store.updateDag('missing', { paused: true })).toEqual({ ok: false, current: undefined, reason: 'condition' });
      });
    });

    describe('runs', () => {
      it('creates a run exactly once under 20 concurrent attempts', async () => {
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.createRun(run('d', 'r1', { queuedAt: T0 + i }))));
        const winners = results.filter((r) => r.ok);
        expect(winners).toHaveLength(1);
        const stored = await store.getRun('d', 'r1');
        expect(stored).toEqual(winners[0]!.ok ? winners[0]!.item : undefined);
        for (const r of results.filter((x) => !x.ok)) expect(r).toMatchObject({ ok: false, current: { runId: 'r1' } });
      });

      it('updateRun is a compare-and-set on state and returns the current run on a lost race', async () => {
        await store.createRun(run('d', 'r1'));
        const ok = await store.updateRun('d', 'r1', { state: 'queued' }, { state: 'running', startedAt: T0 + 5 });
        expect(ok).toMatchObject({ ok: true, item: { state: 'running', startedAt: T0 + 5 } });
        const lost = await store.updateRun('d', 'r1', { state: ['queued'] }, { state: 'failed' });
        expect(lost).toMatchObject({ ok: false, current: { state: 'running' } });
        const removed = await store.updateRun('d', 'r1', { state: ['queued', 'running'] }, { startedAt: null });
        expect(removed.ok).toBe(true);
        expect(await store.getRun('d', 'r1')).not.toHaveProperty('startedAt');
        expect(await store.updateRun('d', 'nope', { state: 'queued' }, {})).toMatchObject({ ok: false, current: undefined });
      });

      it('lists runs newest logical date first, filtered and limited, and the active runs', async () => {
        for (let i = 0; i < 5; i++) await store.createRun(run('d', `r${i}`, { logicalDate: T0 + i * 1000 }));
        // A running run holds a maxActiveRuns slot: that is how it is listed (run-slots.contract.ts).
        await store.putDag(dag('other'));
        expect(await store.takeRunSlot('other', 'x', 5, T0)).toBe('taken');
        await store.createRun(run('other', 'x', { state: 'running' }));
        await store.createRun(run('other', 'no-slot', { state: 'running' }));
        await store.updateRun('d', 'r3', { state: 'queued' }, { state: 'success', expiresAt: 99 });
        expect((await store.listRuns('d')).map((r) => r.runId)).toEqual(['r4', 'r3', 'r2', 'r1', 'r0']);
        expect((await store.listRuns('d', { states: ['queued'], limit: 2 })).map((r) => r.runId)).toEqual(['r4', 'r2']);
        const active = (await store.listActiveRuns()).map((r) => `${r.dagId}/${r.runId}`).sort();
        expect(active).toEqual(['d/r0', 'd/r1', 'd/r2', 'd/r4', 'other/x']);
        expect((await store.listRuns('other', { states: ['queued', 'running'] })).map((r) => r.runId)).toEqual(['x']);
      });

      // maxActiveRuns: the DAG's slot holders, run-slots.contract.ts (no counter moves with a run write).
    });

    describe('task instances', () => {
      const k: TaskKey = { dagId: 'd', runId: 'r', taskId: 't' };

      it('putTask is a conditional put returning the existing item', async () => {
        expect(await store.putTask(task('d', 'r', 't'))).toMatchObject({ ok: true, item: { state: 'scheduled' } });
        const again = await store.putTask(task('d', 'r', 't', { state: 'queued' }));
        expect(again).toMatchObject({ ok: false, current: { state: 'scheduled' } });
        expect(await store.getTask(k)).toEqual(task('d', 'r', 't'));
      });

      it('updateTask compares state, try number and owner, and removes null fields', async () => {
        await store.putTask(task('d', 'r', 't', { state: 'queued', tryNumber: 1, dueAt: T0 }));
        const claim = await store.updateTask(k, { state: 'queued', tryNumber: 1 }, { state: 'running', owner: 'w1', leaseUntil: T0 + 10 });
        expect(claim).toMatchObject({ ok: true, item: { state: 'running', owner: 'w1', leaseUntil: T0 + 10 } });
        const dup = await store.updateTask(k, { state: 'queued', tryNumber: 1 }, { state: 'running', owner: 'w2' });
        expect(dup).toMatchObject({ ok: false, current: { state: 'running', owner: 'w1' } });
        expect(await store.updateTask(k, { state: 'running', tryNumber: 2 }, {})).toMatchObject({ ok: false });
        expect(await store.updateTask(k, { state: 'running', owner: 'w2' }, {})).toMatchObject({ ok: false });
        const done = await store.updateTask(k, { state: ['running', 'deferred'], owner: 'w1' }, { state: 'success', owner: null, nextKwargs: { a: [1] } });
        expect(done.ok).toBe(true);
        const got = (await store.getTask(k))!;
        expect(got).not.toHaveProperty('owner');
        expect(got.nextKwargs).toEqual({ a: [1] });
        expect(got).not.toHaveProperty('dueAt'); // terminal states leave the due index
        expect(await store.updateTask({ ...k, taskId: 'none' }, { state: 'queued' }, {})).toMatchObject({ ok: false, current: undefined });
      });

      it('rejects an unknown state', async () => {
        await expect(store.putTask(task('d', 'r', 't', { state: 'bogus' as never }))).rejects.toThrow(/bogus/);
      });

      it('grants exactly max slots to 20 concurrent claims and releases them', async () => {
        await store.createRun(run('d', 'r'));
        for (let i = 0; i < 20; i++) await store.putTask(task('d', 'r', `t${i}`, { state: 'queued', tryNumber: 1 }));
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.updateTask({ dagId: 'd', runId: 'r', taskId: `t${i}` }, { state: 'queued' }, { state: 'running' }, { delta: 1, max: 3 }),
          ),
        );
        const won = results.flatMap((r, i) => (r.ok ? [i] : []));
        expect(won).toHaveLength(3);
        for (const r of results.filter((x) => !x.ok)) expect(r).toMatchObject({ reason: 'slots', current: { state: 'queued' } });
        expect((await store.getRun('d', 'r'))!.activeTasks).toBe(3);
        for (const i of won) {
          const rel = await store.updateTask({ dagId: 'd', runId: 'r', taskId: `t${i}` }, { state: 'running' }, { state: 'success' }, { delta: -1 });
          expect(rel.ok).toBe(true);
        }
        expect((await store.getRun('d', 'r'))!.activeTasks).toBe(0);
      });

      it('reports a condition failure, not slots, when the task itself changed', async () => {
        await store.createRun(run('d', 'r'));
        await store.putTask(task('d', 'r', 't', { state: 'running' }));
        const r = await store.updateTask(k, { state: 'queued' }, { state: 'running' }, { delta: 1, max: 0 });
        expect(r).toMatchObject({ ok: false, reason: 'condition', current: { state: 'running' } });
        expect((await store.getRun('d', 'r'))!.activeTasks ?? 0).toBe(0);
      });

      it('recordUpstream creates the item, is idempotent and returns the item after', async () => {
        const first = await store.recordUpstream(k, 'a', 'success');
        expect(first).toEqual(task('d', 'r', 't', { upstream: { a: 'success' } }));
        expect(await store.recordUpstream(k, 'a', 'success')).toEqual(first);
        const second = await store.recordUpstream(k, 'b', 'skipped');
        expect(second.upstream).toEqual({ a: 'success', b: 'skipped' });
        expect(await store.getTask(k)).toEqual(second);
      });

      it('clearTask is a compare-and-set that forgets the named upstream outcomes and keeps the others', async () => {
        await store.recordUpstream(k, 'a', 'success');
        await store.recordUpstream(k, 'b', 'failed');
        await store.updateTask(k, { state: 'scheduled' }, { state: 'upstream_failed', endedAt: T0 });
        const lost = await store.clearTask(k, { state: 'success' }, { state: 'scheduled' }, ['a']);
        expect(lost).toMatchObject({ ok: false, current: { state: 'upstream_failed', upstream: { a: 'success', b: 'failed' } } });
        const r = await store.clearTask(k, { state: 'upstream_failed', tryNumber: 0 }, { state: 'scheduled', endedAt: null }, ['a']);
        expect(r).toEqual({ ok: true, item: task('d', 'r', 't', { upstream: { b: 'failed' } }) });
        expect(await store.getTask(k)).toEqual(task('d', 'r', 't', { upstream: { b: 'failed' } }));
        // Recorded again after the clear, the outcome is the new one.
        expect((await store.recordUpstream(k, 'a', 'skipped')).upstream).toEqual({ a: 'skipped', b: 'failed' });
      });

      it('lets exactly one of two concurrent upstream writers observe both outcomes (50 races)', async () => {
        for (let i = 0; i < 50; i++) {
          const key = { dagId: 'd', runId: 'race', taskId: `t${i}` };
          const [a, b] = await Promise.all([store.recordUpstream(key, 'a', 'success'), store.recordUpstream(key, 'b', 'failed')]);
          const sawBoth = [a, b].filter((x) => Object.keys(x.upstream).length === 2);
          expect(sawBoth).toHaveLength(1);
        }
      });

      it('lists due non-terminal tasks oldest first and drops tasks once terminal', async () => {
        await store.putTask(task('d', 'r', 'late', { state: 'queued', dueAt: T0 + 30 }));
        await store.putTask(task('d', 'r', 'early', { state: 'running', dueAt: T0 + 10 }));
        await store.putTask(task('d', 'r', 'future', { state: 'queued', dueAt: T0 + 1000 }));
        await store.putTask(task('d', 'r', 'done', { state: 'success', dueAt: T0 }));
        await store.putTask(task('d', 'r2', 'mid', { state: 'deferred', dueAt: T0 + 20 }));
        expect((await store.listDueTasks(T0 + 100, 10)).map((t) => t.taskId)).toEqual(['early', 'mid', 'late']);
        expect((await store.listDueTasks(T0 + 100, 2)).map((t) => t.taskId)).toEqual(['early', 'mid']);
        await store.updateTask({ dagId: 'd', runId: 'r', taskId: 'early' }, { state: 'running' }, { state: 'failed' });
        await store.updateTask({ dagId: 'd', runId: 'r2', taskId: 'mid' }, { state: 'deferred' }, { dueAt: null });
        await store.updateTask({ dagId: 'd', runId: 'r', taskId: 'future' }, { state: 'queued' }, { dueAt: T0 + 50 });
        expect((await store.listDueTasks(T0 + 100, 10)).map((t) => t.taskId)).toEqual(['late', 'future']);
        expect(await store.listDueTasks(T0, 10)).toEqual([]);
      });

      it('lists the tasks of one run', async () => {
        await store.putTask(task('d', 'r', 'a'));
        await store.putTask(task('d', 'r', 'b', { state: 'queued', dueAt: T0 }));
        await store.putTask(task('d', 'r-other', 'c'));
        expect((await store.listTasks('d', 'r')).map((t) => t.taskId).sort()).toEqual(['a', 'b']);
        expect((await store.listTasks('d', 'r-other')).map((t) => t.taskId)).toEqual(['c']);
        expect(await store.listTasks('d', 'none')).toEqual([]);
      });

      it('returns items through which stored state cannot change', async () => {
        await store.putTask(task('d', 'r', 't', { nextKwargs: { x: 1 } }));
        const got = (await store.getTask(k))!;
        // A copy (DynamoDB) takes the change; a frozen stored item (memory) refuses it.
        const attempt = (change: () => void) => { try { change(); } catch (err) { expect(err).toBeInstanceOf(TypeError); } };
        attempt(() => { got.upstream['z'] = 'failed'; });
        attempt(() => { got.nextKwargs!['x'] = 2; });
        const again = (await store.getTask(k))!;
        expect(again.upstream).toEqual({});
        expect(again.nextKwargs).toEqual({ x: 1 });
      });
    });

    describe('triggers and pokes', () => {
      it('puts a trigger once and lists sensors by shard and due time', async () => {
        expect(await store.putTrigger(sensorTrigger('d/r/a', 1, T0 + 10))).toMatchObject({ ok: true });
        expect(await store.putTrigger(sensorTrigger('d/r/a', 1, T0))).toMatchObject({ ok: false, current: { nextPokeAt: T0 + 10 } });
        await store.putTrigger(sensorTrigger('d/r/b', 1, T0 + 5));
        await store.putTrigger(sensorTrigger('d/r/c', 1, T0 + 500));
        await store.putTrigger(sensorTrigger('d/r/e', 2, T0));
        expect((await store.listSensorTriggers(1, T0 + 100)).map((t) => t.id)).toEqual(['d/r/b', 'd/r/a']);
        await store.updateTrigger('d/r/c', { nextPokeAt: T0 + 1, lastError: 'boom' });
        expect((await store.listSensorTriggers(1, T0 + 100)).map((t) => t.id)).toEqual(['d/r/c', 'd/r/b', 'd/r/a']);
        expect(await store.getTrigger('d/r/c')).toMatchObject({ lastError: 'boom', pokeContext: { path: '/tmp/x' } });
        await store.deleteTrigger('d/r/b');
        expect(await store.getTrigger('d/r/b')).toBeUndefined();
        expect((await store.listSensorTriggers(1, T0 + 100)).map((t) => t.id)).toEqual(['d/r/c', 'd/r/a']);
        await store.updateTrigger('d/r/missing', { nextPokeAt: 1 });
        expect(await store.getTrigger('d/r/missing')).toBeUndefined();
      });

      it('lists event triggers by key', async () => {
        await store.putTrigger(eventTrigger('e1', 'k1', { timeoutAt: T0 + 50 }));
        await store.putTrigger(eventTrigger('e2', 'k1'));
        await store.putTrigger(eventTrigger('e3', 'k2', { timeoutAt: T0 + 10 }));
        await store.putTrigger(sensorTrigger('d/r/s', 0, T0, { timeoutAt: T0 + 30 }));
        expect((await store.listEventTriggers('k1')).map((t) => t.id).sort()).toEqual(['e1', 'e2']);
        expect(await store.listEventTriggers('none')).toEqual([]);
        await store.deleteTrigger('e1');
        expect((await store.listEventTriggers('k1')).map((t) => t.id)).toEqual(['e2']);
      });

      it('claimPoke has exactly one winner among 10 concurrent pokers, and refuses older cycles', async () => {
        const wins = await Promise.all(Array.from({ length: 10 }, () => store.claimPoke('h1', 7)));
        expect(wins.filter(Boolean)).toHaveLength(1);
        expect(await store.claimPoke('h1', 7)).toBe(false);
        expect(await store.claimPoke('h1', 6)).toBe(false);
        expect(await store.claimPoke('h1', 8)).toBe(true);
        expect(await store.claimPoke('h2', 7)).toBe(true);
      });
    });

    describe('XCom and signals', () => {
      const xk = { dagId: 'd', runId: 'r', taskId: 't', key: 'return_value' };

      it('round-trips XCom values, including one over 400 KB', async () => {
        expect(await store.getXcom(xk)).toBeUndefined();
        await store.putXcom(xk, { rows: [1, 2, { a: 'b' }], s: 'é' });
        expect(await store.getXcom(xk)).toEqual({ rows: [1, 2, { a: 'b' }], s: 'é' });
        const big = bigValue(420_000);
        await store.putXcom({ ...xk, key: 'big' }, big);
        expect(await store.getXcom({ ...xk, key: 'big' })).toEqual(big);
        await store.putXcom(xk, 3);
        expect(await store.getXcom(xk)).toBe(3);
      });

      it('clears every XCom of one task instance, return value included, and nothing of another', async () => {
        const t = { dagId: 'xc', runId: 'r1', taskId: 't' };
        const u = { ...t, taskId: 'u' };
        await store.putXcom({ ...t, key: 'return_value' }, 1);
        await store.putXcom({ ...t, key: 'a' }, 'A', Math.ceil(T0 / 1000) + 3600);
        await store.putXcom({ ...t, key: 'b' }, { big: bigValue(420_000) });
        await store.putXcom({ ...u, key: 'a' }, 'U');
        await store.putXcom({ ...u, key: 'return_value' }, 2);
        await store.clearXcoms(t);
        for (const key of ['return_value', 'a', 'b']) expect(await store.getXcom({ ...t, key })).toBeUndefined();
        expect(await store.getXcom({ ...u, key: 'a' })).toBe('U');
        expect(await store.getXcom({ ...u, key: 'return_value' })).toBe(2);
        // A cleared task pushes again and clears again; clearing nothing is fine.
        await store.putXcom({ ...t, key: 'c' }, 3);
        await store.clearXcoms(t);
        await store.clearXcoms(t);
        expect(await store.getXcom({ ...t, key: 'c' })).toBeUndefined();
      });

      it('keeps signals until they expire (expiresAt in epoch seconds)', async () => {
        const at = Math.ceil(T0 / 1000) + 60;
        await store.putSignal({ key: 's1', payload: { ok: true }, createdAt: T0, expiresAt: at });
        expect(await store.getSignal('s1', at * 1000 - 1)).toEqual({ key: 's1', payload: { ok: true }, createdAt: T0, expiresAt: at });
        expect(await store.getSignal('s1', at * 1000)).toBeUndefined();
        expect(await store.getSignal('none', T0)).toBeUndefined();
      });

      it('still reads a signal written in epoch milliseconds before issue 10', async () => {
        await store.putSignal({ key: 's-old', payload: 1, createdAt: T0, expiresAt: T0 + 5000 });
        expect(await store.getSignal('s-old', T0 + 4999)).toMatchObject({ key: 's-old', payload: 1 });
        expect(await store.getSignal('s-old', T0 + 5000)).toBeUndefined();
      });
    });
  });
}
