/**
 * Sensors on the embedded runtime (virtual clock, one reconcile pass and one poke cycle
 * per minute): timeout exactness, softFail, silent poke errors, per-sensor poke intervals, and
 * reschedule mode with exponential backoff holding no slot between pokes.
 */
import { describe, expect, it } from 'vitest';
import type { BundleSource } from '../../../lib/engine/index.js';
import { reconcile } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce, T0 } from '../../helpers/runtime.js';
import { countingSensor, lateClock, MIN } from '../../helpers/waiting.js';

function oneSensorDag(probe: ReturnType<typeof countingSensor>, opts: Record<string, unknown>, target = 'x') {
  return dag('s', {}, ({ sensor, task }) => {
    sensor('wait', { type: probe.def, pokeContext: { target } }, opts).before(task('after', () => 1));
  });
}

describe('batched sensor timeout', () => {
  it('fails at the first reconcile at or after start + timeout, not before, with the last (silent) poke error', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    probe.errors.set('x', 'disk offline');
    const made = await makeRuntime([oneSensorDag(probe, { timeout: '10m', silentFail: true })]);
    clock.set(made.clock);
    const { rt } = made;
    const run = await rt.trigger('s');
    const key = { dagId: 's', runId: run.runId, taskId: 'wait' };
    expect((await rt.ports.store.getTask(key))!.state).toBe('sensing');

    // One millisecond before the timeout a reconcile pass leaves the sensor alone.
    made.clock.advanceTo(T0 + 10 * MIN - 1);
    await rt.tick();
    expect((await rt.ports.store.getTask(key))!.state).toBe('sensing');

    made.clock.advanceTo(T0 + 10 * MIN);
    await reconcile(rt.ports);
    const ti = (await rt.ports.store.getTask(key))!;
    expect(ti.state).toBe('failed');
    expect(ti.endedAt).toBe(T0 + 10 * MIN);
    expect(ti.error).toMatch(/sensor timed out after 10m/);
    expect(ti.error).toContain('last error: disk offline');
    expect((await rt.ports.store.getTask({ ...key, taskId: 'after' }))!.state).toBe('upstream_failed');
    expect(await rt.ports.store.getTrigger('s/' + run.runId + '/wait')).toBeUndefined();
  });

  it('on the runtime the timeout lands exactly on its tick and, with silentFail, a throwing poke counts as not yet', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    probe.errors.set('x', 'HTTP 503');
    const made = await makeRuntime([oneSensorDag(probe, { timeout: '6h', pokeInterval: '5m', silentFail: true })]);
    clock.set(made.clock);
    const r = await runOnce(made.rt, 's');
    expect(r.states).toEqual({ wait: 'failed', after: 'upstream_failed' });
    expect(r.tasks.wait.endedAt).toBe(T0 + 6 * 60 * MIN);
    expect(r.tasks.wait.error).toContain('HTTP 503');
    // Pokes at 0, 5m, ..., 5h55m: 72 of them, none after the timeout.
    expect(probe.count()).toBe(72);
    expect(Math.max(...probe.times('x'))).toBe(T0 + 355 * MIN);
  });

  it('softFail ends as skipped and the downstream is skipped too', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    const made = await makeRuntime([oneSensorDag(probe, { timeout: '30m', softFail: true })]);
    clock.set(made.clock);
    const r = await runOnce(made.rt, 's');
    expect(r.states).toEqual({ wait: 'skipped', after: 'skipped' });
    expect(r.tasks.wait.endedAt).toBe(T0 + 30 * MIN);
    expect(r.run.state).toBe('success');
  });

  it('honours each sensor’s own pokeInterval', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    const d = dag('iv', {}, ({ sensor }) => {
      sensor('fast', { type: probe.def, pokeContext: { target: 'f' } }, { pokeInterval: '1m', timeout: '30m', softFail: true });
      sensor('slow', { type: probe.def, pokeContext: { target: 's' } }, { pokeInterval: '5m', timeout: '30m', softFail: true });
      sensor('late', { type: probe.def, pokeContext: { target: 'l' } }, { pokeInterval: '7m', timeout: '30m' });
    });
    const made = await makeRuntime([d]);
    clock.set(made.clock);
    // `late` turns true at 20m: its poke at 21m sees it (pokes at 0, 7, 14, 21).
    made.clock.sleep(20 * MIN).then(() => probe.truthy.add('l'));
    const r = await runOnce(made.rt, 'iv');
    const mins = (t: string) => probe.times(t).map((x) => (x - T0) / MIN);
    expect(mins('f')).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(mins('s')).toEqual([0, 5, 10, 15, 20, 25]);
    expect(mins('l')).toEqual([0, 7, 14, 21]);
    expect(r.tasks.late.state).toBe('success');
    expect(r.tasks.late.endedAt).toBe(T0 + 21 * MIN);
  });
});

