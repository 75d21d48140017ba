import { describe, expect, it } from 'vitest';
import { loadRunCtx, taskSpec } from '../../../lib/engine/index.js';
import type { TaskInstance, TaskKey } from '../../../lib/engine/index.js';
import type { QueueMessage } from '../../../lib/engine/index.js';
import { finishTask } from '../../../lib/engine/flow/worker-finish.js';
import { dag } from '../../../lib/sdk/index.js';
import type { EmbeddedRuntime } from '../../../lib/runtime/embedded.js';
import { taskMessages } from '../../helpers/observe.js';
import { makeRuntime } from '../../helpers/runtime.js';

const MIN = 60_000;

/** Records every message with the virtual time it was sent at. */
function sendsWithTime(rt: EmbeddedRuntime) {
  const sent: { at: number; m: QueueMessage }[] = [];
  const original = rt.queue.send.bind(rt.queue);
  rt.queue.send = async (messages, opts) => {
    for (const m of messages) sent.push({ at: rt.clock.now(), m });
    return original(messages, opts);
  };
  return sent;
}

/** Takes the message for `taskId` off the queue, as if SQS lost it (or a worker acked and died). */
async function loseMessage(rt: EmbeddedRuntime, taskId: string) {
  const ds = await rt.queue.receive(100, 15 * MIN);
  const d = ds.find((x) => (x.message as { taskId?: string }).taskId === taskId);
  expect(d).toBeDefined();
  for (const x of ds) if (x !== d) await rt.queue.release(x, 0);
  await rt.queue.ack(d!);
  return d!.message as { dagId: string; runId: string; taskId: string; tryNumber: number; up?: TaskInstance['upstream'] };
}

/**
 * Claims a try as a worker would, then "crashes": nothing else is written. A queued try is
 * claimed by a compare-and-set; a task with no item yet (its message carries `up`) is
 * created already running (docs/adr/0020).
 */
async function claimAndCrash(rt: EmbeddedRuntime, key: TaskKey & { up?: TaskInstance['upstream'] }, tryNumber: number, leaseMs: number) {
  const now = rt.clock.now();
  const claimed = { state: 'running' as const, owner: 'dead-worker', startedAt: now, leaseUntil: now + leaseMs };
  const r = key.up
    ? await rt.ports.store.putTask({ dagId: key.dagId, runId: key.runId, taskId: key.taskId, tryNumber, upstream: key.up, queuedAt: now, ...claimed })
    : await rt.ports.store.updateTask(key, { state: 'queued', tryNumber }, { ...claimed, dueAt: now + leaseMs });
  expect(r.ok).toBe(true);
  return r.ok ? r.item : undefined;
}

