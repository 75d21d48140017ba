/**
 * maxActiveRuns without transactions (part of the Store port; docs/adr/0020): the DAG's
 * record holds the runs that hold a slot, each with the time it took it, so taking and
 * giving back a slot are single-item conditional writes on it, idempotent per run (a
 * repeated take finds the run there, a repeated give-back finds it gone). A run takes its
 * slot before it is created running (or moves from queued to running), and gives it back
 * after its end was written, so a crash in between leaves a slot held by a run that is
 * queued (started later with the slot it holds), ended (given back by the next start that
 * finds the DAG full) or never created (given back once older than any creator can be).
 */

/** What a take found: the slot taken now, already held by this run, all slots held, or no such DAG. */
export type RunSlotTake = 'taken' | 'held' | 'full' | 'no_dag';

export interface RunSlotStore {
  /** Takes a slot of `dagId` for `runId` (at `now`, epoch ms) unless `max` runs hold one: one conditional write. */
  takeRunSlot(dagId: string, runId: string, max: number, now: number): Promise<RunSlotTake>;
  /** Gives a run's slot back (a no-op if it holds none); returns the slots still held, undefined when the DAG is gone. */
  releaseRunSlot(dagId: string, runId: string): Promise<number | undefined>;
}
