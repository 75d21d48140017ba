import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../lib/engine/index.js';
import type { ScheduleSpec } from '../../../lib/engine/index.js';
import { cronToEventBridge, toEventBridgeExpression } from '../../../lib/adapters/aws/eventbridge/to-expression.js';
import {
  dataInterval,
  dueTicks,
  nextTick,
  normalizeDate,
  parseSchedule,
  prevTick,
  ticksBetween,
} from '../../../lib/engine/rules/timetable.js';

const t = (iso: string) => Date.parse(iso);
const isoList = (ticks: number[]) => ticks.map((x) => new Date(x).toISOString().replace('.000', ''));
const berlin = (expr: string): ScheduleSpec => ({ kind: 'cron', expr, timezone: 'Europe/Berlin' });

describe('parseSchedule', () => {
  it('reads cron, presets, rate and null', () => {
    expect(parseSchedule('0  2 * * *', 'Europe/Berlin')).toEqual({ kind: 'cron', expr: '0 2 * * *', timezone: 'Europe/Berlin' });
    expect(parseSchedule('@hourly', 'UTC')).toEqual({ kind: 'cron', expr: '0 * * * *', timezone: 'UTC' });
    expect(parseSchedule('@daily', 'UTC')).toMatchObject({ expr: '0 0 * * *' });
    expect(parseSchedule('@weekly', 'UTC')).toMatchObject({ expr: '0 0 * * 0' });
    expect(parseSchedule('@monthly', 'UTC')).toMatchObject({ expr: '0 0 1 * *' });
    expect(parseSchedule('@yearly', 'UTC')).toMatchObject({ expr: '0 0 1 1 *' });
    expect(parseSchedule('rate(15 minutes)', 'UTC')).toEqual({ kind: 'rate', everyMs: 900_000 });
    expect(parseSchedule('rate(1 hour)', 'UTC')).toEqual({ kind: 'rate', everyMs: 3_600_000 });
    expect(parseSchedule('rate(2 days)', 'UTC')).toEqual({ kind: 'rate', everyMs: 172_800_000 });
    expect(parseSchedule(null, 'UTC')).toBeNull();
    expect(parseSchedule(' @once ', 'UTC')).toEqual({ kind: 'once' });
  });

  it.each([
    ['61 * * * *', 'invalid cron "61 * * * *": Invalid value for minute: 61'],
    ['0 0 * * * *', 'expected 5 fields (minute hour day-of-month month day-of-week), got 6'],
    ['0 0 30 2 *', 'it never fires'],
    ['@continuous', '@continuous is not supported'],
    ['@sometimes', 'presets are @once, @hourly'],
    ['rate(0 minutes)', 'expected rate(N minutes|hours|days) with N >= 1'],
    ['rate(5 weeks)', 'expected rate(N minutes|hours|days)'],
  ])('rejects %j', (schedule, fragment) => {
    expect(() => parseSchedule(schedule, 'UTC')).toThrow(InvalidInputError);
    expect(() => parseSchedule(schedule, 'UTC')).toThrow(fragment);
  });

  it('rejects an unknown timezone, even without a schedule', () => {
    expect(() => parseSchedule('@daily', 'Mars/Olympus')).toThrow('invalid timezone "Mars/Olympus"');
    expect(() => parseSchedule(null, 'Nowhere')).toThrow(InvalidInputError);
  });
});

