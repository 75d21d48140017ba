/**
 * Backfill (issue 21, section 3) on both stores: the dates a backfill takes from the
 * DAG's schedule, its run type and ids, its own max-active-runs (also with engines
 * racing), reprocess behaviours, reverse, pause, cancel and completion, and that the
 * DAG's own runs keep their slots while it runs. Bad input creates nothing.
 */
import { describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../../lib/adapters/clock.js';
import { advanceBackfill, backfillRuns, cancelBackfill, createBackfill, previewBackfill, scheduleDag, setBackfillPaused } from '../../../lib/engine/index.js';
import type { Backfill, DagRun, Ports } from '../../../lib/engine/index.js';
import { isRunTerminal } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime } from '../../helpers/runtime.js';

const MIN = 60_000;
const DAY = 86_400_000;
/** The runtimes start here: a month after the backfilled range. */
const NOW = Date.parse('2026-03-01T00:00:00Z');
const JAN1 = Date.parse('2026-01-01T00:00:00Z');

/** Counts task bodies running at once: a run of a one-task DAG runs at least while its body does. */
function concurrency() {
  const c = { now: 0, max: 0, clock: undefined as VirtualClock | undefined };
  const body = async () => {
    c.now++;
    c.max = Math.max(c.max, c.now);
    try {
      await c.clock!.sleep(10 * MIN);
    } finally {
      c.now--;
    }
  };
  return { c, body };
}

async function runBackfill(rt: Awaited<ReturnType<typeof makeRuntime>>['rt'], p: Ports, b: Backfill) {
  const outcome = await rt.runUntil(async () => (await p.store.getBackfill(b.id))?.completedAt !== undefined);
  const after = (await p.store.getBackfill(b.id))!;
  return { outcome, after, runs: await backfillRuns(p, b) };
}

describe('backfill: dates, runs and completion', () => {
  it('a daily DAG over January: 31 backfill runs dated by its schedule, whatever its catchup, and the backfill completes', async () => {
    const d = dag('daily', { schedule: '0 2 * * *', catchup: false, startDate: '2025-06-01T00:00:00Z' }, ({ task }) => { task('a', () => 1); });
    const { rt } = await makeRuntime([d], { start: NOW });
    const p = rt.ports;
    const b = await createBackfill(p, { dagId: 'daily', fromDate: JAN1, toDate: Date.parse('2026-01-31T23:59:59Z'), maxActiveRuns: 4 });
    expect(b).toMatchObject({ id: 1, total: 31, maxActiveRuns: 4, reprocess: 'none' });
    const { outcome, after, runs } = await runBackfill(rt, p, b);
    expect(outcome).toBe('done');
    expect(after).toMatchObject({ handled: 31, created: 31, skipped: 0, active: 0, paused: false });
    expect(runs).toHaveLength(31);
    expect(runs.every((r) => r.state === 'success' && r.runType === 'backfill' && r.backfillId === b.id)).toBe(true);
    expect(runs[0]).toMatchObject({ runId: 'backfill__2026-01-01T02:00:00.000Z', logicalDate: Date.parse('2026-01-01T02:00:00Z') });
    expect(runs[30].logicalDate).toBe(Date.parse('2026-01-31T02:00:00Z'));
    expect(await p.store.listOpenBackfills()).toEqual([]);
    expect((await p.store.getDag('daily'))!.activeRuns ?? 0).toBe(0);
  });

  it('with createDataIntervals each run covers (tick, next tick], dated at its start; only intervals already ended', async () => {
    const d = dag('intervals', { schedule: '@daily', createDataIntervals: true }, ({ task }) => { task('a', () => 1); });
    const { rt } = await makeRuntime([d], { start: Date.parse('2026-01-05T12:00:00Z') });
    const p = rt.ports;
    const { dates } = await previewBackfill(p, { dagId: 'intervals', fromDate: Date.parse('2026-01-02T00:00:00Z'), toDate: Date.parse('2026-01-10T00:00:00Z') });
    // Jan 4 ends Jan 5 00:00 (passed); Jan 5's interval ends Jan 6: not yet.
    expect(dates.map((x) => new Date(x.logicalDate).toISOString().slice(0, 10))).toEqual(['2026-01-02', '2026-01-03', '2026-01-04']);
    const b = await createBackfill(p, { dagId: 'intervals', fromDate: Date.parse('2026-01-02T00:00:00Z'), toDate: Date.parse('2026-01-10T00:00:00Z') });
    const { runs } = await runBackfill(rt, p, b);
    expect(runs.map((r) => [r.dataIntervalStart, r.dataIntervalEnd])).toEqual([2, 3, 4].map((day) => [JAN1 + (day - 1) * DAY, JAN1 + day * DAY]));
  });

  it('reverse creates the newest date first; the DST change keeps local 02:30 (Europe/Berlin)', async () => {
    const { c, body } = concurrency();
    const d = dag('berlin', { schedule: '30 2 * * *', timezone: 'Europe/Berlin', maxActiveRuns: 1 }, ({ task }) => { task('a', body); });
    const { rt, clock } = await makeRuntime([d], { start: Date.parse('2026-04-10T00:00:00Z') });
    c.clock = clock;
    const p = rt.ports;
    const req = { dagId: 'berlin', fromDate: Date.parse('2026-03-28T00:00:00Z'), toDate: Date.parse('2026-03-30T23:00:00Z') };
    const forward = (await previewBackfill(p, req)).dates.map((x) => new Date(x.logicalDate).toISOString());
    // 02:30 does not exist on Mar 29 (spring forward): that run fires at 03:00 local, 01:00Z.
    expect(forward).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
    const created: string[] = [];
    const b = await createBackfill(p, { ...req, reverse: true });
    const { runs } = await runBackfill(rt, p, b);
    for (const r of [...runs].sort((x, y) => x.startedAt! - y.startedAt!)) created.push(new Date(r.logicalDate).toISOString());
    expect(created).toEqual([...forward].reverse());
  });
});

