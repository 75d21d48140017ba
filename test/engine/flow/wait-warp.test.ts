/**
 * Time warp: a daily DAG with a 6-hour sensor timeout and 10-minute deferrals runs
 * three days of virtual time in about a second, with the waiting metrics counted.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { dag, defineSensor } from '../../../lib/sdk/index.js';
import { makeRuntime, T0 } from '../../helpers/runtime.js';
import { onDynamo } from '../../helpers/stores.js';
import { lateClock, MIN } from '../../helpers/waiting.js';

const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('time warp', () => {
  it('three daily runs with a 6h sensor timeout and 10m deferrals run 54 virtual hours in about a second of wall time (ticks only when something is due)', async () => {
    const clock = lateClock();
    const pokes: Record<string, number> = { landing: 0, never: 0 };
    // The file for a day lands 5 hours into it.
    const landing = defineSensor('landing', (pc: { ds: string }) => {
      pokes.landing++;
      return clock.now() >= Date.parse(pc.ds) + 5 * HOUR;
    });
    const never = defineSensor('never', () => { pokes.never++; return false; });
    const steps: Array<{ ds: string; n: number; at: number }> = [];
    const d = dag('daily', { schedule: '@daily', startDate: '2026-01-01', maxActiveRuns: 1 }, ({ sensor, task }) => {
      const landed = sensor('landed', { type: landing, pokeContext: { ds: '{{ ds }}' } }, { pokeInterval: '10m', timeout: '6h' });
      const optional = sensor('optional', { type: never, pokeContext: { ds: '{{ ds }}' } }, { pokeInterval: '10m', timeout: '6h', softFail: true });
      const process = task('process', {
        execute: (ctx) => ctx.defer({ trigger: { after: '10m' }, resume: 'step', kwargs: { n: 1 } }),
        step: (ctx, input) => {
          steps.push({ ds: ctx.ds, n: input.kwargs.n, at: clock.now() });
          return input.kwargs.n < 3 ? ctx.defer({ trigger: { after: '10m' }, resume: 'step', kwargs: { n: input.kwargs.n + 1 } }) : input.kwargs.n;
        },
      }, { triggerRule: 'none_failed' });
      landed.before(process);
      optional.before(process);
    });
    const made = await makeRuntime([d], { schedules: true });
    clock.set(made.clock);
    const { rt } = made;

    const wall = performance.now();
    const outcome = await rt.runUntil(async () => (await rt.ports.store.listRuns('daily', { states: ['success'] })).length >= 3);
    const wallMs = performance.now() - wall;

    expect(outcome).toBe('done');
    const runs = (await rt.ports.store.listRuns('daily', { states: ['success'] })).sort((a, b) => a.logicalDate - b.logicalDate);
    expect(runs.slice(0, 3).map((r) => r.logicalDate)).toEqual([T0, T0 + DAY, T0 + 2 * DAY]);
    for (const run of runs.slice(0, 3)) {
      const tis = Object.fromEntries((await rt.ports.store.listTasks('daily', run.runId)).map((t) => [t.taskId, t]));
      expect(tis.landed.state).toBe('success');
      expect(tis.landed.endedAt).toBe(run.logicalDate + 5 * HOUR);
      expect(tis.optional.state).toBe('skipped');
      expect(tis.optional.endedAt).toBe(run.logicalDate + 6 * HOUR);
      expect(tis.process.state).toBe('success');
      expect(tis.process.endedAt).toBe(run.logicalDate + 6 * HOUR + 30 * MIN);
    }
    expect(steps.slice(0, 3).map((s) => (s.at - T0) / MIN)).toEqual([370, 380, 390]);
    expect(steps).toHaveLength(9);
    // Per run: landed poked at 0, 10, ..., 300 minutes (31), optional at 0..350 (36).
    expect(pokes).toEqual({ landing: 3 * 31, never: 3 * 36 });
    const m = rt.metrics;
    expect(m.get('Pokes')).toBe(3 * (31 + 36));
    expect(m.get('DistinctTargetsPoked')).toBe(3 * (31 + 36));
    // Summed over poke cycles; the runtime ticks only when a poke is due (every 10
    // minutes here), so: both sensors wait through cycles 0..300, one through 310..350.
    expect(m.get('SensorsWaiting')).toBeGreaterThanOrEqual(3 * (2 * 31 + 5));
    expect(m.get('TasksDeferred')).toBe(9);
    expect(m.get('TriggersFired')).toBe(9);
    // Three days of virtual time; a loose bound on wall time to stay robust on a busy machine.
    expect(made.clock.now() - T0).toBeGreaterThan(2 * DAY + 6 * HOUR);
    // On DynamoDB Local every tick is some 80 real requests (the poker reads its 64 virtual shards).
    expect(wallMs).toBeLessThan(onDynamo ? 60_000 : 5_000);
    console.log(`[time warp] ${((made.clock.now() - T0) / HOUR).toFixed(1)} virtual hours in ${wallMs.toFixed(0)} ms of wall time`);
  });
});