describe('ticks', () => {
  const daily = berlin('0 2 * * *');

  it('nextTick is strictly after, prevTick is at or before', () => {
    const tick = t('2026-01-10T01:00:00Z'); // 02:00 CET
    expect(nextTick(daily, tick - 1)).toBe(tick);
    expect(nextTick(daily, tick)).toBe(t('2026-01-11T01:00:00Z'));
    expect(prevTick(daily, tick)).toBe(tick);
    expect(prevTick(daily, tick - 1)).toBe(t('2026-01-09T01:00:00Z'));
    expect(prevTick(daily, tick + 999)).toBe(tick);
  });

  it('a daily 02:00 Berlin cron across spring-forward fires once at 03:00 local', () => {
    const ticks = ticksBetween(daily, t('2026-03-26T12:00:00Z'), t('2026-03-31T12:00:00Z'), 100);
    expect(isoList(ticks)).toEqual([
      '2026-03-27T01:00:00Z',
      '2026-03-28T01:00:00Z',
      '2026-03-29T01:00:00Z', // 02:00 does not exist: 03:00 CEST
      '2026-03-30T00:00:00Z',
      '2026-03-31T00:00:00Z',
    ]);
  });

  it('a daily 02:30 Berlin cron across fall-back fires once, at the first 02:30', () => {
    const ticks = ticksBetween(berlin('30 2 * * *'), t('2026-10-23T00:00:00Z'), t('2026-10-27T12:00:00Z'), 100);
    expect(isoList(ticks)).toEqual([
      '2026-10-23T00:30:00Z',
      '2026-10-24T00:30:00Z',
      '2026-10-25T00:30:00Z',
      '2026-10-26T01:30:00Z',
      '2026-10-27T01:30:00Z',
    ]);
  });

  it('an hourly cron keeps real-time spacing: 23 ticks on the spring day, 25 on the fall day', () => {
    const hourly = berlin('0 * * * *');
    const spring = ticksBetween(hourly, t('2026-03-28T23:00:00Z') - 1, t('2026-03-29T22:00:00Z') - 1, 100);
    const fall = ticksBetween(hourly, t('2026-10-24T22:00:00Z') - 1, t('2026-10-25T23:00:00Z') - 1, 100);
    expect(spring).toHaveLength(23);
    expect(fall).toHaveLength(25);
  });

  it('a fixed list of hours also fires in the gap (not silently skipped)', () => {
    const ticks = ticksBetween(berlin('30 2,14 * * *'), t('2026-03-28T23:00:00Z'), t('2026-03-29T23:00:00Z'), 10);
    expect(isoList(ticks)).toEqual(['2026-03-29T01:00:00Z', '2026-03-29T12:30:00Z']);
  });

  it('rate ticks sit on the grid anchored at the start date', () => {
    const rate: ScheduleSpec = { kind: 'rate', everyMs: 900_000 };
    const anchor = t('2026-01-01T00:07:00Z');
    expect(nextTick(rate, anchor - 5000, anchor)).toBe(anchor);
    expect(nextTick(rate, anchor, anchor)).toBe(anchor + 900_000);
    expect(prevTick(rate, anchor + 1_000_000, anchor)).toBe(anchor + 900_000);
    expect(prevTick(rate, anchor - 1, anchor)).toBeUndefined();
    expect(ticksBetween(rate, anchor - 1, anchor + 1_800_000, 10, anchor)).toHaveLength(3);
    expect(ticksBetween(rate, anchor - 1, anchor + 1_800_000, 2, anchor)).toHaveLength(2);
  });

  // Airflow 3 (airflow-core/src/airflow/timetables/trigger.py): CronTriggerTimetable and
  // DeltaTriggerTimetable default to interval=timedelta(), a zero-length data interval at
  // the tick; DagRunInfo.logical_date (timetables/base.py) is data_interval.start.
  it('data intervals are zero-length at the tick by default, as Airflow 3’s CronTriggerTimetable', () => {
    expect(dataInterval(daily, t('2026-03-30T00:00:00Z'))).toEqual({ start: t('2026-03-30T00:00:00Z'), end: t('2026-03-30T00:00:00Z') });
    expect(dataInterval({ kind: 'rate', everyMs: 60_000 }, 600_000)).toEqual({ start: 600_000, end: 600_000 });
    expect(dataInterval(null, 42)).toEqual({ start: 42, end: 42 });
  });

  // CronDataIntervalTimetable (Airflow's create_cron_data_intervals): the run created at a
  // tick (run_after = interval end) covers (previous tick, tick] and is dated at its start.
  it('with createDataIntervals, the run at a tick covers (previous tick, tick], across DST', () => {
    expect(dataInterval(daily, t('2026-03-30T00:00:00Z'), true)).toEqual({ start: t('2026-03-29T01:00:00Z'), end: t('2026-03-30T00:00:00Z') });
    expect(dataInterval({ kind: 'rate', everyMs: 60_000 }, 600_000, true)).toEqual({ start: 540_000, end: 600_000 });
    expect(dataInterval(null, 42, true)).toEqual({ start: 42, end: 42 });
    expect(nextTick(null, 0)).toBeUndefined();
  });
});

