/**
 * ctx.defer / ctx.skip / ctx.fail interrupt the task where called, and xcom.pull of an
 * unknown task id throws listing the DAG's tasks: in process (inline bundle) and in a
 * thread (built bundle) alike.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../lib/adapters/clock.js';
import { buildToLocalVersion, LocalBundleSource } from '../../lib/build/index.js';
import { closeIsolationPools } from '../../lib/isolation/isolated-bundle.js';
import { EmbeddedRuntime } from '../../lib/runtime/embedded.js';
import { InlineBundleSource } from '../../lib/runtime/inline-bundles.js';
import type { BundleSource } from '../../lib/engine/index.js';
import { control, mapIndexes } from '../fixtures/isolation-dags/control.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
let root: string;
let version: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'airless-ctl-'));
  ({ version } = await buildToLocalVersion(path.resolve('test/fixtures/isolation-dags'), root));
});
afterAll(async () => {
  await closeIsolationPools();
  await rm(root, { recursive: true, force: true });
});

async function runControl(bundles: BundleSource, v: string) {
  const clock = new VirtualClock(T0);
  const rt = new EmbeddedRuntime({ bundles, clock, schedules: false });
  await rt.register(v);
  const run = await rt.trigger('control', { runId: 'r1' });
  expect(await rt.runToCompletion('control', run.runId)).toBe('done');
  const tasks = Object.fromEntries((await rt.ports.store.listTasks('control', 'r1')).map((t) => [t.taskId, t]));
  const xcom = (taskId: string) => rt.ports.store.getXcom({ dagId: 'control', runId: 'r1', taskId, key: 'return_value' });
  return { tasks, xcom };
}

describe.each([
  ['in process', () => [new InlineBundleSource([control]), undefined] as const],
  ['in a thread', () => [new LocalBundleSource(root), version] as const],
])('control flow %s', (_name, make) => {
  it('interrupts at ctx.skip, ctx.fail (no retry) and ctx.defer (resumes later); xcom.pull checks task ids', async () => {
    const [bundles, v] = make();
    const { tasks, xcom } = await runControl(bundles, v ?? (bundles as InlineBundleSource).version);
    expect(tasks.skips!.state).toBe('skipped');
    expect(await xcom('skips')).toBeUndefined();
    expect(tasks.fails!.state).toBe('failed');
    expect(tasks.fails!.tryNumber).toBe(1);
    expect(tasks.fails!.error).toBe('bad input: no retry helps');
    expect(tasks.defers!.state).toBe('success');
    expect(tasks.defers!.endedAt! - T0).toBe(10 * 60_000);
    expect(await xcom('defers')).toBe(42);
    expect(tasks.typo!.state).toBe('failed');
    expect(tasks.typo!.error).toMatch(/xcom\.pull: dag control has no task "extrct" \(its tasks: skips, fails, defers, typo, early, late, unstorable\)/);
    expect(await xcom('early')).toEqual({ notRunYet: undefined, known: true });
    expect(tasks.unstorable!.state).toBe('failed');
    expect(tasks.unstorable!.error).toMatch(/XCom return_value of task unstorable cannot be stored: (a class instance|an instance of Point) at value\.rows\[0\]\.at \(/);
  });
});

describe.each([
  ['in process', () => [new InlineBundleSource([mapIndexes]), undefined] as const],
  ['in a thread', () => [new LocalBundleSource(root), version] as const],
])('ctx.mapIndex %s', (_name, make) => {
  it('is -1 in a task that is not mapped and the index in each mapped instance (a number either way)', async () => {
    const [bundles, v] = make();
    const rt = new EmbeddedRuntime({ bundles, clock: new VirtualClock(T0), schedules: false });
    await rt.register(v ?? (bundles as InlineBundleSource).version);
    const run = await rt.trigger('map_indexes', { runId: 'r1' });
    expect(await rt.runToCompletion('map_indexes', run.runId)).toBe('done');
    const xcom = (taskId: string) => rt.ports.store.getXcom({ dagId: 'map_indexes', runId: 'r1', taskId, key: 'return_value' });
    expect(await xcom('plain')).toBe(-2);
    expect((await rt.ports.store.listTasks('map_indexes', 'r1')).filter((t) => t.taskId.startsWith('each#')).map((t) => [t.taskId, t.mapValue]).sort())
      .toEqual([['each#0', '10'], ['each#1', '22']]);
  });
});

describe("isolation: 'none'", () => {
  it('runs an opted-out task in the worker thread and the others in pool threads', async () => {
    const clock = new VirtualClock(T0);
    const rt = new EmbeddedRuntime({ bundles: new LocalBundleSource(root), clock, schedules: false });
    await rt.register(version);
    expect((await rt.ports.bundles.manifest(version)).dags.find((d) => d.dagId === 'trusted')!.tasks.map((t) => t.isolation))
      .toEqual(['none', undefined]);
    const run = await rt.trigger('trusted', { runId: 'r1' });
    expect(await rt.runToCompletion('trusted', run.runId)).toBe('done');
    const xcom = (taskId: string) => rt.ports.store.getXcom({ dagId: 'trusted', runId: 'r1', taskId, key: 'return_value' });
    const { threadId } = await import('node:worker_threads');
    expect(await xcom('in_worker')).toBe(threadId);
    expect(await xcom('in_thread')).not.toBe(threadId);
  });
});
