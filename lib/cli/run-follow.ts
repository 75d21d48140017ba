/**
 * `airless run` and asset events: by default the runs that a run's asset events trigger
 * among the DAGs of the folder run too, in the same process, and are listed with their run
 * type; `--no-follow` pauses the DAGs scheduled on assets (other than those asked for), so
 * their events are recorded and queued nowhere, as a paused DAG's are in Airflow.
 */
import type { DagRun, DagSpec, Ports } from '../engine/index.js';

/** Pauses every DAG scheduled on assets that was not asked for by name. */
export async function holdAssetConsumers(p: Ports, asked: readonly string[]): Promise<void> {
  for (const d of await p.store.listDags()) {
    if (d.spec.assetSchedule && !asked.includes(d.dagId)) await p.store.updateDag(d.dagId, { paused: true });
  }
}

/**
 * The runs of the folder's DAGs besides `known` (the store is this invocation's own), in
 * the order they were created.
 *
 * @example
 * const followed = await runsSince(rt.ports, manifest.dags, started);
 */
export async function runsSince(p: Ports, specs: readonly DagSpec[], known: readonly DagRun[]): Promise<DagRun[]> {
  const seen = new Set(known.map((r) => `${r.dagId}/${r.runId}`));
  const out: DagRun[] = [];
  for (const d of specs) for (const r of await p.store.listRuns(d.dagId)) if (!seen.has(`${r.dagId}/${r.runId}`)) out.push(r);
  return out.sort((a, b) => a.queuedAt - b.queuedAt || (a.runId < b.runId ? -1 : 1));
}
