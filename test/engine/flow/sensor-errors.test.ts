/**
 * A poke that throws, as Airflow 3 handles it (task-sdk/src/airflow/sdk/bases/sensor.py,
 * BaseSensorOperator.execute): the exception fails the try and the task's retries apply;
 * `soft_fail` does not turn it into a skip; `silent_fail` logs it and takes the poke as
 * False. Batched sensors share one poke per target, so the rule applies per waiter.
 * Runs on both stores (vitest projects memory and dynamodb).
 */
import { describe, expect, it } from 'vitest';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce, T0 } from '../../helpers/runtime.js';
import { countingSensor, lateClock, MIN } from '../../helpers/waiting.js';

const mins = (times: number[]) => times.map((x) => (x - T0) / MIN);

function sensorDag(probe: ReturnType<typeof countingSensor>, opts: Record<string, unknown>) {
  return dag('s', {}, ({ sensor, task }) => {
    sensor('wait', { type: probe.def, pokeContext: { target: 'x' } }, opts).before(task('after', () => 1));
  });
}

describe.each(['batched', 'reschedule'] as const)('a poke that throws (%s mode)', (mode) => {
  it('fails the try, and the retry pokes again and can succeed', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    probe.errors.set('x', 'HTTP 503');
    const made = await makeRuntime([sensorDag(probe, { mode, timeout: '1h', retries: 1, retryDelay: '2m' })]);
    clock.set(made.clock);
    // The target is up before the retry's first poke.
    made.clock.sleep(MIN).then(() => { probe.errors.delete('x'); probe.truthy.add('x'); });
    const r = await runOnce(made.rt, 's');
    expect(r.states).toEqual({ wait: 'success', after: 'success' });
    expect(r.tasks.wait.tryNumber).toBe(2);
    expect(mins(probe.times('x'))).toEqual([0, 2]);
    expect(made.rt.metrics.get('TaskRetried')).toBe(1);
  });

  it('fails the task once its retries are spent, softFail notwithstanding', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    probe.errors.set('x', 'HTTP 503');
    const made = await makeRuntime([sensorDag(probe, { mode, timeout: '1h', softFail: true, retries: 1, retryDelay: '2m' })]);
    clock.set(made.clock);
    const r = await runOnce(made.rt, 's');
    expect(r.states).toEqual({ wait: 'failed', after: 'upstream_failed' });
    expect(r.tasks.wait.tryNumber).toBe(2);
    expect(r.tasks.wait.error).toBe('poke failed: HTTP 503');
    expect(r.tasks.wait.endedAt).toBe(T0 + 2 * MIN);
    expect(mins(probe.times('x'))).toEqual([0, 2]);
    expect(await made.rt.ports.store.getTrigger(`s/${r.run.runId}/wait`)).toBeUndefined();
  });

  it('with silentFail counts as not yet and the sensor times out with the last error', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    probe.errors.set('x', 'HTTP 503');
    const made = await makeRuntime([sensorDag(probe, { mode, timeout: '10m', pokeInterval: '5m', silentFail: true, retries: 2 })]);
    clock.set(made.clock);
    const r = await runOnce(made.rt, 's');
    expect(r.states).toEqual({ wait: 'failed', after: 'upstream_failed' });
    // A timeout is not retried; the poke errors did not use up a try.
    expect(r.tasks.wait.tryNumber).toBe(1);
    expect(r.tasks.wait.error).toMatch(/sensor timed out after 10m; last error: HTTP 503/);
    expect(probe.count('x')).toBeGreaterThanOrEqual(2);
  });
});

describe('batched: one shared poke that throws', () => {
  it('fails the waiter without silentFail and keeps the one with it waiting, from one poke per cycle', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    probe.errors.set('x', 'connection reset');
    const d = dag('pair', {}, ({ sensor }) => {
      sensor('strict', { type: probe.def, pokeContext: { target: 'x' } }, { timeout: '1h' });
      sensor('lenient', { type: probe.def, pokeContext: { target: 'x' } }, { timeout: '1h', silentFail: true });
    });
    const made = await makeRuntime([d]);
    clock.set(made.clock);
    made.clock.sleep(5 * MIN).then(() => { probe.errors.delete('x'); probe.truthy.add('x'); });
    const r = await runOnce(made.rt, 'pair');
    expect(r.states).toEqual({ strict: 'failed', lenient: 'success' });
    expect(r.tasks.strict.error).toBe('poke failed: connection reset');
    expect(r.tasks.strict.endedAt).toBe(T0);
    expect(r.tasks.lenient.endedAt).toBe(T0 + 5 * MIN);
    // One poke per cycle for both waiters: 0, 1, ..., 5.
    expect(mins(probe.times('x'))).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
