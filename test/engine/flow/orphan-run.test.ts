/**
 * A run whose bundle version is gone (lib/engine/flow/orphan-run.ts): reconcile ends it
 * `failed` with the reason on the run, gives its maxActiveRuns slot back and starts the
 * queued run; a due task of it no longer fails the tick for every other DAG; a transient
 * error reading the bundle leaves the run for the next tick.
 */
import { describe, expect, it } from 'vitest';
import { MemoryLog } from '../../../lib/adapters/memory/observe.js';
import { AirlessError, BundleNotFoundError, clearTasks, reconcile, type BundleSource, type TaskKey } from '../../../lib/engine/index.js';
import { dag, defineSensor } from '../../../lib/sdk/index.js';
import type { EmbeddedRuntime } from '../../../lib/runtime/embedded.js';
import { makeRuntime } from '../../helpers/runtime.js';

const MIN = 60_000;

const orphan = dag('orphan', { maxActiveRuns: 1 }, ({ task }) => {
  task('a', () => { throw new Error('always'); }, { retries: 2, retryDelay: '10m' });
});
const other = dag('other', {}, ({ task }) => {
  task('b', (ctx) => { if (ctx.tryNumber === 1) throw new Error('first try'); }, { retries: 1, retryDelay: '10m' });
});

async function untilState(rt: EmbeddedRuntime, key: TaskKey, state: string) {
  await rt.runUntil(async () => (await rt.ports.store.getTask(key))?.state === state, { maxVirtualMs: 5 * MIN });
  expect((await rt.ports.store.getTask(key))?.state).toBe(state);
}

/** Two runs waiting for a retry (orphan's holds its only slot) and a queued orphan run. */
async function setUp() {
  const log = new MemoryLog();
  const { rt, clock } = await makeRuntime([orphan, other], { log });
  const run1 = await rt.trigger('orphan');
  const b = await rt.trigger('other');
  await untilState(rt, { dagId: 'orphan', runId: run1.runId, taskId: 'a' }, 'up_for_retry');
  await untilState(rt, { dagId: 'other', runId: b.runId, taskId: 'b' }, 'up_for_retry');
  const run2 = await rt.trigger('orphan', { logicalDate: clock.now() + 1 });
  expect((await rt.ports.store.getRun('orphan', run2.runId))?.state).toBe('queued');
  return { rt, clock, log, run1, run2, b };
}

/** The bundle version run1 was pinned to is deleted (a version no source has). */
async function pinToDeletedVersion(rt: EmbeddedRuntime, runId: string) {
  const r = await rt.ports.store.updateRun('orphan', runId, { state: 'running' }, { bundleVersion: 'deleted0001' });
  expect(r.ok).toBe(true);
}

