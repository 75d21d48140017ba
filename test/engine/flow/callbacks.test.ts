/**
 * Callbacks (docs/callbacks.md, docs/adr/0016): each fires once per event, with a context
 * like the task's; a throwing callback is logged with its stack and changes no state; a
 * crash between the terminal write and the callback's message still runs it (the delayed
 * copy armed before the write). Runs on both stores (the vitest projects).
 */
import { describe, expect, it } from 'vitest';
import type { MemoryLog } from '../../../lib/adapters/memory/observe.js';
import type { EmbeddedRuntime } from '../../../lib/runtime/embedded.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime as baseRuntime, runOnce, T0 } from '../../helpers/runtime.js';

/**
 * Without retention: DynamoDB Local expires items by their TTL against the real clock, and
 * the virtual clock's 2026-01-01 makes every TTL past; the claims and done markers that
 * make a callback run once would vanish under the test.
 */
const makeRuntime: typeof baseRuntime = (dags, opts = {}) => baseRuntime(dags, { ...opts, config: { runRetentionMs: 0, ...opts.config } });

/** Runs until no message or timer is left (callback copies included). */
async function settle(rt: EmbeddedRuntime) {
  await rt.runUntil(async () => rt.queue.size === 0 && rt.timer.size === 0);
}

function recorder() {
  const calls: Record<string, unknown>[] = [];
  const cb = (name: string) => (ctx: any) => {
    calls.push({ name, taskId: ctx.taskId, dagId: ctx.dagId, runId: ctx.runId, state: ctx.state, event: ctx.event, error: ctx.error, tryNumber: ctx.tryNumber, ds: ctx.ds, failedTasks: ctx.failedTasks, conf: ctx.conf });
  };
  return { calls, cb };
}

