/**
 * maxActiveRuns through the DAG's slot holders (model/run-slots-store.ts, docs/adr/0020):
 * a run takes its slot before it is created running (or started from queued) and gives it
 * back after its end was written, each a single-item write. A crash in between leaves a
 * holder behind; the start that finds the DAG full reads the holders (at most
 * maxActiveRuns runs, and only then) and gives back the slots of runs that ended, and of
 * runs never created once the slot is older than any creator can live (a worker's lease).
 */
import type { DagRecord, DagRun } from '../model/types.js';
import type { Backfill } from '../model/backfill.js';
import type { Ports } from '../model/ports.js';
import type { RunSlotTake } from '../model/run-slots-store.js';
import { isRunTerminal } from '../model/states.js';
import { afterRunEnded } from './backfill-hooks.js';

/**
 * Takes a slot of `dag` for `runId`; when the DAG is full, first gives back the slots of
 * holders that ended or were never created. Returns the take, and the holders found
 * queued (each already holds a slot: the caller starts them).
 *
 * @example
 * const { take } = await takeRunSlot(p, dag, run.runId);
 * if (take === 'full') return; // waits, queued, for a run to end
 */
export async function takeRunSlot(p: Ports, dag: DagRecord, runId: string): Promise<{ take: RunSlotTake; queuedHolders: string[] }> {
  const max = dag.spec.maxActiveRuns;
  const take = await p.store.takeRunSlot(dag.dagId, runId, max, p.clock.now());
  if (take !== 'full') return { take, queuedHolders: [] };
  const holders = Object.entries((await p.store.getDag(dag.dagId))?.runSlots ?? {});
  const runs = await Promise.all(holders.map(([id]) => p.store.getRun(dag.dagId, id)));
  // A creator takes the slot, then puts its run: a slot without a run is a creator at work
  // unless it is older than the longest a worker lives.
  const orphanBefore = p.clock.now() - (p.config.defaultLeaseMs + p.config.leaseMarginMs);
  let freed = 0;
  for (const [i, run] of runs.entries()) {
    const [id, takenAt] = holders[i]!;
    if (run ? !isRunTerminal(run.state) : takenAt > orphanBefore) continue;
    await p.store.releaseRunSlot(dag.dagId, id);
    freed++;
  }
  if (freed > 0) p.log.warn('run slots given back for runs that had ended or were never created', { dagId: dag.dagId, slots: freed });
  const queuedHolders = runs.filter((r) => r?.state === 'queued' && r.runId !== runId).map((r) => r!.runId);
  return { take: freed > 0 ? await p.store.takeRunSlot(dag.dagId, runId, max, p.clock.now()) : 'full', queuedHolders };
}

/**
 * Gives back the slot a run held after its end was written: a backfill's run its
 * backfill's (then asks for the backfill's next run, flow/backfill-hooks.ts), any other
 * run its DAG's. Returns the DAG's slots still held (undefined for a backfill's run, or
 * when the DAG is gone).
 *
 * @example
 * await giveBackSlot(p, run); // after the run's end was written
 */
export async function giveBackSlot(p: Ports, run: Pick<DagRun, 'dagId' | 'runId' | 'backfillId'>): Promise<number | undefined> {
  if (run.backfillId === undefined) return p.store.releaseRunSlot(run.dagId, run.runId);
  await p.store.releaseBackfillSlot(run.backfillId, run.runId);
  await afterRunEnded(p, run);
  return undefined;
}

/**
 * Gives back the slots of a backfill's runs that ended without giving theirs back (a
 * crash between the end and the give-back) or are gone. Read only when the backfill looks
 * full or done: at most its maxActiveRuns runs. Returns how many it gave back.
 *
 * @example
 * if (b.active >= b.maxActiveRuns) await freeEndedBackfillSlots(p, b);
 */
export async function freeEndedBackfillSlots(p: Ports, b: Pick<Backfill, 'id' | 'dagId'>): Promise<number> {
  let freed = 0;
  for (const runId of await p.store.backfillSlotHolders(b.id)) {
    const run = await p.store.getRun(b.dagId, runId);
    if (run && !isRunTerminal(run.state)) continue;
    await p.store.releaseBackfillSlot(b.id, runId);
    freed++;
  }
  if (freed > 0) p.log.warn('backfill slots given back for runs that had ended', { backfillId: b.id, dagId: b.dagId, slots: freed });
  return freed;
}
