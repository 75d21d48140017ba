/**
 * `latestOnly` (issue 23 §2; Airflow 3's LatestOnlyOperator): the engine runs it as a branch
 * that follows its direct downstream tasks only in the latest scheduled run; manual runs
 * always pass. Runs on both stores.
 */
import { describe, expect, it } from 'vitest';
import { isLatestRun, scheduleDag } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce, T0 } from '../../helpers/runtime.js';

const HOUR = 3_600_000;
const hourly = { kind: 'cron' as const, expr: '0 * * * *', timezone: 'UTC' };
const run = (runType: 'manual' | 'scheduled' | 'backfill', start: number, end = start) => ({ runType, dataIntervalStart: start, dataIntervalEnd: end });

describe('isLatestRun', () => {
  it('a run at tick T is the latest while now is in (T, next tick]', () => {
    const spec = { schedule: hourly };
    expect(isLatestRun(spec, run('scheduled', T0), T0)).toBe(false);
    expect(isLatestRun(spec, run('scheduled', T0), T0 + 1)).toBe(true);
    expect(isLatestRun(spec, run('scheduled', T0), T0 + HOUR)).toBe(true);
    expect(isLatestRun(spec, run('scheduled', T0), T0 + HOUR + 1)).toBe(false);
    expect(isLatestRun(spec, run('backfill', T0), T0 + 5 * HOUR)).toBe(false);
  });

  it('a run covering (A, B] is the latest while now is in (A, C], C the tick after B', () => {
    expect(isLatestRun({ schedule: hourly }, run('scheduled', T0, T0 + HOUR), T0 + 2 * HOUR)).toBe(true);
    expect(isLatestRun({ schedule: hourly }, run('scheduled', T0, T0 + HOUR), T0 + 2 * HOUR + 1)).toBe(false);
  });

  it('manual runs, and schedules with no next run (none, @once), always pass', () => {
    expect(isLatestRun({ schedule: hourly }, run('manual', T0), T0 + 100 * HOUR)).toBe(true);
    expect(isLatestRun({ schedule: null }, run('scheduled', T0), T0 + 100 * HOUR)).toBe(true);
    expect(isLatestRun({ schedule: { kind: 'once' } }, run('scheduled', T0), T0 + 100 * HOUR)).toBe(true);
  });
});

describe('latestOnly in a DAG', () => {
  const etl = dag('latest_etl', { schedule: '@hourly', startDate: '2026-01-01', catchup: true }, ({ task, latestOnly, group }) => {
    const latest = latestOnly('latest_only');
    const g = group('g', ({ latestOnly: inner }) => { inner('gate'); });
    latest.before(task('notify', () => 'sent'));
    g.before(task('after_gate', () => 1));
  });

  it('skips its downstream in the runs caught up, runs it in the latest one, and in manual runs', async () => {
    const { rt, clock } = await makeRuntime([etl]);
    clock.advanceTo(T0 + 3 * HOUR + 30 * 60_000);
    await scheduleDag(rt.ports, 'latest_etl');
    const runs = (await rt.ports.store.listRuns('latest_etl', {})).sort((a, b) => a.logicalDate - b.logicalDate);
    expect(runs.map((r) => r.logicalDate - T0)).toEqual([0, HOUR, 2 * HOUR, 3 * HOUR]);
    const notify: string[] = [];
    for (const r of runs) {
      expect(await rt.runToCompletion('latest_etl', r.runId)).toBe('done');
      const tasks = Object.fromEntries((await rt.ports.store.listTasks('latest_etl', r.runId)).map((t) => [t.taskId, t.state]));
      expect(tasks['latest_only']).toBe('success');
      expect(tasks['g.gate']).toBe('success');
      expect(tasks['after_gate']).toBe(tasks['notify']);
      notify.push(tasks['notify']);
    }
    expect(notify).toEqual(['skipped', 'skipped', 'skipped', 'success']);
    const manual = await runOnce(rt, 'latest_etl');
    expect(manual.states).toMatchObject({ latest_only: 'success', notify: 'success', after_gate: 'success' });
  });
});
