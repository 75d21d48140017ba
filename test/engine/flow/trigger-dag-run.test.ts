/**
 * `triggerDagRun` (issue 23 §2; Airflow's TriggerDagRunOperator): a built-in task that
 * creates a run of another DAG (conditional create), optionally waits for its end (woken
 * by that end, a slow timer as safety net), resets an existing run on request. Both stores.
 */
import { describe, expect, it } from 'vitest';
import { markRun, TRIGGER_RUN_ID_KEY, unknownTriggerTarget, validateDagSpec } from '../../../lib/engine/index.js';
import { dag, param } from '../../../lib/sdk/index.js';
import type { TriggerDagRunOptions } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce, T0 } from '../../helpers/runtime.js';

const child = dag('child', { params: { n: param(1, { type: 'integer', minimum: 1 }), fail: false } }, ({ task }) => {
  task('work', (ctx) => {
    if (ctx.params.fail) throw new Error('asked to fail');
    return ctx.params.n * 2;
  });
});

const parent = (dagId: string, o: TriggerDagRunOptions) =>
  dag(dagId, {}, ({ task, triggerDagRun }) => {
    triggerDagRun('kick', o).before(task('after', async (ctx) => ctx.xcom.pull<string>('kick')));
  });

const iso = (ms: number) => new Date(ms).toISOString();

describe('triggerDagRun', () => {
  it('creates a manual run of the target with its conf rendered; the run id is its value and XCom trigger_run_id', async () => {
    const { rt } = await makeRuntime([child, parent('fire', { dagId: 'child', conf: { n: 3, day: '{{ ds }}' } })]);
    const r = await runOnce(rt, 'fire');
    expect(r.states).toEqual({ kick: 'success', after: 'success' });
    const runId = `manual__${iso(T0)}`;
    const triggered = (await rt.ports.store.getRun('child', runId))!;
    expect(triggered).toMatchObject({ runType: 'manual', logicalDate: T0, conf: { n: 3, day: '2026-01-01' } });
    expect(triggered.waiter).toBeUndefined();
    const key = { dagId: 'fire', runId: r.run.runId, taskId: 'kick' };
    expect(await rt.ports.store.getXcom({ ...key, key: TRIGGER_RUN_ID_KEY })).toBe(runId);
    expect(await rt.ports.store.getXcom({ ...key, taskId: 'after', key: 'return_value' })).toBe(runId);
  });

  it('waitForCompletion: the task defers and the triggered run\'s end wakes it, well before its safety-net timer', async () => {
    const { rt } = await makeRuntime([child, parent('wait_ok', { dagId: 'child', conf: { n: 4 }, waitForCompletion: true })]);
    const r = await runOnce(rt, 'wait_ok');
    expect(r.states).toEqual({ kick: 'success', after: 'success' });
    expect(r.tasks.kick.tryNumber).toBe(1);
    const triggered = (await rt.ports.store.listRuns('child', {}))[0];
    expect(triggered.state).toBe('success');
    expect(triggered.waiter).toMatchObject({ dagId: 'wait_ok', taskId: 'kick', tryNumber: 1 });
    // The 5-minute timer never fired: the run's end resumed the task.
    expect(r.run.endedAt! - T0).toBeLessThan(60_000);
  });

  it('waitForCompletion: a triggered run that fails fails the task; allowedStates can accept it', async () => {
    const { rt } = await makeRuntime([
      child,
      parent('wait_fail', { dagId: 'child', conf: { fail: true }, waitForCompletion: true }),
      parent('wait_any', { dagId: 'child', conf: { fail: true }, runId: 'any', waitForCompletion: true, allowedStates: ['success', 'failed'], failedStates: ['queued'] }),
    ]);
    const failed = await runOnce(rt, 'wait_fail');
    expect(failed.states.kick).toBe('failed');
    expect(failed.tasks.kick.error).toMatch(/the triggered run manual__\S+ of dag child ended failed \(failedStates: failed\)/);
    expect(failed.states.after).toBe('upstream_failed');
    const accepted = await runOnce(rt, 'wait_any');
    expect(accepted.states).toEqual({ kick: 'success', after: 'success' });
    expect((await rt.ports.store.getRun('child', 'any'))!.state).toBe('failed');
  });

  it('waitForCompletion: a triggered run marked failed by hand wakes the task too', async () => {
    const holder = dag('holder', {}, ({ task }) => { task('hold', (ctx) => ctx.defer({ trigger: { event: 'never' } })); });
    const { rt, clock } = await makeRuntime([holder, parent('wait_mark', { dagId: 'holder', runId: 'held', waitForCompletion: true })]);
    const run = await rt.trigger('wait_mark');
    const kickState = async () => (await rt.ports.store.getTask({ dagId: 'wait_mark', runId: run.runId, taskId: 'kick' }))?.state;
    expect(await rt.runUntil(async () => (await kickState()) === 'deferred' && (await rt.ports.store.getRun('holder', 'held'))?.state === 'running', { maxVirtualMs: 60_000 })).toBe('done');
    const markedAt = clock.now();
    await markRun(rt.ports, 'holder', 'held', 'failed');
    expect(await rt.runToCompletion('wait_mark', run.runId)).toBe('done');
    expect(await kickState()).toBe('failed');
    expect((await rt.ports.store.getRun('wait_mark', run.runId))!.endedAt! - markedAt).toBeLessThan(60_000);
  });

  it('an existing run id fails the task; resetDagRun clears that run and runs it again', async () => {
    const { rt } = await makeRuntime([
      child,
      parent('twice', { dagId: 'child', runId: 'fixed-{{ ds }}' }),
      parent('reset', { dagId: 'child', runId: 'fixed-{{ ds }}', resetDagRun: true, waitForCompletion: true }),
    ]);
    expect((await runOnce(rt, 'twice')).states.kick).toBe('success');
    await rt.runToCompletion('child', 'fixed-2026-01-01');
    const again = await runOnce(rt, 'twice', { runId: 'second' });
    expect(again.states.kick).toBe('failed');
    expect(again.tasks.kick.error).toBe('run fixed-2026-01-01 of dag child exists already (resetDagRun clears it instead)');
    expect(await rt.ports.store.listRuns('child', {})).toHaveLength(1);
    const reset = await runOnce(rt, 'reset');
    expect(reset.states).toEqual({ kick: 'success', after: 'success' });
    const work = (await rt.ports.store.listTasks('child', 'fixed-2026-01-01')).find((t) => t.taskId === 'work')!;
    expect(work.state).toBe('success');
    expect(work.tryNumber).toBe(2); // ran again after the clear
    expect(await rt.ports.store.listRuns('child', {})).toHaveLength(1);
  });

  it('a conf the target\'s params refuse fails the task at once, naming the param, and creates no run', async () => {
    const { rt } = await makeRuntime([child, parent('bad_conf', { dagId: 'child', conf: { n: 0 } })]);
    const r = await runOnce(rt, 'bad_conf');
    expect(r.states.kick).toBe('failed');
    expect(r.tasks.kick.error).toMatch(/^cannot trigger dag child: .*\bn\b/);
    expect(r.tasks.kick.tryNumber).toBe(1);
    expect(await rt.ports.store.listRuns('child', {})).toEqual([]);
  });
});