describe('backfill: its own max-active-runs', () => {
  it('never runs more than its max at once; the DAG counter stays untouched', async () => {
    const { c, body } = concurrency();
    const d = dag('slow', { schedule: '@daily', maxActiveRuns: 1 }, ({ task }) => { task('a', body); });
    const { rt, clock } = await makeRuntime([d], { start: NOW, concurrency: 16 });
    c.clock = clock;
    const p = rt.ports;
    const b = await createBackfill(p, { dagId: 'slow', fromDate: JAN1, toDate: JAN1 + 9 * DAY, maxActiveRuns: 3 });
    expect((await p.store.getBackfill(b.id))!.active).toBe(3);
    const { after, runs } = await runBackfill(rt, p, b);
    expect(runs).toHaveLength(10);
    expect(c.max).toBe(3);
    expect(after.active).toBe(0);
    expect((await p.store.getDag('slow'))!.activeRuns ?? 0).toBe(0);
  });

  it('engines racing to advance it (20 at once, then at every step) never pass the max', async () => {
    const { c, body } = concurrency();
    const d = dag('race', { schedule: '@daily' }, ({ task }) => { task('a', body); });
    const { rt, clock } = await makeRuntime([d], { start: NOW, concurrency: 32 });
    c.clock = clock;
    const p = rt.ports;
    const b = await createBackfill(p, { dagId: 'race', fromDate: JAN1, toDate: JAN1 + 11 * DAY, maxActiveRuns: 2 });
    const race = () => Promise.all(Array.from({ length: 20 }, () => advanceBackfill(p, b.id)));
    await race();
    expect((await p.store.getBackfill(b.id))!.active).toBe(2);
    const running = async () => (await backfillRuns(p, b)).filter((r) => r.state === 'running').length;
    expect(await running()).toBe(2);
    let peak = 0;
    const outcome = await rt.runUntil(async () => {
      await race();
      peak = Math.max(peak, await running());
      return (await p.store.getBackfill(b.id))!.completedAt !== undefined;
    });
    expect(outcome).toBe('done');
    expect(peak).toBeLessThanOrEqual(2);
    expect(c.max).toBe(2);
    const after = (await p.store.getBackfill(b.id))!;
    expect(after).toMatchObject({ handled: 12, created: 12, active: 0 });
    expect(await backfillRuns(p, b)).toHaveLength(12);
  });

  it("the DAG's own runs are not held up: its scheduled and manual runs start at once while the backfill fills its slots", async () => {
    const { c, body } = concurrency();
    const d = dag('shared', { schedule: '@daily', maxActiveRuns: 2, catchup: false, startDate: '2025-01-01T00:00:00Z' }, ({ task }) => { task('a', body); });
    const { rt, clock } = await makeRuntime([d], { start: NOW + 3_600_000 });
    c.clock = clock;
    const p = rt.ports;
    const b = await createBackfill(p, { dagId: 'shared', fromDate: JAN1, toDate: JAN1 + 5 * DAY, maxActiveRuns: 2 });
    expect((await p.store.getBackfill(b.id))!.active).toBe(2);
    // The schedule's run for today (Airflow counts backfill runs apart from the DAG's: so does Airless).
    await scheduleDag(p, 'shared');
    expect((await p.store.getRun('shared', `scheduled__${new Date(NOW).toISOString()}`))!.state).toBe('running');
    const manual = await rt.trigger('shared', { logicalDate: NOW });
    expect(manual.state).toBe('running');
    expect((await p.store.getDag('shared'))!.activeRuns).toBe(2);
    expect((await p.store.getBackfill(b.id))!.active).toBe(2);
    await rt.runUntil(async () => (await p.store.getBackfill(b.id))!.completedAt !== undefined);
    expect(c.max).toBe(4);
    expect((await p.store.getDag('shared'))!.activeRuns ?? 0).toBe(0);
  });
});

