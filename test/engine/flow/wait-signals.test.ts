/**
 * Signals (`sendSignal`): every task waiting on a key resumes with the payload; a signal
 * sent before anyone waits is kept for `signalRetentionMs`, and then it is gone.
 */
import { describe, expect, it } from 'vitest';
import { sendSignal } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import type { DagDefinition } from '../../../lib/sdk/types.js';
import { sendRunSignal } from '../../../lib/runtime/signals.js';
import { makeRuntime, T0 } from '../../helpers/runtime.js';
import { lateClock, MIN } from '../../helpers/waiting.js';

function approvalDag(seen: Array<{ taskId: string; payload: unknown; key?: string; at: number }>, clock: { now(): number }): DagDefinition {
  const waiter = (taskId: string) => ({
    execute: (ctx: any) => ctx.defer({ trigger: { event: 'approve-{{ ds }}' }, resume: 'go', kwargs: { who: taskId }, timeout: '2h' }),
    go: (_ctx: any, input: any) => {
      seen.push({ taskId: input.kwargs.who, payload: input.event.payload, key: input.event.key, at: clock.now() });
      return input.event.payload;
    },
  });
  return dag('appr', {}, ({ task }) => {
    task('a', waiter('a'));
    task('b', waiter('b'));
  });
}

async function setup(config: Record<string, number> = {}) {
  const clock = lateClock();
  const seen: Array<{ taskId: string; payload: unknown; key?: string; at: number }> = [];
  const made = await makeRuntime([approvalDag(seen, clock)], { config });
  clock.set(made.clock);
  const states = async (runId: string) =>
    Object.fromEntries((await made.rt.ports.store.listTasks('appr', runId)).map((t) => [t.taskId, t.state]));
  return { ...made, seen, states };
}

describe('signals', () => {
  it('resumes every task waiting on the key with the payload', async () => {
    const { rt, clock, seen, states } = await setup();
    const run = await rt.trigger('appr');
    // Run until both tasks wait (deferred), 5 virtual minutes in.
    await rt.runUntil(async () => clock.now() >= T0 + 5 * MIN);
    expect(await states(run.runId)).toEqual({ a: 'deferred', b: 'deferred' });
    expect(rt.metrics.get('TasksDeferred')).toBe(2);

    expect(await sendSignal(rt.ports, 'approve-other', { ok: false })).toBe(0);
    expect(await sendSignal(rt.ports, 'approve-2026-01-01', { ok: true, by: 'ops' })).toBe(2);
    expect(await rt.runToCompletion('appr', run.runId)).toBe('done');
    expect(await states(run.runId)).toEqual({ a: 'success', b: 'success' });
    expect(seen.map((s) => s.taskId).sort()).toEqual(['a', 'b']);
    for (const s of seen) {
      expect(s.payload).toEqual({ ok: true, by: 'ops' });
      expect(s.key).toBe('approve-2026-01-01');
    }
    expect(rt.metrics.get('TriggersFired')).toBe(2);
    // The event registrations are gone: a second signal resumes nobody.
    expect(await sendSignal(rt.ports, 'approve-2026-01-01', { again: true })).toBe(0);
  });

  it('keeps a signal sent before the task defers, and resumes it at once', async () => {
    const { rt, clock, seen, states } = await setup();
    expect(await sendSignal(rt.ports, 'approve-2026-01-01', 'early')).toBe(0);
    clock.advanceBy(30 * MIN);
    const run = await rt.trigger('appr', { logicalDate: T0 });
    expect(await rt.runToCompletion('appr', run.runId)).toBe('done');
    // On failure, say why (a flake seen once on DynamoDB Local under load: both tasks failed).
    const errors = (await rt.ports.store.listTasks('appr', run.runId)).map((t) => `${t.taskId}: ${t.error ?? '-'} at ${t.endedAt}`).join('; ');
    expect(await states(run.runId), errors).toEqual({ a: 'success', b: 'success' });
    expect(seen.map((s) => [s.payload, s.at])).toEqual([['early', T0 + 30 * MIN], ['early', T0 + 30 * MIN]]);
  });

  it('forgets a signal after signalRetentionMs: the waiters time out instead', async () => {
    const { rt, clock, seen, states } = await setup({ signalRetentionMs: 60 * MIN });
    await sendSignal(rt.ports, 'approve-2026-01-01', 'too early');
    clock.advanceBy(60 * MIN);
    const run = await rt.trigger('appr', { logicalDate: T0 });
    expect(await rt.runToCompletion('appr', run.runId)).toBe('done');
    expect(seen).toEqual([]);
    expect(await states(run.runId)).toEqual({ a: 'failed', b: 'failed' });
    const a = (await rt.ports.store.getTask({ dagId: 'appr', runId: run.runId, taskId: 'a' }))!;
    expect(a.error).toContain('deferral timed out waiting for event "approve-2026-01-01"');
    expect(a.endedAt).toBe(T0 + 180 * MIN);
    expect(await rt.ports.store.getTrigger(`appr/${run.runId}/a`)).toBeUndefined();
  });

  it('a signal one millisecond before expiry still resumes', async () => {
    const { rt, clock, seen } = await setup({ signalRetentionMs: 60 * MIN });
    await sendSignal(rt.ports, 'approve-2026-01-01', 'just in time');
    clock.advanceBy(60 * MIN - 1);
    const run = await rt.trigger('appr', { logicalDate: T0 });
    expect(await rt.runToCompletion('appr', run.runId)).toBe('done');
    expect(seen.map((s) => s.payload)).toEqual(['just in time', 'just in time']);
  });
});

