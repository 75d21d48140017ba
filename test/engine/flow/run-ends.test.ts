/**
 * Linear runs (issue 22, docs/adr/0020): no step on a task's path reads the run's task
 * list, however wide the run. A small run is read once when its leaf ends; a large run
 * counts each task's end and is decided by the count that completes it; maxActiveTasks
 * wakes the best waiter through the waiting index. Runs on both stores.
 */
import { describe, expect, it } from 'vitest';
import { markTask, reconcile, type Store } from '../../../lib/engine/index.js';
import type { VirtualClock } from '../../../lib/adapters/clock.js';
import { chain, dag } from '../../../lib/sdk/index.js';
import { trackPeaks } from '../../helpers/observe.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';
import { onDynamo } from '../../helpers/stores.js';

/** Counts the task listings a store serves, and the task items they return. */
function countListings(): { wrap: (s: Store) => Store; calls: number; items: number } {
  const c = {
    calls: 0,
    items: 0,
    wrap: (s: Store): Store => new Proxy(s, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (prop !== 'listTasks' || typeof v !== 'function') return typeof v === 'function' ? v.bind(target) : v;
        return async (dagId: string, runId: string) => {
          const out = await (v as Store['listTasks']).call(target, dagId, runId);
          c.calls += 1;
          c.items += out.length;
          return out;
        };
      },
    }),
  };
  return c;
}

const WIDE = onDynamo ? 120 : 400;