describe('dueTicks', () => {
  const daily = berlin('0 2 * * *');
  const start = '2026-03-27T00:00:00Z';

  it('catchup creates every tick from startDate to now, across DST, with the next tick', () => {
    const r = dueTicks({ schedule: daily, startDate: start, catchup: true }, { now: t('2026-03-31T12:00:00Z') });
    expect(isoList(r.ticks)).toEqual([
      '2026-03-27T01:00:00Z',
      '2026-03-28T01:00:00Z',
      '2026-03-29T01:00:00Z',
      '2026-03-30T00:00:00Z',
      '2026-03-31T00:00:00Z',
    ]);
    expect(r.nextTickAt).toBe(t('2026-04-01T00:00:00Z'));
  });

  it('with createDataIntervals no interval starts before startDate: the first run comes a tick later', () => {
    const r = dueTicks({ schedule: daily, startDate: start, catchup: true, createDataIntervals: true }, { now: t('2026-03-31T12:00:00Z') });
    expect(isoList(r.ticks)).toEqual(['2026-03-28T01:00:00Z', '2026-03-29T01:00:00Z', '2026-03-30T00:00:00Z', '2026-03-31T00:00:00Z']);
    expect(dataInterval(daily, r.ticks[0], true).start).toBe(t('2026-03-27T01:00:00Z'));
  });

  it('catchup across fall-back counts one run per day', () => {
    const r = dueTicks(
      { schedule: berlin('30 2 * * *'), startDate: '2026-10-20T00:00:00Z', catchup: true },
      { now: t('2026-10-30T00:00:00Z') },
    );
    expect(r.ticks).toHaveLength(10);
  });

  it('a startDate that is a tick is included', () => {
    const r = dueTicks({ schedule: daily, startDate: '2026-03-27T01:00:00Z', catchup: true }, { now: t('2026-03-27T01:00:00Z') });
    expect(isoList(r.ticks)).toEqual(['2026-03-27T01:00:00Z']);
  });

  it('without catchup only the latest tick <= now is created', () => {
    const r = dueTicks({ schedule: daily, startDate: start, catchup: false }, { now: t('2026-03-31T12:00:00Z') });
    expect(isoList(r.ticks)).toEqual(['2026-03-31T00:00:00Z']);
    expect(r.nextTickAt).toBe(t('2026-04-01T00:00:00Z'));
    const missed = dueTicks(
      { schedule: daily, startDate: start, catchup: false },
      { now: t('2026-04-05T12:00:00Z'), nextTickAt: t('2026-04-01T00:00:00Z') },
    );
    expect(isoList(missed.ticks)).toEqual(['2026-04-05T00:00:00Z']);
  });

  it('continues from nextTickAt and returns nothing before it is due', () => {
    const dag = { schedule: daily, startDate: start, catchup: true };
    const r = dueTicks(dag, { now: t('2026-04-02T06:00:00Z'), nextTickAt: t('2026-04-01T00:00:00Z') });
    expect(isoList(r.ticks)).toEqual(['2026-04-01T00:00:00Z', '2026-04-02T00:00:00Z']);
    const early = dueTicks(dag, { now: t('2026-04-02T23:00:00Z'), nextTickAt: t('2026-04-03T00:00:00Z') });
    expect(early).toEqual({ ticks: [], nextTickAt: t('2026-04-03T00:00:00Z') });
  });

  it('never before startDate', () => {
    const r = dueTicks({ schedule: daily, startDate: '2026-06-01T00:00:00Z', catchup: false }, { now: t('2026-03-31T12:00:00Z') });
    expect(r.ticks).toEqual([]);
    expect(r.nextTickAt).toBe(t('2026-06-01T00:00:00Z')); // 02:00 CEST on June 1 is the start itself
  });

  it('never after endDate, and no next tick past it', () => {
    const r = dueTicks(
      { schedule: daily, startDate: start, endDate: '2026-03-29T12:00:00Z', catchup: true },
      { now: t('2026-04-10T00:00:00Z') },
    );
    expect(r.ticks).toHaveLength(3);
    expect(r.nextTickAt).toBeUndefined();
  });

  it('a limited catch-up hands back the next tick to continue from', () => {
    const dag = { schedule: daily, startDate: start, catchup: true };
    const first = dueTicks(dag, { now: t('2026-03-31T12:00:00Z'), limit: 2 });
    expect(isoList(first.ticks)).toEqual(['2026-03-27T01:00:00Z', '2026-03-28T01:00:00Z']);
    const second = dueTicks(dag, { now: t('2026-03-31T12:00:00Z'), limit: 2, nextTickAt: first.nextTickAt });
    expect(isoList(second.ticks)).toEqual(['2026-03-29T01:00:00Z', '2026-03-30T00:00:00Z']);
  });

  it('rate schedules catch up on the start-date grid', () => {
    const r = dueTicks(
      { schedule: { kind: 'rate', everyMs: 900_000 }, startDate: '2026-01-01T00:07:00Z', catchup: true },
      { now: t('2026-01-01T00:40:00Z') },
    );
    expect(isoList(r.ticks)).toEqual(['2026-01-01T00:07:00Z', '2026-01-01T00:22:00Z', '2026-01-01T00:37:00Z']);
    expect(r.nextTickAt).toBe(t('2026-01-01T00:52:00Z'));
  });

  it('without a startDate nothing in the past is due; manual DAGs have no ticks', () => {
    const r = dueTicks({ schedule: berlin('0 * * * *'), catchup: true }, { now: t('2026-01-01T10:30:00Z') });
    expect(r).toEqual({ ticks: [], nextTickAt: t('2026-01-01T11:00:00Z') });
    expect(dueTicks({ schedule: null, catchup: true }, { now: 0 })).toEqual({ ticks: [] });
  });
});