describe('backfill: dates that already have a run (Airflow reprocess behaviours)', () => {
  async function withHistory(reprocess: 'none' | 'failed' | 'completed') {
    let fail = true;
    const d = dag('hist', { schedule: '@daily', maxActiveRuns: 5 }, ({ task }) => {
      task('a', (ctx) => { if (fail && ctx.runId.startsWith('scheduled__2026-01-02')) throw new Error('no'); return 1; }, { retries: 0 });
    });
    const { rt } = await makeRuntime([d], { start: NOW });
    const p = rt.ports;
    const at = (day: number) => JAN1 + (day - 1) * DAY;
    // Jan 1 succeeded, Jan 2 failed, Jan 3 still running (queued here: never started).
    for (const day of [1, 2]) await rt.trigger('hist', { runId: `scheduled__${new Date(at(day)).toISOString()}`, logicalDate: at(day), runType: 'scheduled' });
    await rt.runUntil(async () => (await Promise.all([1, 2].map((day) => p.store.getRun('hist', `scheduled__${new Date(at(day)).toISOString()}`)))).every((r) => isRunTerminal(r!.state)));
    await p.store.createRun({ dagId: 'hist', runId: `manual__${new Date(at(3)).toISOString()}`, state: 'queued', runType: 'manual', logicalDate: at(3), dataIntervalStart: at(3), dataIntervalEnd: at(3), conf: {}, bundleVersion: (await p.store.getDag('hist'))!.bundleVersion, queuedAt: NOW });
    fail = false;
    const req = { dagId: 'hist', fromDate: at(1), toDate: at(4), reprocess };
    const plan = (await previewBackfill(p, req)).dates.map((x) => x.decision.kind === 'skip' ? `skip:${x.decision.reason}` : x.decision.kind);
    return { rt, p, req, plan, at };
  }

  it('none skips every date with a run; failed reprocesses the failed run in place; completed reprocesses both', async () => {
    expect((await withHistory('none')).plan).toEqual(['skip:already exists', 'skip:already exists', 'skip:in flight', 'create']);
    expect((await withHistory('failed')).plan).toEqual(['skip:already exists', 'reprocess', 'skip:in flight', 'create']);
    const { rt, p, req, plan, at } = await withHistory('completed');
    expect(plan).toEqual(['reprocess', 'reprocess', 'skip:in flight', 'create']);
    const b = await createBackfill(p, req);
    const { after, runs } = await runBackfill(rt, p, b);
    expect(after).toMatchObject({ handled: 4, created: 1, reprocessed: 2, skipped: 1, active: 0 });
    expect(runs.map((r) => [r.runId, r.state, r.runType])).toEqual([
      [`scheduled__${new Date(at(1)).toISOString()}`, 'success', 'backfill'],
      [`scheduled__${new Date(at(2)).toISOString()}`, 'success', 'backfill'],
      [`backfill__${new Date(at(4)).toISOString()}`, 'success', 'backfill'],
    ]);
    // The reprocessed run's task ran again: a new try, counted afresh.
    const ti = await p.store.getTask({ dagId: 'hist', runId: runs[1].runId, taskId: 'a' });
    expect(ti).toMatchObject({ state: 'success', tryNumber: 2 });
  });
});