describe('reconcile recovers what a crash or a lost message left behind', () => {
  it('(a) a lost task message is re-sent after requeueAfterMs and the run succeeds', async () => {
    const d = dag('lost', {}, ({ task }) => { task('a', () => 1).before(task('b', () => 2)); });
    const { rt, clock } = await makeRuntime([d], { config: { requeueAfterMs: 5 * MIN }, tickMs: MIN });
    const sent = sendsWithTime(rt);
    const run = await rt.trigger('lost');
    const t0 = clock.now();
    await loseMessage(rt, 'a');
    expect(await rt.runToCompletion('lost', run.runId)).toBe('done');
    const final = (await rt.ports.store.getRun('lost', run.runId))!;
    expect(final.state).toBe('success');
    const aSends = sent.filter((s) => s.m.kind === 'task' && s.m.taskId === 'a');
    // The original send (lost), then one re-send by the first tick after requeueAfterMs.
    expect(aSends.map((s) => s.at - t0)).toHaveLength(2);
    expect(aSends[0].at).toBe(t0);
    expect(aSends[1].at).toBeGreaterThanOrEqual(t0 + 5 * MIN);
    expect(aSends[1].at).toBeLessThanOrEqual(t0 + 6 * MIN);
    expect(rt.metrics.get('Requeued')).toBe(1);
    const a = (await rt.ports.store.getTask({ dagId: 'lost', runId: run.runId, taskId: 'a' }))!;
    expect(a).toMatchObject({ state: 'success', tryNumber: 1 });
  });

  it('(b) a crashed worker: after the lease expires reconcile retries the try and the run finishes', async () => {
    const tries: number[] = [];
    const d = dag('crash', {}, ({ task }) => {
      task('a', (ctx) => { tries.push(ctx.tryNumber); }, { retries: 1, retryDelay: '1m', executionTimeout: '10m' })
        .before(task('b', () => 2));
    });
    const { rt, clock } = await makeRuntime([d], { tickMs: MIN });
    const run = await rt.trigger('crash');
    const t0 = clock.now();
    const m = await loseMessage(rt, 'a');
    const zombie = (await claimAndCrash(rt, m, 1, 20 * MIN))!;
    expect(await rt.runToCompletion('crash', run.runId)).toBe('done');
    const tasks = Object.fromEntries((await rt.ports.store.listTasks('crash', run.runId)).map((t) => [t.taskId, t]));
    expect(tries).toEqual([2]);
    expect(tasks.a).toMatchObject({ state: 'success', tryNumber: 2 });
    expect(tasks.a.startedAt).toBeGreaterThanOrEqual(t0 + 20 * MIN);
    expect(tasks.b.state).toBe('success');
    expect(rt.metrics.get('ExpiredLeases')).toBe(1);
    expect((await rt.ports.store.getRun('crash', run.runId))!.state).toBe('success');
    // The zombie wakes up and reports: its write is refused, nothing changes.
    const rc = (await loadRunCtx(rt.ports, 'crash', run.runId))!;
    const { ok } = await finishTask(rt.ports, rc, taskSpec(rc.spec, 'a'), zombie, { kind: 'failed', error: 'late' });
    expect(ok).toBe(false);
    expect((await rt.ports.store.getTask(m))!).toMatchObject({ state: 'success', tryNumber: 2 });
  });

  it('(b) a crashed worker without retries left: the try fails with a clear error and the run fails', async () => {
    const d = dag('crash2', {}, ({ task }) => { task('a', () => 1).before(task('b', () => 2)); });
    const { rt } = await makeRuntime([d], { tickMs: MIN });
    const run = await rt.trigger('crash2');
    const m = await loseMessage(rt, 'a');
    await claimAndCrash(rt, m, 1, 3 * MIN);
    expect(await rt.runToCompletion('crash2', run.runId)).toBe('done');
    const a = (await rt.ports.store.getTask(m))!;
    expect(a.state).toBe('failed');
    expect(a.error).toMatch(/lease expired/);
    expect((await rt.ports.store.getTask({ ...m, taskId: 'b' }))!.state).toBe('upstream_failed');
    expect((await rt.ports.store.getRun('crash2', run.runId))!.state).toBe('failed');
  });

  it('(c) a crash after the success write but before fast follow: advanceRun queues the downstream', async () => {
    const d = dag('nofollow', {}, ({ task }) => {
      const a = task('a', () => 1);
      a.before(task('b', async (ctx) => (await ctx.xcom.pull<number>('a')) + 1));
      a.before(task('c', () => 3));
    });
    const { rt } = await makeRuntime([d], { tickMs: MIN });
    const sent = sendsWithTime(rt);
    const run = await rt.trigger('nofollow');
    const m = await loseMessage(rt, 'a');
    await claimAndCrash(rt, m, 1, 10 * MIN);
    await rt.ports.store.putXcom({ ...m, key: 'return_value' }, 1);
    const w = await rt.ports.store.updateTask(m, { state: 'running', tryNumber: 1, owner: 'dead-worker' }, {
      state: 'success', endedAt: rt.clock.now(), dueAt: null, leaseUntil: null,
    });
    expect(w.ok).toBe(true);
    expect(await rt.ports.store.getTask({ ...m, taskId: 'b' })).toBeUndefined();
    expect(await rt.runToCompletion('nofollow', run.runId)).toBe('done');
    const states = Object.fromEntries((await rt.ports.store.listTasks('nofollow', run.runId)).map((t) => [t.taskId, t.state]));
    expect(states).toEqual({ a: 'success', b: 'success', c: 'success' });
    expect(rt.metrics.get('RepairedFollows')).toBeGreaterThanOrEqual(2);
    expect(taskMessages(sent.map((s) => s.m), 'b')).toHaveLength(1);
    expect(await rt.ports.store.getXcom({ ...m, taskId: 'b', key: 'return_value' })).toBe(2);
    expect((await rt.ports.store.getRun('nofollow', run.runId))!.state).toBe('success');
  });

  it('(c) the same crash after a branch: the repair honours the branch choice', async () => {
    const ran: string[] = [];
    const d = dag('nofollow_br', {}, ({ task, branch }) => {
      const pick = branch('pick', () => 'x');
      pick.before(task('x', () => { ran.push('x'); }), task('y', () => { ran.push('y'); }));
    });
    const { rt } = await makeRuntime([d], { tickMs: MIN });
    const run = await rt.trigger('nofollow_br');
    const m = await loseMessage(rt, 'pick');
    await claimAndCrash(rt, m, 1, 10 * MIN);
    await rt.ports.store.putXcom({ ...m, key: 'return_value' }, ['x']);
    await rt.ports.store.updateTask(m, { state: 'running', tryNumber: 1 }, { state: 'success', endedAt: rt.clock.now(), dueAt: null });
    expect(await rt.runToCompletion('nofollow_br', run.runId)).toBe('done');
    const states = Object.fromEntries((await rt.ports.store.listTasks('nofollow_br', run.runId)).map((t) => [t.taskId, t.state]));
    expect(states).toEqual({ pick: 'success', x: 'success', y: 'skipped' });
    expect(ran).toEqual(['x']);
  });

  it('(c) a crash after recording the upstream but before deciding: the downstream is decided by reconcile', async () => {
    const d = dag('nodecide', {}, ({ task }) => { task('a', () => 1).before(task('b', () => 2)); });
    const { rt } = await makeRuntime([d], { tickMs: MIN });
    const run = await rt.trigger('nodecide');
    const m = await loseMessage(rt, 'a');
    await claimAndCrash(rt, m, 1, 10 * MIN);
    await rt.ports.store.updateTask(m, { state: 'running', tryNumber: 1 }, { state: 'success', endedAt: rt.clock.now(), dueAt: null });
    await rt.ports.store.recordUpstream({ ...m, taskId: 'b' }, 'a', 'success');
    expect(await rt.runToCompletion('nodecide', run.runId)).toBe('done');
    expect((await rt.ports.store.getTask({ ...m, taskId: 'b' }))!.state).toBe('success');
    expect((await rt.ports.store.getRun('nodecide', run.runId))!.state).toBe('success');
  });
});

