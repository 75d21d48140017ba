/**
 * dagrunTimeout as Airflow's dagrun_timeout: the run fails once it has run that long, and
 * every unfinished task instance (running, up for retry, deferred, not reached) ends
 * `skipped`; late results lose their compare-and-set. Runs on both stores, virtual clock.
 */
import { describe, expect, it } from 'vitest';
import { clearTasks } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';

const HOUR = 3_600_000;

describe('dagrunTimeout', () => {
  it('fails the run at its deadline and skips what is unfinished, whatever state it is in', async () => {
    const d = dag('to1', { dagrunTimeout: '1h' }, ({ task, sensor }) => {
      task('quick', () => 1);
      const stuck = task('stuck', () => new Promise(() => {}), { executionTimeout: '3h' });
      stuck.before(task('after_stuck', () => 1));
      task('flaky', () => { throw new Error('down'); }, { retries: 1, retryDelay: '2h' });
      sensor('wait', { type: 'time', pokeContext: { after: '5h' } });
    });
    const { rt, clock } = await makeRuntime([d]);
    const t0 = clock.now();
    const r = await runOnce(rt, 'to1');
    expect(r.run.state).toBe('failed');
    expect(r.run.timeoutAt).toBe(r.run.startedAt! + HOUR);
    expect(r.run.endedAt).toBeGreaterThanOrEqual(t0 + HOUR);
    expect(r.run.endedAt).toBeLessThanOrEqual(t0 + HOUR + 60_000);
    expect(r.states).toEqual({ quick: 'success', stuck: 'skipped', after_stuck: 'skipped', flaky: 'skipped', wait: 'skipped' });
    expect(r.tasks.stuck.error).toMatch(/run timed out/);
    // The stuck try's own timeout (3h) came after: its failure lost to the skip.
    expect(clock.now()).toBeGreaterThanOrEqual(t0 + 3 * HOUR);
    expect(r.tasks.flaky.tryNumber).toBe(1);
  });

  it('a run that finishes in time is not touched; a DAG without a timeout sets no deadline', async () => {
    const fast = dag('to2', { dagrunTimeout: '1h' }, ({ task }) => { task('a', () => 1); });
    const plain = dag('to3', {}, ({ task }) => { task('a', () => 1); });
    const { rt } = await makeRuntime([fast, plain]);
    const r = await runOnce(rt, 'to2');
    expect(r.run.state).toBe('success');
    expect(r.run.timeoutAt).toBeDefined();
    const p = await runOnce(rt, 'to3');
    expect(p.run.state).toBe('success');
    expect(p.run.timeoutAt).toBeUndefined();
  });

  it('clearing a timed-out run starts it again with a fresh deadline, which reconcile enforces', async () => {
    const d = dag('to4', { dagrunTimeout: '1h' }, ({ sensor }) => {
      sensor('wait', { type: 'time', pokeContext: { after: '5h' } });
    });
    const { rt, clock } = await makeRuntime([d]);
    const first = await runOnce(rt, 'to4');
    expect(first.run.state).toBe('failed');
    expect(first.states.wait).toBe('skipped');
    expect(await clearTasks(rt.ports, 'to4', first.run.runId, ['wait'])).toEqual(['wait']);
    const restarted = (await rt.ports.store.getRun('to4', first.run.runId))!;
    expect(restarted.state).toBe('running');
    expect(restarted.timeoutAt).toBe(clock.now() + HOUR);
    clock.advanceTo(restarted.timeoutAt! - 1);
    await rt.tick();
    expect((await rt.ports.store.getRun('to4', first.run.runId))!.state).toBe('running');
    clock.advanceTo(restarted.timeoutAt!);
    await rt.tick();
    const again = (await rt.ports.store.getRun('to4', first.run.runId))!;
    expect(again.state).toBe('failed');
    expect(again.endedAt).toBe(restarted.timeoutAt);
    expect((await rt.ports.store.getTask({ dagId: 'to4', runId: first.run.runId, taskId: 'wait' }))!.state).toBe('skipped');
  });
});