describe('linear runs', () => {
  it(`a run of ${WIDE} independent tasks ends without its task list being read on any task's path`, async () => {
    const d = dag('wide', { maxActiveTasks: WIDE }, ({ task }) => {
      for (let i = 0; i < WIDE; i++) task(`t${i}`, () => i);
    });
    const listings = countListings();
    const { rt } = await makeRuntime([d], { wrapStore: listings.wrap, concurrency: 16, tickMs: 24 * 3_600_000 });
    const r = await runOnce(rt, 'wide');
    expect(r.outcome).toBe('done');
    expect(r.run.state).toBe('success');
    expect(Object.values(r.states).filter((s) => s === 'success')).toHaveLength(WIDE);
    // runOnce reads the tasks once after the run (the test's own read); reconcile's first
    // pass may read the run once more. Every leaf used to read all of them: WIDE reads.
    expect(listings.calls).toBeLessThanOrEqual(3);
    expect(listings.items).toBeLessThanOrEqual(3 * WIDE);
  });

  it('a wide run whose leaves fail ends failed, once, decided from its counts', async () => {
    const d = dag('wide_fail', { maxActiveTasks: 200 }, ({ task }) => {
      for (let i = 0; i < 150; i++) task(`t${i}`, () => { if (i % 50 === 7) throw new Error(`boom ${i}`); return i; }, { retries: 0 });
    });
    const { rt } = await makeRuntime([d], { concurrency: 16 });
    const r = await runOnce(rt, 'wide_fail');
    expect(r.run.state).toBe('failed');
    expect(Object.entries(r.states).filter(([, s]) => s === 'failed').map(([id]) => id).sort()).toEqual(['t107', 't57', 't7']);
    expect(rt.metrics.get('RunsFailed')).toBe(1);
  });

  it('maxActiveTasks 4 over 150 independent tasks: never more than 4 active, every task runs, no listing per slot', async () => {
    const d = dag('mat_wide', { maxActiveTasks: 4 }, ({ task }) => {
      for (let i = 0; i < 150; i++) task(`t${i}`, () => i);
    });
    const peaks = trackPeaks();
    const listings = countListings();
    const { rt } = await makeRuntime([d], { onEvent: peaks.onEvent, wrapStore: listings.wrap, concurrency: 12, tickMs: 24 * 3_600_000 });
    const r = await runOnce(rt, 'mat_wide');
    expect(r.run.state).toBe('success');
    expect(Object.values(r.states).filter((s) => s === 'success')).toHaveLength(150);
    // Peaks come from events after each write returns: on DynamoDB Local a release and the
    // start it allows may be reported out of order (engine-concurrency.test.ts).
    expect(peaks.maxActiveTasks).toBeLessThanOrEqual(onDynamo ? 5 : 4);
    expect(r.run.activeTasks ?? 0).toBe(0);
    expect(listings.calls).toBeLessThanOrEqual(3);
  });

  it('clearing tasks of a finished wide run forgets their ends: the run waits for all of them again and ends once more', async () => {
    let fail = true;
    const holder: { clock?: VirtualClock } = {};
    const d = dag('wide_clear', { maxActiveTasks: 200 }, ({ task }) => {
      for (let i = 0; i < 120; i++) {
        task(`t${i}`, async () => {
          if (i === 3 && fail) throw new Error('first time');
          // The second time, t3 ends five minutes after t110: the run must not end in between.
          if (i === 3) await holder.clock!.sleep(300_000);
          return i;
        }, { retries: 0 });
      }
    });
    const { rt, clock } = await makeRuntime([d], { concurrency: 16 });
    holder.clock = clock;
    const first = await runOnce(rt, 'wide_clear', { runId: 'r1' });
    expect(first.run.state).toBe('failed');
    fail = false;
    const { clearTasks } = await import('../../../lib/engine/index.js');
    expect((await clearTasks(rt.ports, 'wide_clear', 'r1', ['t3', 't110'])).sort()).toEqual(['t110', 't3']);
    expect(await rt.runToCompletion('wide_clear', 'r1')).toBe('done');
    const again = (await rt.ports.store.getRun('wide_clear', 'r1'))!;
    expect(again.state).toBe('success');
    const t3 = (await rt.ports.store.getTask({ dagId: 'wide_clear', runId: 'r1', taskId: 't3' }))!;
    expect(t3.tryNumber).toBe(2);
    expect(again.endedAt).toBeGreaterThanOrEqual(t3.endedAt!);
  });

  it('marking the one unfinished task of a wide run failed ends the run failed', async () => {
    const d = dag('wide_mark', { maxActiveTasks: 200 }, ({ task }) => {
      // t9 waits a day on a timer (deferred: no worker holds it) while the others end.
      for (let i = 0; i < 110; i++) task(`t${i}`, (ctx) => (i === 9 ? ctx.defer({ trigger: { after: '1d' } }) : ctx.taskId));
    });
    const { rt } = await makeRuntime([d], { concurrency: 16 });
    const run = await rt.trigger('wide_mark', { runId: 'r1' });
    await rt.runUntil(async () => (await rt.ports.store.listTasks('wide_mark', run.runId)).filter((t) => t.state === 'success').length === 109);
    expect((await rt.ports.store.getTask({ dagId: 'wide_mark', runId: 'r1', taskId: 't9' }))!.state).toBe('deferred');
    expect((await rt.ports.store.getRun('wide_mark', 'r1'))!.state).toBe('running');
    expect((await markTask(rt.ports, 'wide_mark', 'r1', 't9', 'failed')).ok).toBe(true);
    expect((await rt.ports.store.getRun('wide_mark', 'r1'))!.state).toBe('failed');
  });

  it('a chain is listed once, when its leaf ends', async () => {
    const d = dag('line', {}, ({ task }) => { chain(...Array.from({ length: 10 }, (_, i) => task(`t${i}`, () => i))); });
    const listings = countListings();
    const { rt } = await makeRuntime([d], { wrapStore: listings.wrap, tickMs: 24 * 3_600_000 });
    const r = await runOnce(rt, 'line');
    expect(r.run.state).toBe('success');
    // The leaf's read, the test's read, and at most one reconcile pass.
    expect(listings.calls).toBeLessThanOrEqual(3);
  });

  it('an end whose count was lost is still ended by the next reconcile pass', async () => {
    const d = dag('wide_lost', { maxActiveTasks: 200 }, ({ task }) => {
      for (let i = 0; i < 101; i++) task(`t${i}`, () => i);
    });
    let drop = 1;
    const { rt } = await makeRuntime([d], {
      concurrency: 4,
      tickMs: 24 * 3_600_000,
      wrapStore: (s) => new Proxy(s, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver) as unknown;
          if (typeof v !== 'function') return v;
          // The worker dies after its task's end was written, before the count.
          if (prop === 'countRunEnds') return async (...a: Parameters<Store['countRunEnds']>) => { if (drop-- > 0) throw new Error('worker lost'); return (v as Store['countRunEnds']).apply(target, a); };
          return v.bind(target);
        },
      }),
    });
    const run = await rt.trigger('wide_lost', { runId: 'r1' });
    await rt.runUntil(async () => (await rt.ports.store.listTasks('wide_lost', run.runId)).filter((t) => t.state === 'success').length === 101);
    expect((await rt.ports.store.getRun('wide_lost', 'r1'))!.state).toBe('running');
    await reconcile(rt.ports);
    expect((await rt.ports.store.getRun('wide_lost', 'r1'))!.state).toBe('success');
  });
});
