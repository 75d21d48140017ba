/**
 * The one writer of task state (lib/engine/write/transition.ts): the transition table is
 * enforced, each state's fields are set and reset, the slot counter moves with the
 * write, and a lost race is a typed result counted once.
 */
import { describe, expect, it } from 'vitest';
import { MemoryMetrics } from '../../../lib/adapters/memory/observe.js';
import { DEFAULT_CONFIG, type DagSpec, type Ports, type TaskInstance } from '../../../lib/engine/index.js';
import { createTask, transition } from '../../../lib/engine/write/transition.js';
import { T0 } from '../../helpers/runtime.js';
import { testStore } from '../../helpers/stores.js';

function spec(maxActiveTasks: number): DagSpec {
  const t = (taskId: string, upstream: string[], downstream: string[]) => ({
    taskId, kind: 'task', upstream, downstream, triggerRule: 'all_success', retries: 0, retryDelayMs: 0,
  });
  return {
    dagId: 'd', file: 'd.ts', timezone: 'UTC', catchup: false, maxActiveRuns: 1, maxActiveTasks, maxParallelism: 2,
    params: {}, tags: [], pausedOnCreation: false, tasks: [t('a', [], ['b']), t('b', ['a'], []), t('c', [], [])],
  } as unknown as DagSpec;
}

async function setup(maxActiveTasks = 16) {
  const store = await testStore();
  const metrics = new MemoryMetrics();
  const p = { store, metrics, clock: { now: () => T0, sleep: async () => {} }, config: DEFAULT_CONFIG, workerId: 'w' } as unknown as Ports;
  const run = { dagId: 'd', runId: 'r', state: 'running', runType: 'manual', logicalDate: T0, dataIntervalStart: T0, dataIntervalEnd: T0, conf: {}, bundleVersion: 'v', queuedAt: T0 } as const;
  await store.createRun(run);
  return { p, store, metrics, rc: { run: { ...run }, spec: spec(maxActiveTasks) } };
}

describe('transition', () => {
  it('refuses a move the table does not list, before any write', async () => {
    const { p, store, rc } = await setup();
    const ti = (await store.putTask({ dagId: 'd', runId: 'r', taskId: 'a', state: 'success', tryNumber: 1, upstream: {} }) as { item: TaskInstance }).item;
    await expect(transition(p, rc, ti, 'running')).rejects.toThrow('illegal task transition success -> running');
    expect((await store.getTask(ti))!.state).toBe('success');
  });

  it('queues a new try, claims it with a lease, and ends it with the end time, no lease and the retention', async () => {
    const { p, store, rc } = await setup();
    const created = await createTask(p, rc, rc.spec.tasks[2]!, 'scheduled');
    const q = await transition(p, rc, (created as { item: TaskInstance }).item, 'queued');
    expect(q).toMatchObject({ ok: true, item: { state: 'queued', tryNumber: 1, queuedAt: T0 } });
    const running = await transition(p, rc, (q as { item: TaskInstance }).item, 'running', {}, { owner: 'tok' });
    const lease = DEFAULT_CONFIG.defaultLeaseMs + DEFAULT_CONFIG.leaseMarginMs;
    expect(running).toMatchObject({ ok: true, item: { state: 'running', owner: 'tok', startedAt: T0, leaseUntil: T0 + lease } });
    const done = await transition(p, rc, (running as { item: TaskInstance }).item, 'success');
    expect(done.ok && done.item).toMatchObject({ state: 'success', endedAt: T0, expiresAt: Math.floor((T0 + DEFAULT_CONFIG.runRetentionMs) / 1000) });
    expect(done.ok && done.item).not.toHaveProperty('leaseUntil');
    expect((await store.getTask({ dagId: 'd', runId: 'r', taskId: 'c' }))!.state).toBe('success');
  });

  it('a stale writer loses with the current item, counted once as a lost race', async () => {
    const { p, store, rc, metrics } = await setup();
    const ti = (await createTask(p, rc, rc.spec.tasks[2]!, 'queued') as { item: TaskInstance }).item;
    await transition(p, rc, ti, 'running', {}, { owner: 'first' });
    const lost = await transition(p, rc, ti, 'running', {}, { owner: 'second' });
    expect(lost).toMatchObject({ ok: false, reason: 'condition', current: { state: 'running', owner: 'first' } });
    expect(metrics.get('LostRaces')).toBe(1);
    expect((await store.getTask(ti))!.owner).toBe('first');
  });

  it('a write from a held state must carry the claim token', async () => {
    const { p, rc } = await setup();
    const ti = (await createTask(p, rc, rc.spec.tasks[2]!, 'running', {}, { owner: 'mine' }) as { item: TaskInstance }).item;
    const forged = { ...ti, owner: 'someone-else' };
    expect(await transition(p, rc, forged, 'success')).toMatchObject({ ok: false, current: { state: 'running' } });
    expect(await transition(p, rc, ti, 'success')).toMatchObject({ ok: true });
  });

  it('moves the maxActiveTasks counter: +1 into queued (refused at the limit), -1 out of running', async () => {
    const { p, store, rc, metrics } = await setup(1);
    const a = (await createTask(p, rc, rc.spec.tasks[0]!, 'scheduled') as { item: TaskInstance }).item;
    const c = (await createTask(p, rc, rc.spec.tasks[2]!, 'scheduled') as { item: TaskInstance }).item;
    const qa = await transition(p, rc, a, 'queued');
    expect(qa.ok).toBe(true);
    expect((await store.getRun('d', 'r'))!.activeTasks).toBe(1);
    expect(await transition(p, rc, c, 'queued')).toMatchObject({ ok: false, reason: 'slots' });
    expect(metrics.get('SlotsFull')).toBe(1);
    const ra = await transition(p, rc, (qa as { item: TaskInstance }).item, 'running', {}, { owner: 't' });
    await transition(p, rc, (ra as { item: TaskInstance }).item, 'failed', { error: 'x' });
    expect((await store.getRun('d', 'r'))!.activeTasks ?? 0).toBe(0);
    expect(await transition(p, rc, c, 'queued')).toMatchObject({ ok: true });
  });

  it('clear resets the try fields and forgets the named upstream outcomes', async () => {
    const { p, store, rc } = await setup();
    await store.recordUpstream({ dagId: 'd', runId: 'r', taskId: 'b' }, 'a', 'failed');
    const b = (await store.getTask({ dagId: 'd', runId: 'r', taskId: 'b' }))!;
    const ended = await transition(p, rc, b, 'upstream_failed', { error: 'up' });
    const cleared = await transition(p, rc, (ended as { item: TaskInstance }).item, 'scheduled', {}, { forgetUpstream: ['a'] });
    expect(cleared).toEqual({ ok: true, item: { dagId: 'd', runId: 'r', taskId: 'b', state: 'scheduled', tryNumber: 0, tryBase: 0, upstream: {} } });
  });
});
