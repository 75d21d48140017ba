/**
 * Store operations of backfills (part of the Store port). A backfill is one item; its
 * DAG has at most one open backfill (a lock taken and released in the same atomic write
 * as the backfill's creation and completion); the tick finds open backfills in one read.
 * A run of a backfill is created or reprocessed in one atomic write with the step of the
 * backfill's cursor, which takes the run's slot (`active`, the number of runs holding one);
 * the run gives it back after its end is written, one idempotent write, as a DAG's runs
 * give back theirs (docs/adr/0020). docs/adr/0019-backfill.md.
 */
import type { DagRun } from './types.js';
import type { Backfill, BackfillPatch, BackfillStep, StepResult } from './backfill.js';

/** The Store port's `Cas<Backfill>` (ports.ts imports this file, so it is spelled out here). */
export type BackfillCas = { ok: true; item: Backfill } | { ok: false; current: Backfill | undefined; reason?: 'condition' | 'slots' };

/** The Store port's `RunPatch`: fields a run write sets, `null` removes one. */
type RunFields = { [K in keyof Omit<DagRun, 'dagId' | 'runId' | 'activeTasks'>]?: DagRun[K] | null };

/** The run a backfill step writes: a new run (conditional put) or an existing finished run reopened. */
export type StepRun =
  | { put: DagRun }
  | { reopen: { dagId: string; runId: string; expectState: DagRun['state']; patch: RunFields } };

/** What a take of a backfill's slot found: taken now, held already by the run, all held (or paused), no such backfill. */
export type BackfillSlotTake = 'taken' | 'held' | 'full' | 'gone';

export interface BackfillStore {
  /** The next backfill id: 1, 2, ... (one atomic counter). */
  nextBackfillId(): Promise<number>;
  /**
   * Stores a new backfill and makes it its DAG's open one, atomically. Fails (with the
   * open backfill as `current` when it can be read) when the DAG already has one.
   */
  createBackfill(b: Backfill): Promise<BackfillCas>;
  getBackfill(id: number): Promise<Backfill | undefined>;
  /** Every backfill of a DAG, lowest id first. */
  listBackfills(dagId: string): Promise<Backfill[]>;
  /** Ids of the open (not completed) backfills of every DAG. */
  listOpenBackfills(): Promise<number[]>;
  /**
   * Patches a backfill. `open`: only while not completed; `clearing`: only while it marks
   * that run. Fails with the backfill as it is.
   */
  updateBackfill(id: number, patch: BackfillPatch, expect?: { open?: true; clearing?: string }): Promise<BackfillCas>;
  /** Moves the cursor one date, with the run it creates or reopens, in one atomic write. */
  stepBackfill(id: number, step: BackfillStep, run?: StepRun): Promise<StepResult>;
  /**
   * Completes a backfill (sets `completedAt`, and `cancelled` when given) and releases its
   * DAG's lock, atomically. Without `cancelled` only when every date is handled and none of
   * its runs runs.
   */
  completeBackfill(id: number, now: number, cancelled?: true): Promise<BackfillCas>;
  /**
   * Takes a slot of the backfill for `runId` (a cleared run of it that waited queued)
   * unless its maxActiveRuns runs hold one or it is paused. Idempotent per run.
   */
  takeBackfillSlot(id: number, runId: string, now: number): Promise<BackfillSlotTake>;
  /** Gives the run's slot back, after its end was written (a no-op if it holds none). */
  releaseBackfillSlot(id: number, runId: string): Promise<void>;
  /** The runs holding a slot of the backfill (at most its maxActiveRuns): to give back those that ended. */
  backfillSlotHolders(id: number): Promise<string[]>;
}