describe('bad input never blocks other work', () => {
  it('a malformed message ends in the dead-letter queue after 5 receives while a run succeeds', async () => {
    const d = dag('good', {}, ({ task }) => { task('a', () => 1).before(task('b', () => 2)); });
    const { rt } = await makeRuntime([d]);
    rt.queue.sendRaw(['{not json', JSON.stringify({ kind: 'bogus' })]);
    const run = await rt.trigger('good');
    expect(await rt.runToCompletion('good', run.runId)).toBe('done');
    expect((await rt.ports.store.getRun('good', run.runId))!.state).toBe('success');
    // Receives are immediate for malformed messages (released with no delay): by the end both are dead.
    await rt.runUntil(async () => rt.queue.size === 0);
    expect(rt.queue.deadLetters).toEqual(['{not json', { kind: 'bogus' }]);
    expect(rt.queue.size).toBe(0);
  });

  it('a message for an unknown run or an unknown task is dropped at once, not retried', async () => {
    const d = dag('known', {}, ({ task }) => { task('a', () => 1); });
    const { rt } = await makeRuntime([d]);
    const run = await rt.trigger('known');
    await rt.queue.send([
      { kind: 'task', dagId: 'known', runId: 'no-such-run', taskId: 'a', tryNumber: 1 },
      { kind: 'task', dagId: 'known', runId: run.runId, taskId: 'no_such_task', tryNumber: 1 },
      { kind: 'fire', dagId: 'known', runId: run.runId, taskId: 'no_such_task', tryNumber: 1, reason: 'retry' },
      { kind: 'schedule', dagId: 'no_such_dag', tickAt: 0 },
    ]);
    expect(await rt.runToCompletion('known', run.runId)).toBe('done');
    await rt.runUntil(async () => rt.queue.size === 0);
    expect(rt.queue.size).toBe(0);
    expect(rt.queue.deadLetters).toEqual([]);
    expect((await rt.ports.store.getRun('known', run.runId))!.state).toBe('success');
    const warnings = (rt.ports.log as unknown as { lines: { level: string; msg: string }[] }).lines
      .filter((l) => l.level !== 'info').map((l) => l.msg);
    // Handled concurrently: in either order.
    expect(warnings.sort()).toEqual(['message for an unknown run dropped', 'message for an unknown task dropped']);
  });
});
