/**
 * The pure decisions of a backfill: its dates (the DAG's timetable between two dates, as
 * Airflow's `_get_info_list`), what to do with a date that already has a run (Airflow's
 * `_get_dag_run_no_create_reason`), the run a date gets, and which counter a run's slot
 * moves. No clock, no store: time and runs come in as arguments.
 */
import { InvalidInputError } from '../model/errors.js';
import type { DagRun, DagSpec, RunType, ScheduleSpec } from '../model/types.js';
import { isRunTerminal } from '../model/states.js';
import { dataInterval, nextTick, prevTick } from './timetable.js';
import type { Backfill, ReprocessBehavior } from '../model/backfill.js';

/** What fixes a backfill's dates. */
export interface BackfillRange {
  schedule: NonNullable<ScheduleSpec>;
  createDataIntervals?: boolean;
  anchor: number;
  fromDate: number;
  toDate: number;
  /** Only dates whose data interval ended before this are included. */
  createdAt: number;
  reverse: boolean;
}

/** Most dates one backfill may have, with `--yes` (each is a run). */
export const MAX_BACKFILL_DATES = 100_000;
/** More dates than this need a confirmation (`--yes`). */
export const CONFIRM_ABOVE = 1_000;

/** End of the data interval of the run dated `s`: the next tick with data intervals, else `s`. */
function intervalEnd(r: BackfillRange, s: number): number {
  return r.createDataIntervals ? (nextTick(r.schedule, s, r.anchor) ?? Number.POSITIVE_INFINITY) : s;
}

/** The first date of the range in the backfill's order, or undefined when it has none. */
export function firstDate(r: BackfillRange): number | undefined {
  if (!r.reverse) {
    const s = nextTick(r.schedule, r.fromDate - 1, r.anchor);
    return s !== undefined && s <= r.toDate && intervalEnd(r, s) < r.createdAt ? s : undefined;
  }
  let s = prevTick(r.schedule, Math.min(r.toDate, r.createdAt - 1), r.anchor);
  while (s !== undefined && s >= r.fromDate && intervalEnd(r, s) >= r.createdAt) s = prevTick(r.schedule, s - 1, r.anchor);
  return s !== undefined && s >= r.fromDate ? s : undefined;
}

/**
 * The date after `cursor` in the backfill's order (newest first when reversed), or
 * undefined when the range is done; without a cursor, the first date.
 *
 * @example
 * nextDate({ schedule: { kind: 'rate', everyMs: 10 }, anchor: 0, fromDate: 5, toDate: 40, createdAt: 100, reverse: false }, 10); // 20
 */
export function nextDate(r: BackfillRange, cursor: number | undefined): number | undefined {
  if (cursor === undefined) return firstDate(r);
  if (!r.reverse) {
    const s = nextTick(r.schedule, cursor, r.anchor);
    return s !== undefined && s <= r.toDate && intervalEnd(r, s) < r.createdAt ? s : undefined;
  }
  const s = prevTick(r.schedule, cursor - 1, r.anchor);
  return s !== undefined && s >= r.fromDate ? s : undefined;
}

/**
 * The dates of a range in the backfill's order, at most `limit` (one more than a caller's
 * cap tells it the cap was passed).
 *
 * @example
 * backfillDates(range, 1001).length > 1000; // needs --yes
 */
export function backfillDates(r: BackfillRange, limit: number): number[] {
  const out: number[] = [];
  for (let s = nextDate(r, undefined); s !== undefined && out.length < limit; s = nextDate(r, s)) out.push(s);
  return out;
}

