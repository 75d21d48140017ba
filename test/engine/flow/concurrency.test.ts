import { describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../../lib/adapters/clock.js';
import { handleMessage } from '../../../lib/engine/index.js';
import type { TriggerRule } from '../../../lib/engine/index.js';
import { isRunTerminal } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { recordSends, taskMessages, trackPeaks } from '../../helpers/observe.js';
import { makeRuntime, runOnce, T0 } from '../../helpers/runtime.js';
import { onDynamo } from '../../helpers/stores.js';

const MIN = 60_000;

describe('maxActiveRuns', () => {
  it('five runs with maxActiveRuns 2: never more than 2 running, the rest wait queued, all finish in order', async () => {
    const holder: { clock?: VirtualClock } = {};
    const started: string[] = [];
    const d = dag('mar', { maxActiveRuns: 2 }, ({ task }) => {
      const a = task('a', async (ctx) => { started.push(ctx.runId); await holder.clock!.sleep(5 * MIN); });
      a.before(task('b', () => 1));
    });
    const peaks = trackPeaks();
    const { rt, clock } = await makeRuntime([d], { onEvent: peaks.onEvent });
    holder.clock = clock;
    const ids = [1, 2, 3, 4, 5].map((i) => `r${i}`);
    for (const [i, runId] of ids.entries()) await rt.trigger('mar', { runId, logicalDate: T0 + i * 1000 });
    const states = async () => Promise.all(ids.map(async (id) => (await rt.ports.store.getRun('mar', id))!.state));
    expect(await states()).toEqual(['running', 'running', 'queued', 'queued', 'queued']);
    const outcome = await rt.runUntil(async () => (await states()).every((s) => isRunTerminal(s)));
    expect(outcome).toBe('done');
    expect(await states()).toEqual(['success', 'success', 'success', 'success', 'success']);
    expect(peaks.maxRunning).toBe(2);
    expect(peaks.maxQueuedRuns).toBe(3);
    // In waves of two, oldest logical date first (within a wave the two run concurrently).
    expect([started.slice(0, 2).sort(), started.slice(2, 4).sort(), started.slice(4)]).toEqual([['r1', 'r2'], ['r3', 'r4'], ['r5']]);
    // Three waves of 5 minutes: (r1, r2), (r3, r4), (r5).
    expect(clock.now() - T0).toBeGreaterThanOrEqual(15 * MIN);
    expect((await rt.ports.store.getDag('mar'))!.activeRuns ?? 0).toBe(0);
  });
});

describe('maxActiveTasks', () => {
  it('fan-out of 10 with maxActiveTasks 3 and concurrency 10: at most 3 queued+running, all succeed', async () => {
    const holder: { clock?: VirtualClock } = {};
    const d = dag('mat', { maxActiveTasks: 3 }, ({ task }) => {
      const start = task('start', () => 1);
      const fan = Array.from({ length: 10 }, (_, i) => task(`t${i}`, async () => { await holder.clock!.sleep(MIN); return i; }));
      const end = task('end', () => 'done');
      start.before(fan);
      end.after(fan);
    });
    const peaks = trackPeaks();
    const { rt, clock } = await makeRuntime([d], { onEvent: peaks.onEvent, concurrency: 10 });
    holder.clock = clock;
    const r = await runOnce(rt, 'mat');
    expect(r.outcome).toBe('done');
    expect(r.run.state).toBe('success');
    expect(Object.values(r.states).every((s) => s === 'success')).toBe(true);
    expect(Object.keys(r.states)).toHaveLength(12);
    expect(peaks.maxActiveTasks).toBe(3);
    // ceil(10 / 3) = 4 waves of one minute each.
    expect(clock.now() - T0).toBe(4 * MIN);
    expect(r.run.activeTasks ?? 0).toBe(0);
  });

  it('slots freed by failures and skips are handed on too', async () => {
    const d = dag('mat2', { maxActiveTasks: 2 }, ({ task }) => {
      const start = task('start', () => 1);
      const fan = Array.from({ length: 6 }, (_, i) =>
        task(`t${i}`, (ctx) => { if (i % 3 === 0) throw new Error('no'); if (i % 3 === 1) return ctx.skip(); return i; }));
      start.before(fan);
    });
    const peaks = trackPeaks();
    const { rt } = await makeRuntime([d], { onEvent: peaks.onEvent, concurrency: 10 });
    const r = await runOnce(rt, 'mat2');
    expect(r.outcome).toBe('done');
    expect(r.states).toEqual({
      start: 'success', t0: 'failed', t1: 'skipped', t2: 'success', t3: 'failed', t4: 'skipped', t5: 'success',
    });
    // Peaks come from events emitted after each write returns; on DynamoDB Local a release
    // and the claim it allowed may be reported out of order, so there the bound is the
    // stored counter (the contract suite proves it under 20 concurrent claims).
    if (!onDynamo) expect(peaks.maxActiveTasks).toBeLessThanOrEqual(2);
    expect(peaks.maxActiveTasks).toBeLessThanOrEqual(3);
    expect(r.run.activeTasks ?? 0).toBe(0);
    expect(r.run.state).toBe('failed');
  });
});

describe('fast follow exactly once', () => {
  /** How many times a task of `runId` (any run when absent) entered `running`: its claims. */
  const claims = (events: ReturnType<typeof trackPeaks>['events'], taskId: string, runId?: string) =>
    events.filter((e) => e.type === 'task' && e.ti.taskId === taskId && (!runId || e.ti.runId === runId) && e.ti.state === 'running').length;

  it('two upstreams finishing at the same instant on a runtime with concurrency 2 run the join once', async () => {
    const d = dag('ff', {}, ({ task }) => {
      const a = task('a', () => 'a');
      const b = task('b', () => 'b');
      const c = task('c', () => 'c');
      c.after(a, b);
    });
    const peaks = trackPeaks();
    const { rt } = await makeRuntime([d], { concurrency: 2, onEvent: peaks.onEvent });
    const sent = recordSends(rt.queue);
    const r = await runOnce(rt, 'ff');
    expect(r.states).toEqual({ a: 'success', b: 'success', c: 'success' });
    expect(r.tasks.a.endedAt).toBe(r.tasks.b.endedAt);
    // The worker that ended the join's last upstream claims it and runs it next (eager
    // follow, flow/eager-follow.ts): no message, one claim, one try.
    expect(taskMessages(sent, 'c')).toHaveLength(0);
    expect(claims(peaks.events, 'c')).toBe(1);
    expect(r.tasks.c.tryNumber).toBe(1);
  });

  // `always` is left out: it runs when the run starts (engine-trigger-rules.test.ts).
  const rules: TriggerRule[] = ['all_success', 'one_success', 'none_failed', 'all_done', 'one_done', 'none_skipped'];
  for (const rule of rules) {
    it(`three upstreams handled concurrently (Promise.all) run a ${rule} join exactly once`, async () => {
      const d = dag(`ff_${rule}`, {}, ({ task }) => {
        const ups = ['a', 'b', 'c'].map((id) => task(id, () => id));
        task('j', () => 'j', { triggerRule: rule }).after(ups);
      });
      const peaks = trackPeaks();
      const { rt } = await makeRuntime([d], { onEvent: peaks.onEvent });
      const sent = recordSends(rt.queue);
      for (let i = 0; i < 10; i++) {
        const run = await rt.trigger(d.spec.dagId, { runId: `r${i}` });
        // Take the three root messages off the queue and handle them at once.
        const deliveries = await rt.queue.receive(10, 60_000);
        expect(deliveries.map((x) => (x.message as { taskId: string }).taskId).sort()).toEqual(['a', 'b', 'c']);
        await Promise.all(deliveries.map((x) => handleMessage(rt.ports, x.message)));
        for (const x of deliveries) await rt.queue.ack(x);
        // One of the three workers claimed the join and ran it; none sent it.
        expect(taskMessages(sent, 'j', run.runId)).toHaveLength(0);
        expect(claims(peaks.events, 'j', run.runId)).toBe(1);
        const j = await rt.ports.store.getTask({ dagId: d.spec.dagId, runId: run.runId, taskId: 'j' });
        expect(j).toMatchObject({ state: 'success', tryNumber: 1 });
        expect(await rt.queue.receive(10, 60_000)).toEqual([]);
        expect((await rt.ports.store.getRun(d.spec.dagId, run.runId))!.state).toBe('success');
      }
      expect(claims(peaks.events, 'j')).toBe(10);
    });
  }

  it('two upstreams failing at once upstream-fail the join exactly once and the run fails once', async () => {
    const d = dag('ff_fail', {}, ({ task }) => {
      const a = task('a', () => { throw new Error('a'); });
      const b = task('b', () => { throw new Error('b'); });
      task('c', () => 'c').after(a, b);
    });
    const peaks = trackPeaks();
    const { rt } = await makeRuntime([d], { onEvent: peaks.onEvent });
    const sent = recordSends(rt.queue);
    const run = await rt.trigger('ff_fail', { runId: 'x' });
    const deliveries = await rt.queue.receive(10, 60_000);
    await Promise.all(deliveries.map((x) => handleMessage(rt.ports, x.message)));
    const cEvents = peaks.events.filter((e) => e.type === 'task' && e.ti.taskId === 'c');
    expect(cEvents.map((e) => e.type === 'task' && e.ti.state)).toEqual(['upstream_failed']);
    expect(taskMessages(sent, 'c')).toHaveLength(0);
    const runEnds = peaks.events.filter((e) => e.type === 'run' && e.run.runId === run.runId && e.run.state === 'failed');
    expect(runEnds).toHaveLength(1);
  });
});
