/**
 * A value nested a few thousand levels deep fails its own try with one line and frees its
 * thread (issue 19, defect 2): a worker thread could post such a value, the main thread
 * could not read it (`messageerror`, which nothing handled) and the try waited for ever,
 * holding its slot. Real threads on a virtual clock; concurrency 1, so a held slot would
 * stall every later try.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../lib/adapters/clock.js';
import type { MemoryLog } from '../../lib/adapters/memory/observe.js';
import { buildToLocalVersion, LocalBundleSource } from '../../lib/build/index.js';
import { closeIsolationPools, loadIsolatedBundle } from '../../lib/isolation/isolated-bundle.js';
import { EmbeddedRuntime } from '../../lib/runtime/embedded.js';

const DAGS = path.resolve('test/fixtures/isolation-dags');
const nested = (levels: number): unknown => {
  let v: unknown = 'bottom';
  for (let i = 0; i < levels; i++) v = [v];
  return v;
};
let root: string;
let version: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'airless-deep-'));
  ({ version } = await buildToLocalVersion(DAGS, root));
});
afterAll(async () => {
  await closeIsolationPools();
  await rm(root, { recursive: true, force: true });
});

async function runAlone(dagId: string) {
  const rt = new EmbeddedRuntime({ bundles: new LocalBundleSource(root), clock: new VirtualClock(Date.parse('2026-01-01T00:00:00Z')), schedules: false, concurrency: 1 });
  await rt.register(version);
  const run = await rt.trigger(dagId, { runId: 'r1' });
  const outcome = await rt.runToCompletion(dagId, run.runId);
  const tasks = Object.fromEntries((await rt.ports.store.listTasks(dagId, run.runId)).map((t) => [t.taskId, t]));
  return { rt, outcome, tasks };
}

describe('values nested too deeply in an isolated try', () => {
  it('fail the try that returns or pushes one, with one line naming the depth; a deep log field is left out of the line', async () => {
    const { rt, outcome, tasks } = await runAlone('deep_values');
    expect(outcome).toBe('done');
    const seen = Object.fromEntries(Object.entries(tasks).map(([id, t]) => [id, [t.state, t.error ?? '']]));
    expect(seen).toMatchObject({
      returns_deep: ['failed', expect.stringMatching(/^XCom return_value of task returns_deep cannot be stored: a value nested more than 1000 levels deep \(at value\[0\]\[0\].*….*\[0\]\)$/)],
      returns_1500: ['failed', expect.stringMatching(/cannot be stored: a value nested more than 1000 levels deep \(at value\.rows\[0\]/)],
      pushes_deep: ['failed', expect.stringMatching(/^Error: XCom tree of task pushes_deep cannot be stored: a value nested more than 1000 levels deep/)],
      logs_deep: ['success', ''],
      returns_1000: ['success', ''],
      reads_var: ['success', ''],
    });
    for (const [, error] of Object.values(seen)) expect(error).not.toMatch(/\n/);
    const line = (rt.ports.log as MemoryLog).lines.find((l) => l.msg === 'a deep field');
    expect(line?.fields).toMatchObject({ fields: 'not shown: nested more than 1000 levels deep' });
  }, 30_000);

  it('fail a try whose thread posts what the main thread cannot read, and free its slot for the next try', async () => {
    const { outcome, tasks } = await runAlone('raw_post');
    expect(outcome).toBe('done');
    expect(tasks.posts_deep).toMatchObject({ state: 'failed' });
    expect(tasks.posts_deep!.error).toMatch(/^the try's thread sent a message that could not be read \(RangeError: Maximum call stack size exceeded\); values a task returns, pushes or logs may nest at most 1000 levels$/);
    expect(tasks.after).toMatchObject({ state: 'success' });
  }, 30_000);

  it('fail a try whose input, or a value it reads, cannot be sent to its thread; the thread serves the next try', async () => {
    const bundle = await loadIsolatedBundle(path.join(root, version, 'bundle.mjs'));
    const run = bundle.taskMethod('deep_values', 'returns_1000', 'execute')!;
    const reads = bundle.taskMethod('deep_values', 'reads_var', 'execute')!;
    const ctx = (conf: unknown, variable?: unknown) => ({
      dagId: 'deep_values', runId: 'r', taskId: 't', tryNumber: 1, logicalDate: '', dataIntervalStart: '', dataIntervalEnd: '', ds: '', params: {}, conf,
      signal: new AbortController().signal, xcom: { pull: async () => undefined, push: async () => {} }, render: (t: string) => t,
      log: { info: () => {}, warn: () => {}, error: () => {} }, variables: { get: async () => variable },
    });
    await run.ready?.();
    await expect(run(ctx({ deep: nested(5000) }))).rejects.toThrow(/^the try's input could not be sent to its thread \(RangeError: Maximum call stack size exceeded\); conf, params and XCom may nest at most 1000 levels$/);
    await reads.ready?.();
    expect(await reads(ctx({}, nested(5000)))).toMatch(/^the value could not be sent to the task \(RangeError: Maximum call stack size exceeded\)$/);
    await run.ready?.();
    expect(await run(ctx({}))).toEqual(nested(999));
  }, 30_000);
});
