/**
 * Schedules with Airflow 3's default trigger-timetable semantics (CronTriggerTimetable,
 * DeltaTriggerTimetable: airflow-core/src/airflow/timetables/trigger.py): a run fires at
 * each tick, its logical date is that tick and its data interval is zero-length there.
 * With `createDataIntervals` (Airflow's create_cron_data_intervals, CronDataIntervalTimetable)
 * the run created at a tick covers (previous tick, tick] and is dated at the interval's
 * start, as Airflow's `DagRunInfo.logical_date` is `data_interval.start`.
 *
 * Every function takes time as an argument (epoch ms); none reads the clock.
 *
 * DST, decided once and tested (Europe/Berlin, 2026-03-29 and 2026-10-25):
 * - A cron whose minute and hour fields have no wildcard and no step (`30 2 * * *`,
 *   `0 2,14 * * *`) is a fixed-time job. On a spring-forward day its local time may not
 *   exist: it fires once at the first valid instant after the gap (02:30 -> 03:00 local),
 *   as cron and Airflow do (EventBridge Scheduler would skip it; the engine's ticks win).
 *   On a fall-back day it fires once, at the first occurrence of the repeated time.
 * - Any other cron (`*\/30 * * * *`, `0 * * * *`) is an interval job: times in the gap do
 *   not exist and are skipped; a repeated hour fires on both occurrences, so ticks stay
 *   evenly spaced in real time.
 */
import { Cron } from 'croner';
import { InvalidInputError } from '../model/errors.js';
import type { ScheduleSpec } from '../model/types.js';

/** Presets, as in Airflow; `@once` is its own kind ({@link dueTicks}); `@continuous` is not supported. */
export const SCHEDULE_PRESETS: Readonly<Record<string, string>> = {
  '@hourly': '0 * * * *',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@weekly': '0 0 * * 0',
  '@monthly': '0 0 1 * *',
  '@quarterly': '0 0 1 */3 *',
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
};

const RATE = /^rate\(\s*(\d+)\s+(minute|minutes|hour|hours|day|days)\s*\)$/;
const RATE_UNIT_MS: Readonly<Record<string, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

const cronCache = new Map<string, Cron>();

function cronFor(expr: string, timezone: string): Cron {
  const key = `${timezone} ${expr}`;
  let c = cronCache.get(key);
  if (!c) {
    // 'no-wildcard': a list of fixed hours (`0 2,14 * * *`) behaves like a single fixed
    // hour in a DST gap, instead of silently losing the 02:00 run.
    c = new Cron(expr, { timezone, mode: '5-part', fixedTimeRule: 'no-wildcard' });
    cronCache.set(key, c);
  }
  return c;
}

/**
 * Throws InvalidInputError unless `tz` is an IANA timezone name this runtime knows.
 *
 * @example
 * assertTimezone('Europe/Berlin'); // ok
 */
const knownZones = new Set<string>();

export function assertTimezone(tz: string): void {
  // Building an Intl.DateTimeFormat costs ~0.7 ms: a thread loading 100 DAGs checks each zone once.
  if (knownZones.has(tz)) return;
  if (typeof tz !== 'string' || tz.trim() === '') {
    throw new InvalidInputError(`invalid timezone ${JSON.stringify(tz)}: expected an IANA name such as 'UTC' or 'Europe/Berlin'`);
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    knownZones.add(tz);
  } catch (cause) {
    throw new InvalidInputError(`invalid timezone "${tz}": expected an IANA name such as 'UTC' or 'Europe/Berlin'`, { cause });
  }
}

/**
 * Parses a DAG schedule: a 5-field cron, a preset (`@daily`...), `rate(N minutes|hours|days)`,
 * or `null` (manual runs only).
 *
 * @example
 * parseSchedule('0 2 * * *', 'Europe/Berlin'); // { kind: 'cron', expr: '0 2 * * *', timezone: 'Europe/Berlin' }
 * parseSchedule('@hourly', 'UTC');            // { kind: 'cron', expr: '0 * * * *', timezone: 'UTC' }
 * parseSchedule('rate(15 minutes)', 'UTC');   // { kind: 'rate', everyMs: 900000 }
 * @throws InvalidInputError on a bad cron, preset, rate or timezone.
 */
