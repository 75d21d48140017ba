/**
 * The built-in `time` sensor honours its `timeout` and `softFail` as Airflow's TimeSensor
 * (example_sensors.py: `TimeSensor(timeout=1, soft_fail=True)` an hour ahead ends skipped),
 * in batched and in reschedule mode. Both stores, virtual clock.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce, T0 } from '../../helpers/runtime.js';
import { lossyTimer } from '../../helpers/waiting.js';

const HOUR = 3_600_000;

const timeDag = (id: string, opts: Record<string, unknown>, after = '1h') =>
  dag(id, {}, ({ sensor, task }) => {
    sensor('wait', { type: 'time', pokeContext: { after } }, opts).before(task('after', () => 1));
  });

describe.each(['batched', 'reschedule'] as const)('time sensor in %s mode', (mode) => {
  it('with timeout 1s and softFail, a target an hour ahead ends skipped at the timeout', async () => {
    const { rt } = await makeRuntime([timeDag('ts_soft', { mode, timeout: '1s', softFail: true, retries: 2 })]);
    const r = await runOnce(rt, 'ts_soft');
    expect(r.states).toEqual({ wait: 'skipped', after: 'skipped' });
    expect(r.tasks.wait.endedAt).toBe(T0 + 1000);
    expect(r.tasks.wait.error).toMatch(/sensor timed out after 1s/);
    expect(r.run.state).toBe('success');
  });

  it('without softFail the timeout fails it once, with no retry (a sensor timeout is final)', async () => {
    const { rt } = await makeRuntime([timeDag('ts_fail', { mode, timeout: '10m', retries: 3 })]);
    const r = await runOnce(rt, 'ts_fail');
    expect(r.states).toEqual({ wait: 'failed', after: 'upstream_failed' });
    expect(r.tasks.wait.tryNumber).toBe(1);
    expect(r.tasks.wait.endedAt).toBe(T0 + 10 * 60_000);
    expect(r.run.state).toBe('failed');
  });

  it('a target within the timeout succeeds at the target, and the default timeout (7 days) counts too', async () => {
    const { rt } = await makeRuntime([timeDag('ts_ok', { mode, timeout: '2h', softFail: true }), timeDag('ts_week', { mode }, '8d')]);
    const ok = await runOnce(rt, 'ts_ok');
    expect(ok.states).toEqual({ wait: 'success', after: 'success' });
    expect(ok.tasks.wait.endedAt).toBe(T0 + HOUR);
    const week = await runOnce(rt, 'ts_week');
    expect(week.states.wait).toBe('failed');
    expect(week.tasks.wait.error).toMatch(/sensor timed out after 7d/);
  });
});

describe('time sensor timeout, timer lost', () => {
  it('reconcile ends it at the timeout (within the timer grace), not at the far target', async () => {
    const made = await makeRuntime([timeDag('ts_lost', { timeout: '10m', softFail: true }, '5h')]);
    const lossy = lossyTimer(made.rt.timer, 'defer-', 1, 'drop');
    made.rt.ports.timer = lossy.timer;
    const r = await runOnce(made.rt, 'ts_lost');
    expect(lossy.lost).toHaveLength(1);
    expect(r.states.wait).toBe('skipped');
    expect(r.tasks.wait.endedAt).toBeGreaterThanOrEqual(T0 + 10 * 60_000);
    expect(r.tasks.wait.endedAt).toBeLessThanOrEqual(T0 + 10 * 60_000 + DEFAULT_CONFIG.timerGraceMs);
    expect(made.rt.metrics.get('TimersRecovered')).toBe(1);
  });
});