describe('backfill: crashes and clears', () => {
  it('a reprocess cut short between its step and its clear is cleared again by a later advance', async () => {
    const d = dag('crash', { schedule: '@daily' }, ({ task }) => { task('a', () => 1); });
    const { rt, clock } = await makeRuntime([d], { start: NOW });
    const p = rt.ports;
    const old = await rt.trigger('crash', { runId: `scheduled__${new Date(JAN1).toISOString()}`, logicalDate: JAN1, runType: 'scheduled' });
    await rt.runToCompletion('crash', old.runId);
    const b = await createBackfill(p, { dagId: 'crash', fromDate: JAN1, toDate: JAN1, reprocess: 'completed' });
    await rt.runUntil(async () => (await p.store.getBackfill(b.id))!.completedAt !== undefined);
    // A second backfill of that date: its step reopens the run, then its engine "dies" before clearing it.
    const run = (await p.store.getRun('crash', old.runId))!;
    const bf = await p.store.nextBackfillId();
    const done = (await p.store.getBackfill(b.id))!;
    await p.store.createBackfill({ ...done, id: bf, completedAt: undefined, cursor: undefined, handled: 0, created: 0, reprocessed: 0, skipped: 0, active: 0 });
    const stepped = await p.store.stepBackfill(bf, { from: undefined, to: JAN1, outcome: 'reprocessed', now: clock.now(), clearing: run.runId }, {
      reopen: { dagId: 'crash', runId: run.runId, expectState: 'success', patch: { state: 'running', runType: 'backfill', backfillId: bf, startedAt: clock.now(), endedAt: null } },
    });
    expect(stepped.ok).toBe(true);
    expect((await p.store.getTask({ dagId: 'crash', runId: run.runId, taskId: 'a' }))!.tryNumber).toBe(2);
    await advanceBackfill(p, bf);
    expect((await p.store.getBackfill(bf))!.clearing).toBe(run.runId); // not stale yet: its engine may still be clearing
    clock.advanceTo(clock.now() + 2 * MIN);
    await advanceBackfill(p, bf);
    expect((await p.store.getBackfill(bf))!.clearing).toBeUndefined();
    await rt.runUntil(async () => (await p.store.getBackfill(bf))!.completedAt !== undefined);
    expect((await p.store.getRun('crash', run.runId))!).toMatchObject({ state: 'success', backfillId: bf });
    expect((await p.store.getTask({ dagId: 'crash', runId: run.runId, taskId: 'a' }))!.tryNumber).toBe(3);
  });

  it("a cleared backfill run waits for its backfill's slot, not the DAG's, and gives it back", async () => {
    const d = dag('cleared', { schedule: '@daily', maxActiveRuns: 1 }, ({ task }) => { task('a', () => 1); });
    const { rt } = await makeRuntime([d], { start: NOW });
    const p = rt.ports;
    const b = await createBackfill(p, { dagId: 'cleared', fromDate: JAN1, toDate: JAN1 + DAY, maxActiveRuns: 1 });
    await rt.runUntil(async () => (await p.store.getBackfill(b.id))!.completedAt !== undefined);
    const [first] = await backfillRuns(p, b);
    const manual = await rt.trigger('cleared', { logicalDate: NOW });
    expect(manual.state).toBe('running'); // holds the DAG's only slot
    const { clearTasks } = await import('../../../lib/engine/index.js');
    await clearTasks(p, 'cleared', first.runId, ['a']);
    expect((await p.store.getRun('cleared', first.runId))!.state).toBe('running');
    expect((await p.store.getBackfill(b.id))!.active).toBe(1);
    expect((await p.store.getDag('cleared'))!.activeRuns).toBe(1);
    await rt.runUntil(async () => (await p.store.getRun('cleared', first.runId))!.state === 'success');
    expect((await p.store.getBackfill(b.id))!.active).toBe(0);
  });
  it('a run that ended without giving its slot back (a crash in between) has it given back when the backfill would wait for it', async () => {
    const d = dag('leak', { schedule: '@daily' }, ({ task }) => { task('a', () => 1); });
    const { rt } = await makeRuntime([d], { start: NOW });
    const p = rt.ports;
    const b = await createBackfill(p, { dagId: 'leak', fromDate: JAN1, toDate: JAN1 + DAY, maxActiveRuns: 1 });
    const [first] = await backfillRuns(p, b);
    expect(await p.store.backfillSlotHolders(b.id)).toEqual([first!.runId]);
    // The run's end is written, then its engine "dies" before the give-back.
    expect((await p.store.updateRun('leak', first!.runId, { state: 'running' }, { state: 'success', endedAt: NOW })).ok).toBe(true);
    expect((await p.store.getBackfill(b.id))!.active).toBe(1);
    const after = (await advanceBackfill(p, b.id))!;
    const runs = await backfillRuns(p, b);
    expect(runs).toHaveLength(2);
    expect(after.active).toBe(1);
    expect(await p.store.backfillSlotHolders(b.id)).toEqual([runs[1]!.runId]);
    const { outcome, after: done } = await runBackfill(rt, p, b);
    expect(outcome).toBe('done');
    expect(done).toMatchObject({ handled: 2, created: 2, active: 0 });
  });
});

