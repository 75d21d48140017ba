/**
 * The one call the hot path makes into backfills: when a backfill's run ends, a message
 * asks a worker to advance the backfill (start its next run). A message, not a direct
 * call, because a run can end in any function (a poker, the tick) and only the worker
 * path creates runs; the tick advances every open backfill anyway, so a lost message
 * delays the next run by at most a tick.
 */
import type { DagRun } from '../model/types.js';
import type { Ports } from '../model/ports.js';

/**
 * @example
 * await afterRunEnded(p, run); // nothing for a run that is not a backfill's
 */
export async function afterRunEnded(p: Ports, run: Pick<DagRun, 'backfillId' | 'dagId' | 'runId'>): Promise<void> {
  if (run.backfillId === undefined) return;
  try {
    await p.queue.send([{ kind: 'backfill', backfillId: run.backfillId }]);
  } catch (err) {
    p.log.warn('could not ask for the next run of a backfill; the tick will start it', { dagId: run.dagId, runId: run.runId, backfillId: run.backfillId, error: String(err) });
  }
}