export function parseSchedule(schedule: string | null | undefined, timezone: string): ScheduleSpec {
  assertTimezone(timezone);
  if (schedule === null || schedule === undefined) return null;
  if (typeof schedule !== 'string') {
    throw new InvalidInputError(`invalid schedule ${JSON.stringify(schedule)}: expected a cron string, a preset, rate(...) or null`);
  }
  const text = schedule.trim();
  if (text === '@once') return { kind: 'once' };
  if (text.startsWith('@')) {
    const expr = SCHEDULE_PRESETS[text];
    if (!expr) {
      const hint = text === '@continuous' ? ' (@continuous is not supported: use schedule null and trigger runs)' : '';
      throw new InvalidInputError(`invalid schedule "${schedule}"${hint}: presets are @once, ${Object.keys(SCHEDULE_PRESETS).join(', ')}`);
    }
    return { kind: 'cron', expr, timezone };
  }
  if (text.startsWith('rate(')) {
    const m = RATE.exec(text);
    const n = m ? Number(m[1]) : 0;
    if (!m || n < 1) {
      throw new InvalidInputError(`invalid schedule "${schedule}": expected rate(N minutes|hours|days) with N >= 1`);
    }
    return { kind: 'rate', everyMs: n * RATE_UNIT_MS[m[2].replace(/s$/, '')] };
  }
  return { kind: 'cron', expr: parseCronExpr(text, timezone, schedule), timezone };
}

function parseCronExpr(text: string, timezone: string, original: string): string {
  const fields = text.split(/\s+/);
  if (fields.length !== 5) {
    throw new InvalidInputError(
      `invalid cron "${original}": expected 5 fields (minute hour day-of-month month day-of-week), got ${fields.length}`,
    );
  }
  const expr = fields.join(' ');
  let next: Date | null;
  try {
    next = cronFor(expr, timezone).nextRun(new Date(Date.UTC(2000, 0, 1)));
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message.replace(/^CronPattern: /, '') : String(cause);
    throw new InvalidInputError(`invalid cron "${original}": ${detail}`, { cause });
  }
  if (next === null) throw new InvalidInputError(`invalid cron "${original}": it never fires`);
  return expr;
}

/**
 * The first tick strictly after `afterMs`; for a rate, ticks lie on the grid
 * `anchorMs + k * everyMs` (k >= 0), the anchor being the DAG's startDate.
 *
 * @example
 * nextTick({ kind: 'rate', everyMs: 60_000 }, 90_000); // 120_000
 */
export function nextTick(spec: ScheduleSpec, afterMs: number, anchorMs = 0): number | undefined {
  // `@once` has no recurring ticks: dueTicks places its one run.
  if (!spec || spec.kind === 'once') return undefined;
  if (spec.kind === 'rate') {
    if (afterMs < anchorMs) return anchorMs;
    return anchorMs + (Math.floor((afterMs - anchorMs) / spec.everyMs) + 1) * spec.everyMs;
  }
  return cronFor(spec.expr, spec.timezone).nextRun(new Date(afterMs))?.getTime() ?? undefined;
}

/**
 * The last tick at or before `atOrBeforeMs` (undefined before a rate's anchor).
 *
 * @example
 * prevTick({ kind: 'cron', expr: '0 * * * *', timezone: 'UTC' }, Date.parse('2026-01-01T10:30:00Z')); // 10:00Z
 */
export function prevTick(spec: ScheduleSpec, atOrBeforeMs: number, anchorMs = 0): number | undefined {
  if (!spec || spec.kind === 'once') return undefined;
  if (spec.kind === 'rate') {
    if (atOrBeforeMs < anchorMs) return undefined;
    return anchorMs + Math.floor((atOrBeforeMs - anchorMs) / spec.everyMs) * spec.everyMs;
  }
  // croner counts a run earlier in the same second as the reference, so +1 ms makes the
  // reference itself inclusive.
  const prev = cronFor(spec.expr, spec.timezone).previousRuns(1, new Date(atOrBeforeMs + 1))[0];
  return prev ? prev.getTime() : undefined;
}

/**
 * The data interval of the run created at `tickMs`: zero-length at the tick (Airflow 3's
 * default), or with `createDataIntervals` (previous tick, tick]. The run's logical date is
 * the interval's start (Airflow's `DagRunInfo.logical_date`). A DAG without a schedule
 * gets an empty interval at the tick, as a manual run in Airflow.
 *
 * @example
 * dataInterval({ kind: 'rate', everyMs: 3_600_000 }, 7_200_000); // { start: 7_200_000, end: 7_200_000 }
 * dataInterval({ kind: 'rate', everyMs: 3_600_000 }, 7_200_000, true); // { start: 3_600_000, end: 7_200_000 }
 */
