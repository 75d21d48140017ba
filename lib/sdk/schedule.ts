/**
 * A DAG's `schedule` option: a string (cron, preset, `@once`, `rate(...)`), null, or a
 * {@link Timetable} object, Airflow's `CronTriggerTimetable` / `CronDataIntervalTimetable`
 * written as data: the cron, its own timezone and whether runs cover the interval since
 * the previous tick.
 */
import { InvalidInputError, parseSchedule, type ScheduleSpec } from '../engine/index.js';
import type { DagOptions } from './types.js';

/**
 * A cron timetable as an object.
 *
 * - `{ cron }` is Airflow 3's default `CronTriggerTimetable`: a run at each tick, dated at it.
 * - `{ cron, createDataIntervals: true }` is `CronDataIntervalTimetable`: the run created at a
 *   tick covers (previous tick, tick] and its logical date (`ds`) is the interval's start.
 *
 * @example
 * dag('nightly', { schedule: { cron: '0 2 * * *', timezone: 'Europe/Berlin', createDataIntervals: true } }, build);
 */
export interface Timetable {
  /** A 5-field cron or a preset (`@daily`...). */
  readonly cron: string;
  /** IANA timezone of the cron (default: the DAG's `timezone`). */
  readonly timezone?: string;
  /** Runs cover the interval since the previous tick (default false). */
  readonly createDataIntervals?: boolean;
}

const TIMETABLE_KEYS = new Set(['cron', 'timezone', 'createDataIntervals']);

/**
 * The schedule and interval choice of a DAG's options.
 *
 * @example
 * scheduleOption({ schedule: { cron: '@daily', createDataIntervals: true } }, 'UTC');
 * // { schedule: { kind: 'cron', expr: '0 0 * * *', timezone: 'UTC' }, createDataIntervals: true }
 * @throws InvalidInputError on a bad schedule, a Timetable with unknown keys, or two
 *   different createDataIntervals.
 */
export function scheduleOption(o: Pick<DagOptions, 'schedule' | 'createDataIntervals'>, timezone: string): { schedule: ScheduleSpec; createDataIntervals: boolean } {
  // An asset schedule never comes here (dag.ts takes it first).
  const s = o.schedule as Timetable | string | null | undefined;
  if (s === null || s === undefined || typeof s !== 'object') {
    return { schedule: parseSchedule((s ?? null) as string | null, timezone), createDataIntervals: o.createDataIntervals ?? false };
  }
  const unknown = Object.keys(s).filter((k) => !TIMETABLE_KEYS.has(k));
  if (unknown.length) throw new InvalidInputError(`invalid schedule: a Timetable has cron, timezone and createDataIntervals, not ${unknown.join(', ')}`);
  if (typeof s.cron !== 'string') throw new InvalidInputError(`invalid schedule: a Timetable needs a cron string, got ${JSON.stringify(s.cron)}`);
  if (s.createDataIntervals !== undefined && typeof s.createDataIntervals !== 'boolean') {
    throw new InvalidInputError(`invalid schedule: createDataIntervals must be true or false, got ${JSON.stringify(s.createDataIntervals)}`);
  }
  if (s.createDataIntervals !== undefined && o.createDataIntervals !== undefined && s.createDataIntervals !== o.createDataIntervals) {
    throw new InvalidInputError('createDataIntervals is set differently on the DAG and on its Timetable: set it once');
  }
  const schedule = parseSchedule(s.cron, s.timezone ?? timezone);
  if (schedule?.kind !== 'cron') throw new InvalidInputError(`invalid schedule: a Timetable's cron must be a cron or a preset such as @daily, got "${s.cron}" (write schedule: "${s.cron}")`);
  return { schedule, createDataIntervals: s.createDataIntervals ?? o.createDataIntervals ?? false };
}