describe('triggerDagRun at build', () => {
  it('a target that is not a DAG of the bundle is refused, naming the DAG and task', () => {
    const a = parent('a', { dagId: 'nope' }).spec;
    expect(unknownTriggerTarget([child.spec, parent('b', { dagId: 'child' }).spec])).toBeUndefined();
    const bad = unknownTriggerTarget([child.spec, a]);
    expect(bad).toMatchObject({ taskId: 'kick', message: 'triggerDagRun: dag "nope" is not in the bundle (its dags: a, child)' });
    expect(bad!.dag.dagId).toBe('a');
  });

  it('bad options are refused by the spec check', () => {
    expect(() => parent('s', { dagId: 'child', allowedStates: ['done' as never] })).toThrow(/allowedStates must be a non-empty list of run states/);
    expect(() => parent('s', { dagId: 'child', allowedStates: ['failed'] })).toThrow(/state failed is in both allowedStates and failedStates/);
    expect(() => parent('s', { dagId: 'bad id' })).toThrow(/triggerDagRun: invalid dag id "bad id"/);
    const spec = structuredClone(parent('s', { dagId: 'child' }).spec);
    (spec.tasks[0].builtin as { conf?: unknown }).conf = [1];
    expect(() => validateDagSpec(spec)).toThrow(/conf must be an object/);
  });
});