export function dataInterval(spec: ScheduleSpec, tickMs: number, createDataIntervals = false): { start: number; end: number } {
  if (!spec || !createDataIntervals || spec.kind === 'once') return { start: tickMs, end: tickMs };
  if (spec.kind === 'rate') return { start: tickMs - spec.everyMs, end: tickMs };
  return { start: prevTick(spec, tickMs - 1) ?? tickMs, end: tickMs };
}

/**
 * Ticks in `(fromExclusive, toInclusive]`, oldest first, at most `limit`.
 *
 * @example
 * ticksBetween({ kind: 'rate', everyMs: 10 }, 0, 35, 100); // [10, 20, 30]
 */
export function ticksBetween(
  spec: ScheduleSpec,
  fromExclusive: number,
  toInclusive: number,
  limit: number,
  anchorMs = 0,
): number[] {
  const out: number[] = [];
  let t = nextTick(spec, fromExclusive, anchorMs);
  while (t !== undefined && t <= toInclusive && out.length < limit) {
    out.push(t);
    t = nextTick(spec, t, anchorMs);
  }
  return out;
}

/** What {@link dueTicks} needs of a DAG. */
export interface DueTicksDag {
  schedule: ScheduleSpec;
  startDate?: string;
  endDate?: string;
  catchup: boolean;
  /** The first interval starts at the first tick at or after startDate: the first run is created a tick later. */
  createDataIntervals?: boolean;
}

/**
 * The scheduled runs to create now, and the next tick to wake up for.
 *
 * - `nextTickAt` (from the DAG record) is the oldest tick with no run yet; without it the
 *   DAG has no history: ticks count from startDate (inclusive), or from now when there is
 *   no startDate.
 * - catchup: every tick from there up to `now`, at most `limit` (default 1000); when the
 *   limit cuts the list, `nextTickAt` is the tick after the last one returned (<= now), so
 *   the caller calls again.
 * - no catchup: only the latest tick <= now (Airflow 3 creates the most recent run only).
 * - Never before startDate, never after endDate (`nextTickAt` is undefined past it).
 *
 * @example
 * const { ticks, nextTickAt } = dueTicks(
 *   { schedule: { kind: 'cron', expr: '0 2 * * *', timezone: 'UTC' }, startDate: '2026-01-01T00:00:00Z', catchup: true },
 *   { now: Date.parse('2026-01-03T12:00:00Z') },
 * ); // ticks: Jan 1 02:00Z and Jan 2 02:00Z... and Jan 3 02:00Z; nextTickAt: Jan 4 02:00Z
 */
export function dueTicks(
  dag: DueTicksDag,
  opts: { nextTickAt?: number; now: number; limit?: number },
): { ticks: number[]; nextTickAt?: number } {
  const spec = dag.schedule;
  if (!spec) return { ticks: [] };
  if (spec.kind === 'once') return onceDue(opts);
  const startDate = dag.startDate === undefined ? undefined : Date.parse(dag.startDate);
  const end = dag.endDate === undefined ? undefined : Date.parse(dag.endDate);
  const anchor = startDate ?? 0;
  // With data intervals no interval starts before startDate (Airflow's CronDataIntervalTimetable).
  const start = startDate !== undefined && dag.createDataIntervals ? (nextTick(spec, startDate - 1, anchor) ?? startDate) + 1 : startDate;
  const limit = opts.limit ?? 1000;
  let from = opts.nextTickAt !== undefined ? opts.nextTickAt - 1 : start !== undefined ? start - 1 : opts.now;
  if (start !== undefined) from = Math.max(from, start - 1);
  const upper = end === undefined ? opts.now : Math.min(opts.now, end);

  let ticks: number[] = [];
  if (dag.catchup) {
    ticks = ticksBetween(spec, from, upper, limit, anchor);
  } else {
    const latest = prevTick(spec, upper, anchor);
    if (latest !== undefined && latest > from) ticks = [latest];
  }
  const cut = dag.catchup && ticks.length === limit;
  const after = cut ? ticks[ticks.length - 1] : Math.max(from, opts.now, ticks[ticks.length - 1] ?? -Infinity);
  const next = nextTick(spec, after, anchor);
  const nextTickAt = next !== undefined && (end === undefined || next <= end) ? next : undefined;
  return nextTickAt === undefined ? { ticks } : { ticks, nextTickAt };
}

