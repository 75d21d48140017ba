/**
 * Eager follow: the worker that finishes a task runs the next task of the run itself
 * (created already claimed), instead of a queue round trip; bounded by a budget, one per
 * finished task, and only when the task's timeout fits in the worker's remaining time.
 */
import { describe, expect, it } from 'vitest';
import { chain, dag, definePool } from '../../../lib/sdk/index.js';
import { loadRunCtx } from '../../../lib/engine/index.js';
import { settleDownstream } from '../../../lib/engine/flow/settle.js';
import { FollowAllowance } from '../../../lib/engine/flow/eager-follow.js';
import { recordSends, trackPeaks } from '../../helpers/observe.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';

const ran: string[] = [];
const chain5 = dag('chain5', { defaultArgs: { executionTimeout: '1m' } }, ({ task }) => {
  chain(...['a', 'b', 'c', 'd', 'e'].map((id) => task(id, async (ctx) => { ran.push(`${ctx.taskId}#${ctx.tryNumber}`); })));
});

describe('eager follow', () => {
  it('runs a chain from one message, each task once, with no scheduling lag', async () => {
    ran.length = 0;
    const { rt } = await makeRuntime([chain5]);
    const sent = recordSends(rt.queue);
    const r = await runOnce(rt, 'chain5');
    expect(r.run.state).toBe('success');
    expect(ran).toEqual(['a#1', 'b#1', 'c#1', 'd#1', 'e#1']);
    expect(sent.filter((m) => m.kind === 'task').map((m) => (m as { taskId: string }).taskId)).toEqual(['a']);
    expect(rt.metrics.get('EagerFollows')).toBe(4);
    expect(rt.metrics.timings.get('SchedulingLagMs')!.slice(1)).toEqual([0, 0, 0, 0]);
  });

  it('stops at its budget and queues the rest', async () => {
    ran.length = 0;
    const { rt } = await makeRuntime([chain5], { config: { maxEagerFollows: 2 } });
    const sent = recordSends(rt.queue);
    expect((await runOnce(rt, 'chain5')).run.state).toBe('success');
    // a, then b and c eagerly; d by the queue, then e eagerly from d's message.
    expect(sent.filter((m) => m.kind === 'task').map((m) => (m as { taskId: string }).taskId)).toEqual(['a', 'd']);
    expect(ran).toEqual(['a#1', 'b#1', 'c#1', 'd#1', 'e#1']);
  });

  it('is off with a budget of 0, and when the task would not fit in the time left', async () => {
    for (const opts of [{ config: { maxEagerFollows: 0 } }, { remainingMs: 90_000 }]) {
      ran.length = 0;
      const { rt } = await makeRuntime([chain5], { config: opts.config });
      // A task with a 1-minute timeout needs 1 min + the 1-minute lease margin: 90 s is too little.
      if (opts.remainingMs) rt.ports.remainingMs = () => opts.remainingMs;
      const sent = recordSends(rt.queue);
      expect((await runOnce(rt, 'chain5')).run.state).toBe('success');
      expect(sent.filter((m) => m.kind === 'task')).toHaveLength(5);
      expect(rt.metrics.get('EagerFollows')).toBe(0);
    }
  });

  it('takes one follow-up per finished task: fan-out siblings still go through the queue', async () => {
    const fan = dag('fan', {}, ({ task }) => {
      task('root', async () => 1).before(task('x', async () => 2), task('y', async () => 3), task('z', async () => 4));
    });
    const { rt } = await makeRuntime([fan]);
    const sent = recordSends(rt.queue);
    const r = await runOnce(rt, 'fan');
    expect(r.states).toEqual({ root: 'success', x: 'success', y: 'success', z: 'success' });
    expect(rt.metrics.get('EagerFollows')).toBe(1);
    expect(sent.filter((m) => m.kind === 'task')).toHaveLength(3);
    expect(Object.values(r.tasks).every((t) => t.tryNumber === 1)).toBe(true);
  });

  it('an eagerly claimed task whose worker dies is retried after its lease, like any claimed try', async () => {
    const tries: number[] = [];
    const pair = dag('pair', { defaultArgs: { executionTimeout: '1m', retries: 1, retryDelay: '1m' } }, ({ task }) => {
      chain(task('first', async () => undefined), task('second', async (ctx) => { tries.push(ctx.tryNumber); }));
    });
    const { rt, clock } = await makeRuntime([pair], { tickMs: 60_000 });
    const run = await rt.trigger('pair');
    // A worker finishes `first` and eagerly claims `second`, then dies before running it.
    const rc = (await loadRunCtx(rt.ports, 'pair', run.runId))!;
    const first = { dagId: 'pair', runId: run.runId, taskId: 'first' };
    await rt.ports.store.updateTask(first, { state: 'queued', tryNumber: 1 }, { state: 'success', endedAt: clock.now() });
    const { next } = await settleDownstream(rt.ports, rc, 'first', 'success', undefined, new FollowAllowance(1));
    expect(next).toMatchObject({ taskId: 'second', state: 'running', tryNumber: 1 });
    const t0 = clock.now();
    expect(await rt.runToCompletion('pair', run.runId)).toBe('done');
    const second = (await rt.ports.store.getTask({ ...first, taskId: 'second' }))!;
    expect(second).toMatchObject({ state: 'success', tryNumber: 2 });
    expect(tries).toEqual([2]);
    // Lease = 1 min timeout + 1 min margin; then the retry delay.
    expect(second.startedAt! - t0).toBeGreaterThanOrEqual(2 * 60_000);
    expect(rt.metrics.get('ExpiredLeases')).toBe(1);
  });

  /** An in-tree of 7: 2i+1 and 2i+2 feed i, so four leaves run first and t0 last. */
  const inTree = (dagId: string, opts: { pool?: ReturnType<typeof definePool> } = {}) => dag(dagId, {}, ({ task }) => {
    const ts = Array.from({ length: 7 }, (_, i) => task(`t${i}`, async () => i, i === 0 && opts.pool ? { pool: opts.pool } : {}));
    for (let i = 0; i < 3; i++) ts[i]!.after(ts[2 * i + 1]!, ts[2 * i + 2]!);
  });

  it('claims a join whose last upstream it ended (scheduled -> running in one write): an in-tree runs from its leaves\' messages', async () => {
    const peaks = trackPeaks();
    const { rt } = await makeRuntime([inTree('intree')], { onEvent: peaks.onEvent });
    const sent = recordSends(rt.queue);
    const r = await runOnce(rt, 'intree');
    expect(r.run.state).toBe('success');
    expect(sent.filter((m) => m.kind === 'task').map((m) => (m as { taskId: string }).taskId).sort()).toEqual(['t3', 't4', 't5', 't6']);
    expect(rt.metrics.get('EagerFollows')).toBe(3);
    expect(Object.values(r.tasks).every((t) => t.tryNumber === 1)).toBe(true);
    // Each join's state writes: claimed, then ended; never queued.
    for (const id of ['t0', 't1', 't2']) {
      const states = peaks.events.filter((e) => e.type === 'task' && e.ti.taskId === id).map((e) => e.type === 'task' && e.ti.state);
      expect(states).toEqual(['running', 'success']);
    }
  });

  it('queues a join under a pool (its slot moves with the queueing write), and one the budget does not cover', async () => {
    const one = definePool('one', { slots: 1 });
    for (const [d, opts] of [[inTree('pooled', { pool: one }), {}], [inTree('spent'), { config: { maxEagerFollows: 0 } }]] as const) {
      const { rt } = await makeRuntime([d], opts);
      const sent = recordSends(rt.queue);
      const r = await runOnce(rt, d.spec.dagId);
      expect(r.run.state).toBe('success');
      expect(sent.filter((m) => m.kind === 'task').map((m) => (m as { taskId: string }).taskId)).toContain('t0');
      expect(r.tasks.t0).toMatchObject({ state: 'success', tryNumber: 1 });
    }
  });
});
