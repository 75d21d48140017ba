/**
 * `latestOnly` (Airflow 3's LatestOnlyOperator, providers/standard operators/latest_only.py):
 * a branch, run by the engine itself, that follows every direct downstream only when the
 * run is the latest scheduled one, and skips them otherwise.
 *
 * - A manual run always follows (Airflow 3 checks `run_type == MANUAL`).
 * - Otherwise the run is the latest while `now` is in (its interval's start, the end of the
 *   interval of the run the schedule creates next]: for a zero-length run at tick T that is
 *   (T, next tick]; for a run covering (A, B], (A, C] where C is the tick after B.
 * - No next run (no schedule, `@once`) follows, as Airflow's "Last scheduled execution".
 *   As Airflow, the DAG's endDate does not bound the next run here.
 */
import type { DagRun, DagSpec, TaskSpec } from '../model/types.js';
import { nextTick } from './timetable.js';

/**
 * Whether a latestOnly task of `run` follows its downstream tasks at `now`.
 *
 * @example
 * isLatestRun(spec, run, clock.now()); // true in the window (start, next interval end]
 */
export function isLatestRun(spec: Pick<DagSpec, 'schedule' | 'startDate'>, run: Pick<DagRun, 'runType' | 'dataIntervalStart' | 'dataIntervalEnd'>, now: number): boolean {
  if (run.runType === 'manual') return true;
  const anchor = spec.startDate === undefined ? 0 : Date.parse(spec.startDate);
  // The run created after this one is dated at the next tick; its interval ends there.
  const nextEnd = nextTick(spec.schedule, run.dataIntervalEnd, anchor);
  if (nextEnd === undefined) return true;
  return run.dataIntervalStart < now && now <= nextEnd;
}

/**
 * The body the worker runs for an engine operator task: what the branch chooses.
 *
 * @example
 * runBody(p, rc, t, ti, builtinBody(rc.spec, t, rc.run, p.clock.now()));
 */
export function builtinBody(spec: DagSpec, t: TaskSpec, run: DagRun, now: number): () => string[] {
  return () => (isLatestRun(spec, run, now) ? [...t.downstream] : []);
}