/**
 * The tick of an `@once` DAG's one run (Airflow's OnceTimetable): its startDate, or `now`
 * (when the DAG is registered) without one; undefined when that lies past its endDate.
 * Registration stores it as the DAG's `nextTickAt`; {@link dueTicks} fires it once and
 * then leaves `nextTickAt` empty, which for `@once` means done, whatever catchup says.
 *
 * @example
 * onceTick({ schedule: { kind: 'once' }, startDate: '2026-01-01T00:00:00Z', catchup: false }, now); // Jan 1 00:00Z
 */
export function onceTick(dag: DueTicksDag, now: number): number | undefined {
  if (dag.schedule?.kind !== 'once') return undefined;
  const at = dag.startDate === undefined ? now : Date.parse(dag.startDate);
  return dag.endDate !== undefined && at > Date.parse(dag.endDate) ? undefined : at;
}

/**
 * The DAG record fields that arm an `@once` DAG at registration (nothing for other schedules).
 *
 * @example
 * putDag({ ...record, ...armOnce(spec, now) });
 */
export function armOnce(dag: DueTicksDag, now: number): { nextTickAt?: number } {
  const at = onceTick(dag, now);
  return at === undefined ? {} : { nextTickAt: at };
}

function onceDue(opts: { nextTickAt?: number; now: number }): { ticks: number[]; nextTickAt?: number } {
  const at = opts.nextTickAt;
  if (at === undefined) return { ticks: [] };
  return at <= opts.now ? { ticks: [at] } : { ticks: [], nextTickAt: at };
}

/**
 * Reads a date as the SDK accepts it and returns it as a UTC ISO string. A date without an
 * offset (`'2026-01-01'`, `'2026-01-01T06:00'`) is wall-clock time in `timezone`, as in
 * Airflow; one with `Z` or `+hh:mm` is taken as is.
 *
 * @example
 * normalizeDate('2026-01-01', 'Europe/Berlin'); // '2025-12-31T23:00:00.000Z'
 * @throws InvalidInputError when the text is not an ISO-8601 date.
 */
export function normalizeDate(value: string | Date, timezone: string): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new InvalidInputError('invalid date: Invalid Date');
    return value.toISOString();
  }
  const m =
    typeof value === 'string'
      ? /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(value.trim())
      : null;
  if (!m) throw new InvalidInputError(`"${String(value)}" is not an ISO-8601 date (e.g. '2026-01-01' or '2026-01-01T00:00:00Z')`);
  const [y, mo, d, h = '0', mi = '0', s = '0', frac = '0'] = m.slice(1, 8);
  const fields = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(frac.padEnd(3, '0'))] as const;
  const check = new Date(Date.UTC(...fields));
  if (check.getUTCMonth() !== fields[1] || check.getUTCDate() !== fields[2] || fields[3] > 23 || fields[4] > 59 || fields[5] > 59) {
    throw new InvalidInputError(`"${value}" is not a valid date`);
  }
  const zone = m[8];
  if (zone) {
    const offsetMin = zone === 'Z' ? 0 : offsetMinutes(zone);
    return new Date(check.getTime() - offsetMin * 60_000).toISOString();
  }
  assertTimezone(timezone);
  return new Date(zonedWallToUtc(check.getTime(), timezone)).toISOString();
}

function offsetMinutes(zone: string): number {
  const digits = zone.slice(1).replace(':', '');
  const mins = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  return zone[0] === '-' ? -mins : mins;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Offset of `timezone` from UTC at instant `ms`, in ms (positive east of Greenwich). */
export function tzOffsetMs(ms: number, timezone: string): number {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timezone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - Math.floor(ms / 1000) * 1000;
}

/**
 * Converts wall-clock time (fields encoded as if UTC) in `timezone` to an instant. A time
 * in a spring-forward gap moves later by the gap; a repeated time takes its first occurrence.
 */
function zonedWallToUtc(wallAsUtc: number, timezone: string): number {
  const before = tzOffsetMs(wallAsUtc - 86_400_000, timezone);
  const after = tzOffsetMs(wallAsUtc + 86_400_000, timezone);
  // Try the larger offset first: for a repeated time it gives the earlier instant.
  for (const off of before >= after ? [before, after] : [after, before]) {
    const t = wallAsUtc - off;
    if (tzOffsetMs(t, timezone) === off) return t;
  }
  return wallAsUtc - Math.min(before, after);
}
