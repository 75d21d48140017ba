import { describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../../lib/adapters/clock.js';
import { loadRunCtx, type TaskInstance, type TaskKey } from '../../../lib/engine/index.js';
import { transition } from '../../../lib/engine/write/transition.js';
import { dag, definePool } from '../../../lib/sdk/index.js';
import { recordSends, taskMessages, trackPeaks } from '../../helpers/observe.js';
import { makeRuntime, runOnce, T0 } from '../../helpers/runtime.js';

const MIN = 60_000;

/** Counts task bodies running at once, per group, and keeps the peaks and the start order. */
function concurrency() {
  const active = new Map<string, number>();
  const peak = new Map<string, number>();
  const order: string[] = [];
  return {
    order,
    peak: (group: string) => peak.get(group) ?? 0,
    async run(group: string, id: string, clock: VirtualClock, ms: number) {
      order.push(id);
      const n = (active.get(group) ?? 0) + 1;
      active.set(group, n);
      peak.set(group, Math.max(peak.get(group) ?? 0, n));
      await clock.sleep(ms);
      active.set(group, active.get(group)! - 1);
      return id;
    },
  };
}

describe('pools: priority', () => {
  it('fairness: 20 tasks of mixed priority on 2 slots start in priority order (ties: the task key), without messages while they wait', async () => {
    const holder: { clock?: VirtualClock } = {};
    const c = concurrency();
    const two = definePool('two', { slots: 2, description: 'two slots' });
    const weights = [5, 1, 9, 3, 9, 2, 7, 1, 4, 8, 6, 2, 10, 3, 5, 7, 1, 6, 4, 8];
    const ids = weights.map((_, i) => `p${String(i).padStart(2, '0')}`);
    const d = dag('fair', {}, ({ task }) => {
      // Two blockers take both slots when the run starts; the 20 become ready while the pool is full.
      task('hold1', () => c.run('two', 'hold1', holder.clock!, MIN), { pool: two });
      task('hold2', () => c.run('two', 'hold2', holder.clock!, MIN), { pool: two });
      const start = task('start', () => 'go');
      start.before(ids.map((id, i) => task(id, () => c.run('two', id, holder.clock!, MIN), { pool: 'two', priorityWeight: weights[i], weightRule: 'absolute' })));
    });
    const { rt, clock } = await makeRuntime([d], { concurrency: 16 });
    holder.clock = clock;
    const sent = recordSends(rt.queue);
    const r = await runOnce(rt, 'fair');
    expect(r.outcome).toBe('done');
    expect(r.run.state).toBe('success');
    const expected = ids.map((id, i) => ({ id, w: weights[i] })).sort((a, b) => b.w - a.w || (a.id < b.id ? -1 : 1)).map((x) => x.id);
    const started = c.order.filter((id) => id.startsWith('p'));
    // Two start together each minute: compare minute by minute.
    const pairs = (xs: string[]) => Array.from({ length: xs.length / 2 }, (_, i) => xs.slice(2 * i, 2 * i + 2).sort());
    expect(pairs(started)).toEqual(pairs(expected));
    expect(c.peak('two')).toBe(2);
    // 2 blockers + 20 tasks on 2 slots: 11 minutes, not one more.
    expect(clock.now() - T0).toBe(11 * MIN);
    // A waiting task holds no message: each was sent exactly once, when it started.
    for (const id of ids) expect(taskMessages(sent, id)).toHaveLength(1);
    expect(await rt.ports.store.getPool('two')).toEqual({ name: 'two', slots: 2, free: 2, description: 'two slots' });
    // The weight was written on the spec; nothing is left in the waiting index.
    expect(r.tasks.p12).toMatchObject({ state: 'success', tryNumber: 1 });
    expect(r.tasks.p12.waitKey).toBeUndefined();
    expect(await rt.ports.store.listWaiters('pool:two', 10)).toEqual([]);
  });

  it('the default weight rule is downstream: an upstream task of a long chain goes first', async () => {
    const holder: { clock?: VirtualClock } = {};
    const c = concurrency();
    const one = definePool('one', { slots: 1 });
    const d = dag('chains', {}, ({ task }) => {
      task('hold', () => c.run('one', 'hold', holder.clock!, MIN), { pool: one });
      const start = task('start', () => 'go');
      // `short` weighs 3 on its own; `long` weighs 1 but has three downstream tasks: 1 + 3.
      const short = task('short', () => c.run('one', 'short', holder.clock!, MIN), { pool: 'one', priorityWeight: 3 });
      const long = task('long', () => c.run('one', 'long', holder.clock!, MIN), { pool: 'one' });
      long.before(task('l2', () => 2)).before(task('l3', () => 3)).before(task('l4', () => 4));
      start.before(short, long);
    });
    const { rt, clock } = await makeRuntime([d], { concurrency: 8 });
    holder.clock = clock;
    const r = await runOnce(rt, 'chains');
    expect(r.run.state).toBe('success');
    expect(c.order).toEqual(['hold', 'long', 'short']);
    const spec = (await rt.ports.store.getDag('chains'))!.spec;
    expect(spec.tasks.find((t) => t.taskId === 'long')!.priorityWeight).toBe(4);
    expect(spec.tasks.find((t) => t.taskId === 'l2')!.priorityWeight).toBeUndefined();
  });
});

describe('pools: slots are never exceeded', () => {
  it('two DAGs, two runs each, 40 pooled tasks on 3 slots with 16 concurrent workers: at most 3 at once, all succeed, the slots come back', async () => {
    const holder: { clock?: VirtualClock } = {};
    const c = concurrency();
    const shared = definePool('shared', { slots: 3 });
    const make = (dagId: string) =>
      dag(dagId, {}, ({ task }) => {
        const start = task('start', () => 1);
        start.before(Array.from({ length: 10 }, (_, i) => task(`t${i}`, () => c.run('shared', `${dagId}.t${i}`, holder.clock!, MIN), { pool: shared, priorityWeight: i % 4 })));
      });
    // Observed, as `airless run` and `airless dev` observe their store: the wrapper must pass the counters on.
    const peaks = trackPeaks();
    const { rt, clock } = await makeRuntime([make('left'), make('right')], { concurrency: 16, onEvent: peaks.onEvent });
    holder.clock = clock;
    const runs: { dagId: string; runId: string }[] = [];
    for (const dagId of ['left', 'right']) for (const runId of ['a', 'b']) runs.push(await rt.trigger(dagId, { runId }));
    const outcome = await rt.runUntil(async () => {
      const all = await Promise.all(runs.map((x) => rt.ports.store.getRun(x.dagId, x.runId)));
      return all.every((x) => x!.state === 'success' || x!.state === 'failed');
    });
    expect(outcome).toBe('done');
    for (const x of runs) expect((await rt.ports.store.getRun(x.dagId, x.runId))!.state).toBe('success');
    expect(c.order).toHaveLength(40);
    expect(c.peak('shared')).toBe(3);
    expect(peaks.maxActiveTasks).toBeGreaterThanOrEqual(3);
    expect(clock.now() - T0).toBe(Math.ceil(40 / 3) * MIN);
    expect((await rt.ports.store.getPool('shared'))!.free).toBe(3);
  });

  it('20 concurrent claims of a 3-slot pool (a real race on the store): exactly 3 are queued, the rest are refused naming the pool', async () => {
    const storm = definePool('storm', { slots: 3 });
    const d = dag('storm', {}, ({ task }) => {
      const gate = task('gate', () => 1);
      gate.before(Array.from({ length: 20 }, (_, i) => task(`s${i}`, () => i, { pool: storm })));
    });
    const { rt } = await makeRuntime([d]);
    const run = await rt.trigger('storm', { runId: 'r' });
    const rc = (await loadRunCtx(rt.ports, 'storm', run.runId))!;
    const tis: TaskInstance[] = [];
    for (let i = 0; i < 20; i++) {
      const put = await rt.ports.store.putTask({ dagId: 'storm', runId: run.runId, taskId: `s${i}`, state: 'scheduled', tryNumber: 0, upstream: {} });
      expect(put.ok).toBe(true);
      if (put.ok) tis.push(put.item);
    }
    const results = await Promise.all(tis.map((ti) => transition(rt.ports, rc, ti, 'queued')));
    expect(results.filter((x) => x.ok)).toHaveLength(3);
    for (const x of results.filter((y) => !y.ok)) expect(x).toMatchObject({ ok: false, reason: 'slots', limit: 'pool:storm' });
    expect((await rt.ports.store.getPool('storm'))!.free).toBe(0);
    // Giving back: three failures return the three slots, exactly.
    const held = results.flatMap((x) => (x.ok ? [x.item] : []));
    expect(held.every((t) => t.slotsHeld === true)).toBe(true);
    await Promise.all(held.map((ti) => transition(rt.ports, rc, ti, 'failed', { error: 'test' })));
    expect((await rt.ports.store.getPool('storm'))!.free).toBe(3);
  });
});

describe('pools: registration', () => {
  it('changing a pool\'s slots moves the slots left by the difference: shrunk below what is taken, nothing starts until enough come back', async () => {
    const d = dag('resize', {}, ({ task }) => { task('a', () => 1); });
    const { rt } = await makeRuntime([d]);
    const store = rt.ports.store;
    await store.registerPool({ name: 'resize', slots: 4, description: 'first' });
    const run = await rt.trigger('resize', { runId: 'r' });
    const keys: TaskKey[] = [0, 1, 2, 3].map((i) => ({ dagId: 'resize', runId: run.runId, taskId: `x${i}` }));
    for (const k of keys) expect((await store.putTask({ ...k, state: 'scheduled', tryNumber: 0, upstream: {} })).ok).toBe(true);
    const take = (k: TaskKey) => store.updateTask(k, { state: 'scheduled' }, { state: 'queued', tryNumber: 1 }, undefined, [{ key: 'pool:resize', delta: 1 }]);
    const giveBack = (k: TaskKey) => store.updateTask(k, { state: 'queued' }, { state: 'failed' }, undefined, [{ key: 'pool:resize', delta: -1 }]);
    for (const k of keys.slice(0, 3)) expect((await take(k)).ok).toBe(true);
    await store.registerPool({ name: 'resize', slots: 2 });
    expect(await store.getPool('resize')).toEqual({ name: 'resize', slots: 2, free: -1 });
    expect(await take(keys[3])).toMatchObject({ ok: false, reason: 'slots', limit: 'pool:resize' });
    expect((await giveBack(keys[0])).ok).toBe(true);
    expect((await giveBack(keys[1])).ok).toBe(true);
    expect((await store.getPool('resize'))!.free).toBe(1);
    expect((await take(keys[3])).ok).toBe(true);
    // Registering the same slots again changes nothing.
    await store.registerPool({ name: 'resize', slots: 2 });
    expect((await store.getPool('resize'))!.free).toBe(0);
    expect(await store.getPool('nope')).toBeUndefined();
  });
});

describe('per-task concurrency', () => {
  it('maxActiveTisPerDag 2: five runs of one task never run more than 2 instances at once', async () => {
    const holder: { clock?: VirtualClock } = {};
    const c = concurrency();
    const d = dag('perdag', {}, ({ task }) => {
      task('work', (ctx) => c.run('work', ctx.runId, holder.clock!, MIN), { maxActiveTisPerDag: 2 });
    });
    const { rt, clock } = await makeRuntime([d], { concurrency: 8 });
    holder.clock = clock;
    const ids = ['r1', 'r2', 'r3', 'r4', 'r5'];
    for (const runId of ids) await rt.trigger('perdag', { runId });
    const outcome = await rt.runUntil(async () => (await Promise.all(ids.map((id) => rt.ports.store.getRun('perdag', id)))).every((x) => x!.state === 'success'));
    expect(outcome).toBe('done');
    expect(c.peak('work')).toBe(2);
    expect(clock.now() - T0).toBe(3 * MIN);
  });

  it('maxActiveTisPerDagrun 1 limits within a run, not across runs: three runs run their instances at once', async () => {
    const holder: { clock?: VirtualClock } = {};
    const c = concurrency();
    const d = dag('perrun', {}, ({ task }) => {
      task('work', (ctx) => c.run('work', ctx.runId, holder.clock!, MIN), { maxActiveTisPerDagrun: 1 });
    });
    const { rt, clock } = await makeRuntime([d], { concurrency: 8 });
    holder.clock = clock;
    for (const runId of ['r1', 'r2', 'r3']) await rt.trigger('perrun', { runId });
    await rt.runUntil(async () => (await Promise.all(['r1', 'r2', 'r3'].map((id) => rt.ports.store.getRun('perrun', id)))).every((x) => x!.state === 'success'));
    expect(c.peak('work')).toBe(3);
    expect(clock.now() - T0).toBe(MIN);
  });

  it('the counters are keyed by task (and run), not by instance: a second instance of the same task in the run is refused', async () => {
    // Mapped instances are separate task instances of one task id; this writes two items
    // against the same per-run counter the way they would.
    const d = dag('instances', {}, ({ task }) => {
      task('gate', () => 1).before(task('work', () => 1, { maxActiveTisPerDagrun: 1, maxActiveTisPerDag: 5 }));
    });
    const { rt } = await makeRuntime([d]);
    const run = await rt.trigger('instances', { runId: 'r' });
    const moves = [{ key: 'run:instances/r/work', delta: 1, max: 1 }, { key: 'dag:instances/work', delta: 1, max: 5 }];
    const keys: TaskKey[] = [0, 1].map((i) => ({ dagId: 'instances', runId: run.runId, taskId: `work-${i}` }));
    for (const k of keys) expect((await rt.ports.store.putTask({ ...k, state: 'scheduled', tryNumber: 0, upstream: {} })).ok).toBe(true);
    const first = await rt.ports.store.updateTask(keys[0], { state: 'scheduled' }, { state: 'queued', tryNumber: 1 }, undefined, moves);
    const second = await rt.ports.store.updateTask(keys[1], { state: 'scheduled' }, { state: 'queued', tryNumber: 1 }, undefined, moves);
    expect(first.ok).toBe(true);
    expect(second).toMatchObject({ ok: false, reason: 'slots', limit: 'run:instances/r/work' });
    // The refused write changed nothing: the item is still scheduled.
    expect((await rt.ports.store.getTask(keys[1]))!.state).toBe('scheduled');
  });
});

describe('pools: crashes', () => {
  it('a worker killed mid-try: its lease expires, reconcile fails the try, the slot comes back and the waiter runs', async () => {
    const one = definePool('solo', { slots: 1 });
    const d = dag('crashpool', {}, ({ task }) => {
      task('a', () => 'a', { pool: one, priorityWeight: 10 });
      task('b', () => 'b', { pool: 'solo' });
    });
    const { rt, clock } = await makeRuntime([d], { tickMs: MIN });
    const run = await rt.trigger('crashpool', { runId: 'r' });
    const b0 = (await rt.ports.store.getTask({ dagId: 'crashpool', runId: 'r', taskId: 'b' }))!;
    expect(b0).toMatchObject({ state: 'scheduled', ready: true, waitKey: 'pool:solo' });
    // The worker takes a's message, claims the try and dies: nothing else is written.
    const ds = await rt.queue.receive(10, 30 * MIN);
    expect(ds.map((x) => (x.message as { taskId: string }).taskId)).toEqual(['a']);
    await rt.queue.ack(ds[0]);
    const now = clock.now();
    const claimed = await rt.ports.store.updateTask({ dagId: 'crashpool', runId: 'r', taskId: 'a' }, { state: 'queued', tryNumber: 1 }, {
      state: 'running', owner: 'dead-worker', startedAt: now, leaseUntil: now + 5 * MIN,
    });
    expect(claimed.ok && claimed.item.slotsHeld).toBe(true);
    expect((await rt.ports.store.getPool('solo'))!.free).toBe(0);
    expect(await rt.runToCompletion('crashpool', run.runId)).toBe('done');
    const a = (await rt.ports.store.getTask({ dagId: 'crashpool', runId: 'r', taskId: 'a' }))!;
    const b = (await rt.ports.store.getTask({ dagId: 'crashpool', runId: 'r', taskId: 'b' }))!;
    expect(a).toMatchObject({ state: 'failed' });
    expect(a.error).toMatch(/lease expired/);
    expect(a.slotsHeld).toBeUndefined();
    expect(b).toMatchObject({ state: 'success', tryNumber: 1 });
    expect(b.startedAt!).toBeGreaterThanOrEqual(now + 5 * MIN);
    expect((await rt.ports.store.getPool('solo'))!.free).toBe(1);
  });

  it('a wake the index missed (lag, or a crash right after the waiting mark) is made by the next reconcile tick', async () => {
    const lagging = definePool('lagging', { slots: 1 });
    const d = dag('lag', {}, ({ task }) => {
      task('a', () => 'a', { pool: lagging });
    });
    let hidden = 1;
    const { rt, clock } = await makeRuntime([d], {
      tickMs: MIN,
      wrapStore: (s) => new Proxy(s, {
        get(target, prop) {
          const v = Reflect.get(target, prop) as unknown;
          if (prop !== 'listWaiters' || typeof v !== 'function') return typeof v === 'function' ? v.bind(target) : v;
          // The first look at the index does not show the task yet, as a lagging GSI would not.
          return async (...args: [string, number]) => (hidden-- > 0 ? [] : (v as (...a: [string, number]) => unknown).apply(target, args));
        },
      }),
    });
    const run = await rt.trigger('lag', { runId: 'r' });
    const a0 = (await rt.ports.store.getTask({ dagId: 'lag', runId: 'r', taskId: 'a' }))!;
    expect(a0).toMatchObject({ state: 'scheduled', ready: true, waitKey: 'pool:lagging' });
    expect((await rt.ports.store.getPool('lagging'))!.free).toBe(1);
    expect(await rt.runToCompletion('lag', run.runId)).toBe('done');
    const a = (await rt.ports.store.getTask({ dagId: 'lag', runId: 'r', taskId: 'a' }))!;
    expect(a).toMatchObject({ state: 'success', tryNumber: 1 });
    // Started by a later look (reconcile's), within one tick.
    expect(hidden).toBeLessThan(0);
    expect(a.startedAt! - T0).toBeLessThanOrEqual(MIN);
    expect(clock.now() - T0).toBeLessThanOrEqual(MIN);
  });

  it('a retry gives its slot back while it waits and queues behind the pool again', async () => {
    const one = definePool('retrypool', { slots: 1 });
    let tries = 0;
    const d = dag('retries', {}, ({ task }) => {
      task('flaky', () => { tries++; if (tries === 1) throw new Error('once'); return 'ok'; }, { pool: one, retries: 1, retryDelay: '1m' });
      task('other', () => 'other', { pool: 'retrypool' });
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'retries');
    expect(r.states).toEqual({ flaky: 'success', other: 'success' });
    expect(r.tasks.flaky.tryNumber).toBe(2);
    expect((await rt.ports.store.getPool('retrypool'))!.free).toBe(1);
  });

  it('tasks without a pool are unlimited: no counter, no wait, created already queued', async () => {
    const d = dag('plain', {}, ({ task }) => {
      task('a', () => 1).before(task('b', () => 2));
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'plain');
    expect(r.run.state).toBe('success');
    expect(r.tasks.a.slotsHeld).toBeUndefined();
    expect(r.tasks.b.waitKey).toBeUndefined();
    // Created already queued (no waiting mark): a's message went out at the run's start.
    expect(r.tasks.a.queuedAt).toBe(r.run.startedAt);
  });
});