/** What fixes the dates of a backfill of `spec` asked for now. */
export function rangeOf(spec: DagSpec, req: { fromDate: number; toDate: number; reverse?: boolean }, now: number): BackfillRange {
  if (!spec.schedule) {
    throw new InvalidInputError(`dag ${spec.dagId} has no schedule (schedule: null): a backfill needs a schedule to take dates from; trigger runs with a logical date instead`);
  }
  if (!Number.isFinite(req.fromDate) || !Number.isFinite(req.toDate)) throw new InvalidInputError('from and to must be dates');
  if (req.fromDate > req.toDate) {
    throw new InvalidInputError(`from (${iso(req.fromDate)}) is after to (${iso(req.toDate)})`);
  }
  return {
    schedule: spec.schedule,
    createDataIntervals: spec.createDataIntervals,
    anchor: spec.startDate ? Date.parse(spec.startDate) : 0,
    fromDate: req.fromDate,
    toDate: req.toDate,
    createdAt: now,
    reverse: req.reverse ?? false,
  };
}

/** Refuses what Airflow refuses before a backfill exists (`_validate_backfill_params`). */
export function checkBackfillRequest(spec: DagSpec, req: { reverse?: boolean; reprocess: ReprocessBehavior; maxActiveRuns: number }): void {
  if (!Number.isInteger(req.maxActiveRuns) || req.maxActiveRuns < 1) {
    throw new InvalidInputError(`max active runs must be a whole number >= 1, got ${req.maxActiveRuns}`);
  }
  if (spec.tasks.some((t) => t.dependsOnPast)) {
    if (req.reverse) throw new InvalidInputError(`dag ${spec.dagId} has dependsOnPast tasks: a backfill of it cannot run in reverse`);
    if (req.reprocess === 'none') {
      throw new InvalidInputError(`dag ${spec.dagId} has dependsOnPast tasks: give reprocess failed or completed (as Airflow requires)`);
    }
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The id of the run a backfill creates for date `s` (Airflow's `backfill__<date>`). */
export function backfillRunId(s: number): string {
  return `backfill__${iso(s)}`;
}

/**
 * Runs that may already exist for date `s`: those Airless names after their date
 * (scheduled, backfill and manual runs with their default ids). A manual run given its
 * own id is not seen (docs/backfill.md).
 */
export function candidateRunIds(s: number): string[] {
  return (['scheduled', 'backfill', 'manual'] satisfies RunType[]).map((t) => `${t}__${iso(s)}`);
}

export type DateDecision =
  | { kind: 'create' }
  | { kind: 'reprocess'; run: DagRun }
  | { kind: 'skip'; reason: 'in flight' | 'already exists' };

/**
 * What to do with a date, given its existing runs: Airflow looks at the latest one (by
 * start date; a run never started counts as oldest). One in flight is left alone; a
 * finished one is reprocessed when the behaviour asks for it.
 *
 * @example
 * decideDate([failedRun], 'failed'); // { kind: 'reprocess', run: failedRun }
 */
export function decideDate(existing: readonly DagRun[], reprocess: ReprocessBehavior): DateDecision {
  if (existing.length === 0) return { kind: 'create' };
  const latest = [...existing].sort((a, b) => (b.startedAt ?? -Infinity) - (a.startedAt ?? -Infinity))[0];
  if (!isRunTerminal(latest.state)) return { kind: 'skip', reason: 'in flight' };
  if (reprocess === 'completed' || (reprocess === 'failed' && latest.state === 'failed')) return { kind: 'reprocess', run: latest };
  return { kind: 'skip', reason: 'already exists' };
}

/** The run a backfill starts for date `s`: dated by the timetable as the scheduled run of that date would be. */
export function backfillRun(b: Backfill, s: number, bundleVersion: string, now: number): DagRun {
  const runAfter = intervalEnd(b, s);
  const interval = b.createDataIntervals ? dataInterval(b.schedule, runAfter, true) : { start: s, end: s };
  return {
    dagId: b.dagId,
    runId: backfillRunId(s),
    state: 'running',
    runType: 'backfill',
    backfillId: b.id,
    logicalDate: interval.start,
    dataIntervalStart: interval.start,
    dataIntervalEnd: interval.end,
    conf: b.conf,
    bundleVersion,
    queuedAt: now,
    startedAt: now,
  };
}

/** True when every date is handled and no run of the backfill runs. */
export function backfillDone(b: Backfill): boolean {
  return b.handled >= b.total && b.active <= 0;
}