describe('task and run callbacks', () => {
  it('each event fires its callback once, with the task context and what happened', async () => {
    const { calls, cb } = recorder();
    let tries = 0;
    const d = dag('cbs', { onSuccess: cb('dag.success'), onFailure: cb('dag.failure') }, ({ task }) => {
      task('ok', async () => 1, { onExecute: cb('ok.execute'), onSuccess: cb('ok.success'), onFailure: cb('ok.failure') });
      task('flaky', async () => { if (++tries < 3) throw new Error(`boom ${tries}`); return 2; }, {
        retries: 2, retryDelay: '1m', onRetry: cb('flaky.retry'), onSuccess: cb('flaky.success'), onExecute: cb('flaky.execute'),
      });
      task('skipper', async (ctx) => ctx.skip('nothing to do'), { onSkipped: cb('skipper.skipped'), onSuccess: cb('skipper.success') });
    });
    const { rt } = await makeRuntime([d]);
    const { states, run } = await runOnce(rt, 'cbs', { conf: { region: 'eu' } });
    await settle(rt);
    expect(states).toEqual({ ok: 'success', flaky: 'success', skipper: 'skipped' });
    expect(run.state).toBe('success');
    const names = calls.map((c) => c.name).sort();
    expect(names).toEqual([
      'dag.success', 'flaky.execute', 'flaky.execute', 'flaky.execute', 'flaky.retry', 'flaky.retry', 'flaky.success',
      'ok.execute', 'ok.success', 'skipper.skipped',
    ]);
    const retries = calls.filter((c) => c.name === 'flaky.retry');
    expect(retries.map((c) => [c.tryNumber, c.state, c.error])).toEqual([[1, 'up_for_retry', 'Error: boom 1'], [2, 'up_for_retry', 'Error: boom 2']]);
    expect(calls.find((c) => c.name === 'ok.success')).toMatchObject({ dagId: 'cbs', taskId: 'ok', state: 'success', event: 'success', ds: '2026-01-01', conf: { region: 'eu' } });
    expect(calls.find((c) => c.name === 'dag.success')).toMatchObject({ state: 'success', event: 'success', failedTasks: [], runId: run.runId });
  });

  it('a mapped task calls its callbacks once per instance, each with its map index', async () => {
    const seen: Array<[string, number | undefined]> = [];
    let executes = 0;
    const d = dag('cbmap', {}, ({ task }) => {
      task('size', async (_ctx, file: string) => file.length, {
        onSuccess: (ctx: any) => { seen.push([ctx.taskId, ctx.mapIndex]); },
        onExecute: () => { executes += 1; },
      }).expand(['a.csv', 'bb.csv', 'ccc.csv']);
    });
    const { rt } = await makeRuntime([d]);
    const { run } = await runOnce(rt, 'cbmap');
    await settle(rt);
    expect(run.state).toBe('success');
    expect(seen.sort((a, b) => (a[1] ?? -1) - (b[1] ?? -1))).toEqual([['size', 0], ['size', 1], ['size', 2]]);
    expect(executes).toBe(3);
  });

  it('a failed run calls the DAG onFailure with the failed tasks; task onFailure once, after the last retry', async () => {
    const { calls, cb } = recorder();
    const d = dag('fails', { onFailure: cb('dag.failure'), onSuccess: cb('dag.success') }, ({ task }) => {
      const a = task('a', async () => { throw new Error('bad'); }, { retries: 1, retryDelay: '1m', onFailure: cb('a.failure'), onRetry: cb('a.retry') });
      a.before(task('b', async () => 1, { onFailure: cb('b.failure') }));
    });
    const { rt } = await makeRuntime([d]);
    const { states, run } = await runOnce(rt, 'fails');
    await settle(rt);
    expect(states).toEqual({ a: 'failed', b: 'upstream_failed' });
    expect(run.state).toBe('failed');
    expect(calls.map((c) => c.name).sort()).toEqual(['a.failure', 'a.retry', 'dag.failure']);
    expect(calls.find((c) => c.name === 'dag.failure')).toMatchObject({ state: 'failed', failedTasks: ['a'] });
    expect(calls.find((c) => c.name === 'a.failure')).toMatchObject({ tryNumber: 2, state: 'failed', error: 'Error: bad' });
  });

  it('a throwing callback is logged with its stack and changes no state', async () => {
    const d = dag('throws', { onSuccess: () => { throw new Error('run callback broke'); } }, ({ task }) => {
      task('t', async () => 'v', { onSuccess: function brokenCallback() { throw new TypeError('callback broke'); } });
    });
    const { rt } = await makeRuntime([d]);
    const { states, run, tasks } = await runOnce(rt, 'throws');
    await settle(rt);
    expect(states).toEqual({ t: 'success' });
    expect(run.state).toBe('success');
    const after = (await rt.ports.store.getTask({ dagId: 'throws', runId: run.runId, taskId: 't' }))!;
    expect(after).toEqual(tasks.t);
    expect((await rt.ports.store.getRun('throws', run.runId))!).toEqual(run);
    const errors = (rt.ports.log as MemoryLog).lines.filter((l) => l.level === 'error').map((l) => l.msg);
    expect(errors).toHaveLength(2);
    expect(errors.find((m) => m.includes('TypeError: callback broke'))).toMatch(/callback success failed: TypeError: callback broke\n\s+at brokenCallback/);
    expect(errors.find((m) => m.includes('run callback broke'))).toMatch(/^callback success failed: Error: run callback broke\n\s+at /);
    expect(rt.metrics.get("CallbacksFailed")).toBe(2);
  });

  it('a callback that never returns is abandoned at its timeout, logged in one line, and other work goes on', async () => {
    const d = dag('hangs', { onSuccess: () => new Promise(() => {}) }, ({ task }) => {
      task('quick', async () => 'v', { executionTimeout: '2m', onSuccess: () => new Promise(() => {}) });
    });
    const other = dag('after_hang', {}, ({ task }) => { task('t', async () => 1); });
    const { rt } = await makeRuntime([d, other]);
    const started = rt.clock.now();
    const { run } = await runOnce(rt, 'hangs');
    await settle(rt);
    expect(run.state).toBe('success');
    const errors = (rt.ports.log as MemoryLog).lines.filter((l) => l.level === 'error').map((l) => l.msg).sort();
    // The task's callback under its executionTimeout, the run's under the 5-minute default.
    expect(errors).toEqual(['callback success failed: timed out after 2m', 'callback success failed: timed out after 5m']);
    expect(rt.metrics.get('CallbacksFailed')).toBe(2);
    // Well inside the 16-minute lease after which another worker would take the callback over.
    expect(rt.clock.now() - started).toBeLessThan(10 * 60_000);
    expect((await runOnce(rt, 'after_hang')).run.state).toBe('success');
  });

  it('a crash between the terminal write and the callback message still runs the callback, once', async () => {
    const { calls, cb } = recorder();
    const d = dag('crashy', { onSuccess: cb('dag.success') }, ({ task }) => {
      task('t', async () => 1, { onSuccess: cb('t.success') });
    });
    const { rt, clock } = await makeRuntime([d]);
    const send = rt.queue.send.bind(rt.queue);
    let crashed = 0;
    // The worker dies right after its terminal write: the immediate callback messages are lost.
    rt.queue.send = async (messages, opts) => {
      if (messages.some((m) => m.kind === 'callback' && !m.verify)) { crashed++; throw new Error('worker crashed'); }
      return send(messages, opts);
    };
    const { states, run } = await runOnce(rt, 'crashy');
    expect(states).toEqual({ t: 'success' });
    expect(run.state).toBe('success');
    expect(crashed).toBe(2);
    expect(calls).toEqual([]);
    await settle(rt);
    expect(calls.map((c) => c.name).sort()).toEqual(['dag.success', 't.success']);
    expect(clock.now() - T0).toBeGreaterThanOrEqual(60_000);
    expect(rt.metrics.get("CallbacksRecovered")).toBe(2);
  });

  it('the delayed copy of a callback that already ran is dropped: no second call', async () => {
    const { calls, cb } = recorder();
    const d = dag('once', {}, ({ task }) => { task('t', async () => 1, { onSuccess: cb('t.success') }); });
    const { rt } = await makeRuntime([d]);
    await runOnce(rt, 'once');
    await settle(rt);
    // Let every delayed copy come due and be handled.
    await rt.runUntil(async () => rt.timer.size === 0 && rt.queue.size === 0);
    expect(calls).toHaveLength(1);
    expect(rt.metrics.get("CallbacksRun")).toBe(1);
  });

  it('a DAG without callbacks arms no timer and sends no callback message (zero extra writes)', async () => {
    const d = dag('plain', {}, ({ task }) => { task('a', async () => 1).before(task('b', async () => { throw new Error('x'); })); });
    const { rt } = await makeRuntime([d]);
    const scheduled: string[] = [];
    const sent: string[] = [];
    const schedule = rt.timer.schedule.bind(rt.timer);
    rt.timer.schedule = async (id, at, m) => { scheduled.push(id); return schedule(id, at, m); };
    const send = rt.queue.send.bind(rt.queue);
    rt.queue.send = async (messages, opts) => { sent.push(...messages.map((m) => m.kind)); return send(messages, opts); };
    const { run } = await runOnce(rt, 'plain');
    expect(run.state).toBe('failed');
    expect(scheduled).toEqual([]);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((k) => k === 'callback')).toEqual([]);
  });
});
