/**
 * Each kind of misbehaving try fails only itself, at its timeout, beside healthy tasks of
 * the same run and of another run (issue 11). Real threads on a virtual clock: the
 * timeout is asserted on the clock; wall time only with a generous bound.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../lib/adapters/clock.js';
import type { MemoryLog } from '../../lib/adapters/memory/observe.js';
import { buildToLocalVersion, LocalBundleSource } from '../../lib/build/index.js';
import { closeIsolationPools } from '../../lib/isolation/isolated-bundle.js';
import { EmbeddedRuntime } from '../../lib/runtime/embedded.js';

const DAGS = path.resolve('test/fixtures/isolation-dags');
const T0 = Date.parse('2026-01-01T00:00:00Z');
let root: string;
let version: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'airless-iso-'));
  ({ version } = await buildToLocalVersion(DAGS, root));
  process.env.AIRLESS_TRY_MEMORY_MB = '64';
});
afterAll(async () => {
  delete process.env.AIRLESS_TRY_MEMORY_MB;
  await closeIsolationPools();
  await rm(root, { recursive: true, force: true });
});

describe('isolated tries', () => {
  it('fails each misbehaving try alone, at its timeout, and runs the healthy ones', async () => {
    const clock = new VirtualClock(T0);
    const rt = new EmbeddedRuntime({ bundles: new LocalBundleSource(root), clock, schedules: false, concurrency: 16 });
    await rt.register(version);
    const started = performance.now();
    const bad = await rt.trigger('misbehaving', { runId: 'bad' });
    const other = await rt.trigger('neighbour', { runId: 'other' });
    await rt.trigger('hog', { runId: 'hog' });
    const spinning = await rt.trigger('spinning_callback', { runId: 'spinning' });
    await rt.runUntil(async () => (await rt.ports.store.listActiveRuns()).length === 0, { maxVirtualMs: 60_000 });
    await rt.runUntil(async () => rt.queue.size === 0, { maxVirtualMs: 60_000 });
    const wallMs = performance.now() - started;
    const tasks = Object.fromEntries((await rt.ports.store.listTasks('misbehaving', bad.runId)).map((t) => [t.taskId, t]));
    const states = Object.fromEntries(Object.entries(tasks).map(([k, t]) => [k, t.state]));
    expect(states, JSON.stringify(Object.values(tasks).map((t) => [t.taskId, t.error]))).toEqual({
      healthy: 'success', spin: 'failed', ignore_abort: 'failed', exits: 'failed', unhandled: 'failed', throws: 'failed',
    });
    expect((await rt.ports.store.getTask({ dagId: 'spinning_callback', runId: spinning.runId, taskId: 'fine' }))?.state).toBe('success');
    expect((rt.ports.log as MemoryLog).lines.filter((l) => l.msg.startsWith('callback ')).map((l) => l.msg)).toEqual(['callback success failed: timed out after 2s']);
    for (const id of ['spin', 'ignore_abort']) {
      expect(tasks[id]!.error).toMatch(/execution timeout/);
      expect(tasks[id]!.endedAt! - tasks[id]!.startedAt!).toBe(2_000);
    }
    expect(tasks.exits!.error).toBe('the task ended its thread with process.exit(3)');
    const hog = Object.fromEntries((await rt.ports.store.listTasks('hog', 'hog')).map((t) => [t.taskId, t]));
    expect(hog.oom!.state).toBe('failed');
    expect(hog.oom!.error).toBe('the try ran out of memory (limit 64 MB per try)');
    expect(hog.fine!.state).toBe('success');
    expect(tasks.unhandled!.error).toMatch(/^unhandled rejection in task code: Error: nobody awaits me \(at misbehaving\.ts:17:\d+\)$/);
    expect(tasks.throws!.error).toMatch(/^Error: boom from the DAG file \(at misbehaving\.ts:21:11\)$/);
    expect(await rt.ports.store.getXcom({ dagId: 'misbehaving', runId: 'bad', taskId: 'healthy', key: 'return_value' }))
      .toEqual({ ok: true, at: new Date(0), tags: new Set(['a']) });
    const others = await rt.ports.store.listTasks('neighbour', other.runId);
    expect(others.map((t) => t.state)).toEqual(['success', 'success']);
    expect(await rt.ports.store.getXcom({ dagId: 'neighbour', runId: 'other', taskId: 'b', key: 'return_value' }))
      .toEqual({ got: 1n, rendered: '2026-01-01/y' });
    // Generous: two 60 s spins (a try's and a callback's) and a 120 s sleep were cut short.
    expect(wallMs).toBeLessThan(20_000);
  }, 30_000);
});
