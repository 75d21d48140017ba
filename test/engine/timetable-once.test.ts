/**
 * `schedule: '@once'` (issue 23 §2; Airflow's OnceTimetable): one scheduled run, at the
 * DAG's startDate or as soon as it is registered, and never another, whatever catchup says;
 * a registration that changes nothing does not arm it again. Runs on both stores.
 */
import { describe, expect, it } from 'vitest';
import { onceTick, reconcile, scheduleDag } from '../../lib/engine/index.js';
import { dag } from '../../lib/sdk/index.js';
import { makeRuntime, T0 } from '../helpers/runtime.js';

const HOUR = 3_600_000;
const once = (id: string, extra: Record<string, unknown> = {}) => dag(id, { schedule: '@once', ...extra }, ({ task }) => { task('t', () => 1); });

describe('onceTick', () => {
  it('is the startDate, or now without one, and nothing past the endDate', () => {
    expect(onceTick({ schedule: { kind: 'once' }, catchup: false }, T0)).toBe(T0);
    expect(onceTick({ schedule: { kind: 'once' }, startDate: '2026-02-01T00:00:00.000Z', catchup: false }, T0)).toBe(Date.parse('2026-02-01T00:00:00Z'));
    expect(onceTick({ schedule: { kind: 'once' }, startDate: '2026-02-01T00:00:00.000Z', endDate: '2026-01-15T00:00:00.000Z', catchup: false }, T0)).toBeUndefined();
    expect(onceTick({ schedule: { kind: 'rate', everyMs: HOUR }, catchup: false }, T0)).toBeUndefined();
  });
});

describe("schedule '@once'", () => {
  it('creates one scheduled run when registered without a startDate, and no other ever', async () => {
    const { rt, clock, bundles } = await makeRuntime([once('once_now', { catchup: true })]);
    expect((await rt.ports.store.getDag('once_now'))?.nextTickAt).toBe(T0);
    await reconcile(rt.ports);
    const runs = await rt.ports.store.listRuns('once_now', {});
    expect(runs.map((r) => [r.runType, r.logicalDate])).toEqual([['scheduled', T0]]);
    expect((await rt.ports.store.getDag('once_now'))?.nextTickAt).toBeUndefined();
    for (const later of [HOUR, 86_400_000, 400 * 86_400_000]) {
      clock.advanceTo(T0 + later);
      expect(await scheduleDag(rt.ports, 'once_now')).toBeUndefined();
    }
    expect(await rt.ports.store.listRuns('once_now', {})).toHaveLength(1);
    // Registering the same bundle again does not arm it again.
    await rt.register(bundles.version);
    await reconcile(rt.ports);
    expect(await rt.ports.store.listRuns('once_now', {})).toHaveLength(1);
  });

  it('waits for a startDate in the future, then runs once, dated at it', async () => {
    const start = '2026-01-03T06:00:00Z';
    const { rt, clock } = await makeRuntime([once('once_later', { startDate: start })]);
    expect(await scheduleDag(rt.ports, 'once_later')).toBe(Date.parse(start));
    expect(await rt.ports.store.listRuns('once_later', {})).toEqual([]);
    clock.advanceTo(Date.parse(start) + 5 * HOUR);
    await scheduleDag(rt.ports, 'once_later');
    await scheduleDag(rt.ports, 'once_later');
    const runs = await rt.ports.store.listRuns('once_later', {});
    expect(runs.map((r) => r.logicalDate)).toEqual([Date.parse(start)]);
    expect(await rt.runToCompletion('once_later', runs[0].runId)).toBe('done');
  });

  it('a paused @once DAG keeps its run until it is unpaused', async () => {
    const { rt, clock } = await makeRuntime([once('once_paused', { pausedOnCreation: true })]);
    clock.advanceTo(T0 + HOUR);
    await reconcile(rt.ports);
    expect(await rt.ports.store.listRuns('once_paused', {})).toEqual([]);
    await rt.ports.store.updateDag('once_paused', { paused: false });
    await reconcile(rt.ports);
    expect((await rt.ports.store.listRuns('once_paused', {})).map((r) => r.logicalDate)).toEqual([T0]);
  });
});
