/**
 * A backfill (Airflow 3's `Backfill`, airflow-core models/backfill.py): runs of one DAG
 * over a date range, created by the engine a few at a time under the backfill's own
 * max-active-runs. The record is the backfill's whole state: its range, the date it has
 * reached (`cursor`), how many of its runs run now (`active`, moved only together with a
 * run write) and its counts. docs/adr/0019-backfill.md.
 */
import { InvalidInputError } from './errors.js';
import type { ScheduleSpec } from './types.js';

/** Airflow's ReprocessBehavior: what a backfill does with a date that already has a finished run. */
export const REPROCESS_BEHAVIORS = ['none', 'failed', 'completed'] as const;
export type ReprocessBehavior = (typeof REPROCESS_BEHAVIORS)[number];

/** What a backfill did with one date. */
export type BackfillOutcome = 'created' | 'reprocessed' | 'skipped';

export interface Backfill {
  /** A whole number from 1, as Airflow's backfill ids. */
  id: number;
  dagId: string;
  /** The range asked for, inclusive (epoch ms). */
  fromDate: number;
  toDate: number;
  reprocess: ReprocessBehavior;
  maxActiveRuns: number;
  /** Newest date first (Airflow's `run_backwards`). */
  reverse: boolean;
  conf: Record<string, unknown>;
  /** A reprocessed run runs on the DAG's current bundle, not the one it pinned (Airflow's `run_on_latest_version`). */
  runOnLatestVersion: boolean;
  /** The DAG's timetable when the backfill was made: its dates do not move if a new bundle changes the schedule. */
  schedule: NonNullable<ScheduleSpec>;
  createDataIntervals?: boolean;
  /** Grid origin of a rate schedule (the DAG's startDate), 0 otherwise. */
  anchor: number;
  /** Creation time: only dates whose data interval ended before it are backfilled (as Airflow). */
  createdAt: number;
  updatedAt: number;
  /** Dates in the range. */
  total: number;
  /** The last date handled (created, reprocessed or skipped); absent before the first. */
  cursor?: number;
  handled: number;
  created: number;
  reprocessed: number;
  skipped: number;
  /** Runs of this backfill in `running` now. */
  active: number;
  /** No new run starts while paused; running ones go on (Airflow's `is_paused`). */
  paused: boolean;
  /** Set when every date is handled and no run of it runs, or when cancelled. */
  completedAt?: number;
  cancelled?: boolean;
  /** A reprocessed run whose tasks are being cleared, and since when (crash recovery). */
  clearing?: string;
  clearingAt?: number;
}

/** Fields of a backfill that change after creation; `null` removes one. */
export type BackfillPatch = {
  [K in 'paused' | 'completedAt' | 'cancelled' | 'clearing' | 'clearingAt' | 'updatedAt']?: Backfill[K] | null;
};

/**
 * One step of a backfill's cursor, written in one atomic write with the run it creates or
 * reprocesses (if any): the cursor must still be `from` (undefined: no date handled yet),
 * the backfill must be open and not paused, and a step that starts a run takes one of the
 * backfill's slots (refused at `maxActiveRuns`).
 */
export interface BackfillStep {
  from: number | undefined;
  to: number;
  outcome: BackfillOutcome;
  now: number;
  /** A reprocessed run: marks its tasks as being cleared (set only when nothing is being cleared). */
  clearing?: string;
}

/** Why a step was refused: the backfill moved on (or paused, or completed), its slots are full, or the run's write failed. */
export type StepResult =
  | { ok: true; item: Backfill }
  | { ok: false; reason: 'backfill' | 'slots' | 'run'; current?: Backfill };


/** The DAG has an open backfill already (Airflow's AlreadyRunningBackfill: one per DAG). */
export class BackfillConflictError extends InvalidInputError {}