describe('toEventBridgeExpression', () => {
  it.each([
    ['0 2 * * *', '0 2 * * ? *'],
    ['*/15 9-17 * * MON-FRI', '0/15 9-17 ? * 2-6 *'],
    ['0 0 * * 0', '0 0 ? * 1 *'],
    ['0 0 * * 7', '0 0 ? * 1 *'],
    ['0 0 1 */3 *', '0 0 1 1/3 ? *'],
    ['0 0 * * 5-7', '0 0 ? * 1,6,7 *'],
    ['0 0 * * 1,3,5', '0 0 ? * 2,4,6 *'],
    ['0 0 * * */2', '0 0 ? * 1,3,5,7 *'],
    ['0 0 * * 5L', '0 0 ? * 6L *'],
    ['0 0 * * 1#2', '0 0 ? * 2#2 *'],
    ['0 0 L * *', '0 0 L * ? *'],
  ])('%s -> %s', (expr, aws) => {
    expect(cronToEventBridge(expr)).toBe(aws);
  });

  it('wraps cron and rate with the timezone', () => {
    expect(toEventBridgeExpression({ kind: 'cron', expr: '0 2 * * 1-5', timezone: 'Europe/Berlin' })).toEqual({
      expression: 'cron(0 2 ? * 2-6 *)',
      timezone: 'Europe/Berlin',
    });
    expect(toEventBridgeExpression({ kind: 'rate', everyMs: 900_000 })).toEqual({ expression: 'rate(15 minutes)' });
    expect(toEventBridgeExpression({ kind: 'rate', everyMs: 3_600_000 })).toEqual({ expression: 'rate(1 hour)' });
    expect(toEventBridgeExpression({ kind: 'rate', everyMs: 172_800_000 })).toEqual({ expression: 'rate(2 days)' });
  });

  it('refuses what EventBridge cannot express', () => {
    expect(() => cronToEventBridge('0 0 1 * 1')).toThrow('restricts both day-of-month and day-of-week');
    expect(() => toEventBridgeExpression({ kind: 'rate', everyMs: 90_000 })).toThrow('not a whole number of minutes');
  });
});

describe('normalizeDate', () => {
  it('reads offsets as given and naive dates in the DAG timezone', () => {
    expect(normalizeDate('2026-01-01T00:00:00Z', 'Europe/Berlin')).toBe('2026-01-01T00:00:00.000Z');
    expect(normalizeDate('2026-01-01T06:00:00+02:00', 'UTC')).toBe('2026-01-01T04:00:00.000Z');
    expect(normalizeDate('2026-01-01', 'Europe/Berlin')).toBe('2025-12-31T23:00:00.000Z');
    expect(normalizeDate('2026-07-01T06:30', 'Europe/Berlin')).toBe('2026-07-01T04:30:00.000Z');
    expect(normalizeDate('2026-03-29T02:30', 'Europe/Berlin')).toBe('2026-03-29T01:30:00.000Z'); // gap: moved later
    expect(normalizeDate('2026-10-25T02:30', 'Europe/Berlin')).toBe('2026-10-25T00:30:00.000Z'); // first occurrence
    expect(normalizeDate(new Date(0), 'UTC')).toBe('1970-01-01T00:00:00.000Z');
  });

  it.each(['2026-13-01', '2026-02-30', 'yesterday', '2026-01-01T25:00'])('rejects %j', (text) => {
    expect(() => normalizeDate(text, 'UTC')).toThrow(InvalidInputError);
  });
});