describe('reconcile ends a run whose bundle is gone', () => {
  it('fails the run with the reason, gives its slot back, starts the queued run, and still serves the other DAGs', async () => {
    const { rt, clock, log, run1, run2, b } = await setUp();
    await pinToDeletedVersion(rt, run1.runId);
    clock.advanceTo(clock.now() + 11 * MIN);

    await reconcile(rt.ports, { schedules: false });

    const ended = (await rt.ports.store.getRun('orphan', run1.runId))!;
    expect(ended.state).toBe('failed');
    expect(ended.endedAt).toBe(clock.now());
    expect(ended.error).toMatch(/^run failed: its bundle version deleted0001 is gone \(unknown bundle version deleted0001\)$/);
    // The slot went back in the same write: the queued run holds it now.
    expect((await rt.ports.store.getRun('orphan', run2.runId))?.state).toBe('running');
    expect((await rt.ports.store.getDag('orphan'))?.activeRuns).toBe(1);
    // Its unfinished task keeps its state, says why, and is off the due index.
    const a = (await rt.ports.store.getTask({ dagId: 'orphan', runId: run1.runId, taskId: 'a' }))!;
    expect(a.state).toBe('up_for_retry');
    expect(a.error).toBe(ended.error);
    expect(a.dueAt).toBeUndefined();
    // The other DAG's due retry was released in the same tick.
    expect((await rt.ports.store.getTask({ dagId: 'other', runId: b.runId, taskId: 'b' }))?.state).toBe('queued');
    expect(log.lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(log.lines.filter((l) => l.msg === 'run failed: its bundle is gone')).toHaveLength(1);

    // The next tick finds nothing of the ended run to review: no error is logged again.
    const errors = log.lines.filter((l) => l.level === 'error').length;
    clock.advanceTo(clock.now() + MIN);
    await reconcile(rt.ports, { schedules: false });
    expect(log.lines.filter((l) => l.level === 'error').length).toBe(errors);
    expect((await rt.ports.store.getRun('orphan', run1.runId))?.state).toBe('failed');
  });

  it('a run that fails this way and is cleared starts again without the old reason', async () => {
    const { rt, clock, run1 } = await setUp();
    await pinToDeletedVersion(rt, run1.runId);
    clock.advanceTo(clock.now() + 11 * MIN);
    await reconcile(rt.ports, { schedules: false });
    expect((await rt.ports.store.getRun('orphan', run1.runId))?.error).toBeDefined();
    // The operator puts the version back (a re-push of the same build), then clears the task.
    const r = await rt.ports.store.updateRun('orphan', run1.runId, { state: 'failed' }, { bundleVersion: run1.bundleVersion });
    expect(r.ok).toBe(true);
    await clearTasks(rt.ports, 'orphan', run1.runId, ['a']);
    const reopened = (await rt.ports.store.getRun('orphan', run1.runId))!;
    expect(reopened.state).not.toBe('failed');
    expect(reopened.error).toBeUndefined();
  });

  it('a transient error reading the bundle (AccessDenied, a timeout) leaves the run for the next tick', async () => {
    const { rt, clock, log, run1, run2 } = await setUp();
    const manifest = rt.ports.bundles.manifest.bind(rt.ports.bundles);
    rt.ports.bundles.manifest = async () => { throw new AirlessError('S3 GetObject: AccessDenied', { retryable: true }); };
    clock.advanceTo(clock.now() + 11 * MIN);
    await reconcile(rt.ports, { schedules: false });
    expect((await rt.ports.store.getRun('orphan', run1.runId))?.state).toBe('running');
    expect((await rt.ports.store.getRun('orphan', run2.runId))?.state).toBe('queued');
    expect(log.lines.filter((l) => l.msg === 'reconcile could not advance a run').length).toBeGreaterThan(0);
    // Readable again: the next tick releases the retry as usual.
    rt.ports.bundles.manifest = manifest;
    await reconcile(rt.ports, { schedules: false });
    expect((await rt.ports.store.getTask({ dagId: 'orphan', runId: run1.runId, taskId: 'a' }))?.state).toBe('queued');
  });

  it('a queued run pinned to a gone version is ended as it starts, and the next queued run gets the slot', async () => {
    const { rt, clock, run1, run2 } = await setUp();
    const run3 = await rt.trigger('orphan', { logicalDate: clock.now() + 2 });
    const r = await rt.ports.store.updateRun('orphan', run2.runId, { state: 'queued' }, { bundleVersion: 'deleted0002' });
    expect(r.ok).toBe(true);
    await pinToDeletedVersion(rt, run1.runId);
    await reconcile(rt.ports, { schedules: false });
    expect((await rt.ports.store.getRun('orphan', run1.runId))?.state).toBe('failed');
    const second = (await rt.ports.store.getRun('orphan', run2.runId))!;
    expect(second.state).toBe('failed');
    expect(second.error).toContain('deleted0002');
    expect((await rt.ports.store.getRun('orphan', run3.runId))?.state).toBe('running');
    expect((await rt.ports.store.getDag('orphan'))?.activeRuns).toBe(1);
  });
});

describe('a bundle version whose code is gone (its manifest still there)', () => {
  it('fails a task and a batched sensor at once: their retries cannot bring the code back', async () => {
    const never = defineSensor('gone_never', async () => false);
    const d = dag('code_gone', {}, ({ task, sensor }) => {
      task('t', () => 1, { retries: 3, retryDelay: '1m' });
      sensor('s', { type: never, pokeContext: {} }, { pokeInterval: '1m', timeout: '1h', retries: 3, retryDelay: '1m' });
    });
    const { rt } = await makeRuntime([d]);
    const real = rt.ports.bundles;
    const gone: BundleSource = {
      manifest: (v) => real.manifest(v),
      load: async (v) => { throw new BundleNotFoundError(`bundle version ${v} not found`); },
    };
    Object.assign(rt.ports, { bundles: gone });
    const run = await rt.trigger('code_gone');
    await rt.runToCompletion('code_gone', run.runId);
    const tasks = Object.fromEntries((await rt.ports.store.listTasks('code_gone', run.runId)).map((t) => [t.taskId, t]));
    expect(tasks.t).toMatchObject({ state: 'failed', tryNumber: 1 });
    expect(tasks.t!.error).toMatch(/cannot be loaded: bundle version \S+ not found$/);
    expect(tasks.s).toMatchObject({ state: 'failed', tryNumber: 1 });
    expect(tasks.s!.error).toMatch(/poke failed: bundle \S+ cannot be loaded: bundle version \S+ not found/);
    expect((await rt.ports.store.getRun('code_gone', run.runId))?.state).toBe('failed');
  });
});