describe('backfill: pause, cancel, one per DAG', () => {
  it('paused, no new run starts; unpaused, it goes on; cancelled, it completes with its running runs left to finish', async () => {
    const { c, body } = concurrency();
    const d = dag('ctl', { schedule: '@daily' }, ({ task }) => { task('a', body); });
    const { rt, clock } = await makeRuntime([d], { start: NOW });
    c.clock = clock;
    const p = rt.ports;
    const b = await createBackfill(p, { dagId: 'ctl', fromDate: JAN1, toDate: JAN1 + 9 * DAY, maxActiveRuns: 1 });
    expect((await setBackfillPaused(p, b.id, true)).paused).toBe(true);
    await rt.runUntil(async () => (await backfillRuns(p, b)).every((r) => isRunTerminal(r.state)));
    expect((await backfillRuns(p, b)).map((r) => r.state)).toEqual(['success']);
    await advanceBackfill(p, b.id);
    expect(await backfillRuns(p, b)).toHaveLength(1);
    await setBackfillPaused(p, b.id, false);
    expect(await backfillRuns(p, b)).toHaveLength(2);
    const cancelled = await cancelBackfill(p, b.id);
    expect(cancelled).toMatchObject({ cancelled: true, paused: true });
    expect(cancelled.completedAt).toBeDefined();
    await rt.runUntil(async () => (await backfillRuns(p, b)).every((r) => isRunTerminal(r.state)));
    expect((await backfillRuns(p, b)).map((r) => r.state)).toEqual(['success', 'success']);
    await expect(setBackfillPaused(p, b.id, false)).rejects.toThrow(/already completed/);
    // Cancelled, the DAG may have a new one.
    expect((await createBackfill(p, { dagId: 'ctl', fromDate: JAN1, toDate: JAN1 + DAY, maxActiveRuns: 1 })).id).toBe(2);
  });

  it('bad input is refused before anything is written', async () => {
    const daily = dag('d1', { schedule: '@daily' }, ({ task }) => { task('a', () => 1); });
    const manual = dag('m1', { schedule: null }, ({ task }) => { task('a', () => 1); });
    const minutely = dag('min1', { schedule: '* * * * *' }, ({ task }) => { task('a', () => 1); });
    const { rt } = await makeRuntime([daily, manual, minutely], { start: NOW });
    const p = rt.ports;
    const cases: Array<[Parameters<typeof createBackfill>[1], RegExp]> = [
      [{ dagId: 'd1', fromDate: JAN1 + DAY, toDate: JAN1 }, /from \(2026-01-02T00:00:00.000Z\) is after to \(2026-01-01T00:00:00.000Z\)/],
      [{ dagId: 'd1', fromDate: JAN1 + 3_600_000, toDate: JAN1 + 7_200_000 }, /no schedule tick from .* that has already passed/],
      [{ dagId: 'd1', fromDate: NOW + DAY, toDate: NOW + 9 * DAY }, /no schedule tick/],
      [{ dagId: 'm1', fromDate: JAN1, toDate: JAN1 + DAY }, /dag m1 has no schedule \(schedule: null\)/],
      [{ dagId: 'nope', fromDate: JAN1, toDate: JAN1 + DAY }, /unknown dag nope/],
      [{ dagId: 'min1', fromDate: JAN1, toDate: JAN1 + DAY, confirmWith: 'give --yes' }, /the range has 1,441 runs of dag min1, more than 1,000: give --yes to create them/],
    ];
    for (const [req, msg] of cases) await expect(createBackfill(p, req)).rejects.toThrow(msg);
    expect(await p.store.listOpenBackfills()).toEqual([]);
    for (const id of ['d1', 'm1', 'min1']) {
      expect(await p.store.listBackfills(id)).toEqual([]);
      expect(await p.store.listRuns(id)).toEqual([]);
    }
    // A second backfill of a DAG with one open is refused and creates nothing either.
    await createBackfill(p, { dagId: 'd1', fromDate: JAN1, toDate: JAN1 + 2 * DAY, maxActiveRuns: 1 });
    await expect(createBackfill(p, { dagId: 'd1', fromDate: JAN1, toDate: JAN1 + 2 * DAY })).rejects.toThrow(/dag d1 has a backfill running already \(backfill 1\)/);
    expect((await p.store.listBackfills('d1')).map((b) => b.id)).toEqual([1]);
    const runs: DagRun[] = await p.store.listRuns('d1');
    expect(runs).toHaveLength(1);
  });
});