describe('run signals (airless run --signal, testDag signals)', () => {
  const gate = () => dag('gate', { params: { env: 'dev' } }, ({ task }) => {
    task('hold', {
      execute: (ctx: any) => ctx.defer({ trigger: { event: 'approve-{{ params.env }}-{{ ds_nodash }}' }, resume: 'go', timeout: '1h' }),
      go: (_ctx: any, input: any) => input.event.key,
    });
  });

  it('renders the key with DAG params overlaid by conf, as the task renders its own event key', async () => {
    const { rt } = await makeRuntime([gate()]);
    const spec = (await rt.ports.store.getDag('gate'))!.spec;
    const prod = await rt.trigger('gate', { conf: { env: 'prod' }, logicalDate: T0, runId: 'prod' });
    const dev = await rt.trigger('gate', { logicalDate: T0, runId: 'dev' });
    await rt.runUntil(async () => (await rt.ports.store.listTasks('gate', 'dev')).every((t) => t.state === 'deferred') &&
      (await rt.ports.store.listTasks('gate', 'prod')).every((t) => t.state === 'deferred'));
    expect(await sendRunSignal(rt.ports, prod, spec, 'approve-{{ params.env }}-{{ ds_nodash }}', true)).toBe('approve-prod-20260101');
    expect(await sendRunSignal(rt.ports, dev, spec, 'approve-{{ params.env }}-{{ ds_nodash }}', true)).toBe('approve-dev-20260101');
    expect(await rt.runToCompletion('gate', 'prod')).toBe('done');
    expect(await rt.runToCompletion('gate', 'dev')).toBe('done');
    const key = (runId: string) => rt.ports.store.getXcom({ dagId: 'gate', runId, taskId: 'hold', key: 'return_value' });
    expect(await key('prod')).toBe('approve-prod-20260101');
    expect(await key('dev')).toBe('approve-dev-20260101');
  });

  it('refuses {{ task_id }} in a run signal key with a clear error', async () => {
    const { rt } = await makeRuntime([gate()]);
    const spec = (await rt.ports.store.getDag('gate'))!.spec;
    const run = await rt.trigger('gate', { logicalDate: T0 });
    await expect(sendRunSignal(rt.ports, run, spec, 'approve-{{ task_id }}', true)).rejects.toThrow(/uses \{\{ task_id \}\}: a signal is sent for the run/);
    await expect(sendRunSignal(rt.ports, run, spec, 'approve-{{ params.nope }}', true)).rejects.toThrow(/unknown variable "params.nope"/);
  });
});
