/**
 * The cost preview of a backfill: the cost model (rules/cost-model.ts) applied to the runs
 * it would start, plus Lambda duration from the DAG's recent tries when the store holds
 * them (a deployed stack's or a dev's store; a fresh local store has none).
 */
import type { DagSpec, TaskInstance } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { isRunTerminal, isTerminal } from '../model/states.js';
import { DEFAULT_WORKER_MEMORY_MB, estimateBackfillCost, type CostEstimate } from '../rules/cost-model.js';

/** Finished runs whose tries the duration estimate reads. */
const SAMPLE_RUNS = 5;

export interface BackfillCost extends CostEstimate {
  tasksPerRun: number;
  /** Where the duration part came from: finished runs read and tries measured (absent: no history). */
  durationFrom?: { runs: number; tries: number; memoryMb: number };
}

/** A try that ran in a worker: batched and time sensors wait in the poker, not in a Lambda of their own. */
function ranInWorker(spec: DagSpec, ti: TaskInstance): boolean {
  const t = spec.tasks.find((x) => x.taskId === ti.taskId.split('#')[0]);
  if (!t || (t.sensor && t.sensor.mode !== 'reschedule')) return false;
  return isTerminal(ti.state) && ti.tryNumber > 0 && ti.startedAt !== undefined && ti.endedAt !== undefined && ti.endedAt >= ti.startedAt;
}

/**
 * @example
 * const cost = await backfillCost(p, dag.spec, 31); // cost.usd, cost.requests, cost.tasks
 */
export async function backfillCost(p: Ports, spec: DagSpec, runs: number, memoryMb = DEFAULT_WORKER_MEMORY_MB): Promise<BackfillCost> {
  const tasksPerRun = spec.tasks.length;
  const recent = (await p.store.listRuns(spec.dagId, { limit: 4 * SAMPLE_RUNS })).filter((r) => isRunTerminal(r.state)).slice(0, SAMPLE_RUNS);
  let seconds = 0;
  let tries = 0;
  for (const run of recent) {
    const done = (await p.store.listTasks(run.dagId, run.runId)).filter((ti) => ranInWorker(spec, ti));
    tries += done.length;
    seconds += done.reduce((s, ti) => s + (ti.endedAt! - ti.startedAt!) / 1000, 0);
  }
  const gbSecondsPerRun = tries > 0 ? (seconds / recent.length) * (memoryMb / 1024) : undefined;
  const estimate = estimateBackfillCost({ runs, tasksPerRun, gbSecondsPerRun });
  return { ...estimate, tasksPerRun, ...(tries > 0 ? { durationFrom: { runs: recent.length, tries, memoryMb } } : {}) };
}