describe('reschedule-mode sensor', () => {
  it('pokes on the worker, defers until the next poke, and doubles the wait with exponentialBackoff', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    const made = await makeRuntime([oneSensorDag(probe, { mode: 'reschedule', pokeInterval: '1m', exponentialBackoff: true, timeout: '1h' })]);
    clock.set(made.clock);
    made.clock.sleep(10 * MIN).then(() => probe.truthy.add('x'));
    const r = await runOnce(made.rt, 's');
    expect(r.states).toEqual({ wait: 'success', after: 'success' });
    // Waits 1, 2, 4, 8 minutes: pokes at 0, 1, 3, 7 and 15; true since 10.
    expect(probe.times('x').map((x) => (x - T0) / MIN)).toEqual([0, 1, 3, 7, 15]);
    expect(r.tasks.wait.endedAt).toBe(T0 + 15 * MIN);
    expect(r.tasks.wait.pokeCount).toBe(4);
    expect(made.rt.metrics.get('Pokes')).toBe(5);
    expect(made.rt.metrics.get('TasksDeferred')).toBe(4);
    expect(made.rt.metrics.get('TriggersFired')).toBe(4);
    // No registration: reschedule sensors never reach the poker.
    expect(made.rt.metrics.get('SensorsRegistered')).toBe(0);
  });

  it('caps the backoff at maxPokeInterval and the last wait at the timeout', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    const made = await makeRuntime([
      oneSensorDag(probe, { mode: 'reschedule', pokeInterval: '1m', exponentialBackoff: true, maxPokeInterval: '5m', timeout: '20m' }),
    ]);
    clock.set(made.clock);
    const r = await runOnce(made.rt, 's');
    // Waits 1, 2, 4, 5, 5, then 3 (cut to the timeout at 20m).
    expect(probe.times('x').map((x) => (x - T0) / MIN)).toEqual([0, 1, 3, 7, 12, 17, 20]);
    expect(r.tasks.wait.state).toBe('failed');
    expect(r.tasks.wait.endedAt).toBe(T0 + 20 * MIN);
    expect(r.tasks.wait.error).toMatch(/sensor timed out after 20m/);
  });

  it('holds no maxActiveTasks slot between pokes', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    const ran: number[] = [];
    const d = dag('slots', { maxActiveTasks: 1 }, ({ sensor, task }) => {
      sensor('wait', { type: probe.def, pokeContext: { target: 'x' } }, { mode: 'reschedule', pokeInterval: '5m', timeout: '1h' });
      task('a', () => ran.push(clock.now())).before(task('b', () => ran.push(clock.now()))).before(task('c', () => ran.push(clock.now())));
    });
    const made = await makeRuntime([d], { concurrency: 4 });
    clock.set(made.clock);
    made.clock.sleep(30 * MIN).then(() => probe.truthy.add('x'));
    const run = await made.rt.trigger('slots');
    const samples: Array<{ state: string; active: number }> = [];
    await made.rt.runUntil(async () => {
      const w = await made.rt.ports.store.getTask({ dagId: 'slots', runId: run.runId, taskId: 'wait' });
      const rr = (await made.rt.ports.store.getRun('slots', run.runId))!;
      samples.push({ state: w!.state, active: rr.activeTasks ?? 0 });
      return rr.state === 'success';
    });
    const deferredSamples = samples.filter((s) => s.state === 'deferred');
    expect(deferredSamples.length).toBeGreaterThan(0);
    expect(deferredSamples.every((s) => s.active === 0)).toBe(true);
    // The chain ran while the sensor waited, long before it succeeded at 30m.
    expect(ran).toHaveLength(3);
    expect(Math.max(...ran)).toBeLessThan(T0 + 30 * MIN);
    expect((await made.rt.ports.store.getTask({ dagId: 'slots', runId: run.runId, taskId: 'wait' }))!.endedAt).toBe(T0 + 30 * MIN);
  });

  it('keeps counting the timeout from the first poke across a retry', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    const d = oneSensorDag(probe, { mode: 'reschedule', pokeInterval: '2m', timeout: '10m', retries: 1, retryDelay: '1m' });
    const made = await makeRuntime([d]);
    clock.set(made.clock);
    // The bundle cannot be loaded once, at the second poke (2m): that try fails and is retried at 3m.
    const inner = made.rt.ports.bundles;
    let loads = 0;
    const flaky: BundleSource = {
      manifest: (v) => inner.manifest(v),
      load: async (v) => {
        if (++loads === 2) throw new Error('bundle cache corrupt');
        return inner.load(v);
      },
    };
    (made.rt.ports as { bundles: BundleSource }).bundles = flaky;
    const r = await runOnce(made.rt, 's');
    expect(r.tasks.wait.tryNumber).toBe(2);
    expect(r.tasks.wait.sensorStartedAt).toBe(T0);
    expect(r.tasks.wait.state).toBe('failed');
    // Started at 0: times out with the first poke after 10m, not 10m after the retry began.
    // The poke at 9m is followed by one at 11m, not moved to 10m (Airflow 3:
    // task-sdk/src/airflow/sdk/bases/sensor.py, BaseSensorOperator.execute checks the
    // timeout after a poke returns false, then sleeps the full poke interval).
    expect(r.tasks.wait.endedAt).toBe(T0 + 11 * MIN);
    expect(probe.times('x').map((x) => (x - T0) / MIN)).toEqual([0, 3, 5, 7, 9, 11]);
  });

  it('a target that turns true after the timeout but before the next poke still succeeds (the timeout is checked after a false poke)', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    const d = oneSensorDag(probe, { mode: 'reschedule', pokeInterval: '4m', timeout: '10m' });
    const made = await makeRuntime([d]);
    clock.set(made.clock);
    const run = await made.rt.trigger('s');
    // Pokes at 0, 4, 8 are false; the target turns true at 11m, before the poke at 12m.
    await made.rt.runUntil(async () => probe.count('x') >= 3);
    made.clock.advanceTo(T0 + 11 * MIN);
    probe.truthy.add('x');
    await made.rt.runToCompletion('s', run.runId);
    const wait = (await made.rt.ports.store.getTask({ dagId: 's', runId: run.runId, taskId: 'wait' }))!;
    expect(probe.times('x').map((x) => (x - T0) / MIN)).toEqual([0, 4, 8, 12]);
    expect(wait.state).toBe('success');
  });
});
