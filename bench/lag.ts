/**
 * Task lag as Airflow's scheduler benchmark defines it: for each task, its start minus
 * the moment its last upstream finished. Root tasks have no upstream and no lag.
 */
import type { DagSpec, TaskInstance } from '../lib/engine/index.js';

export interface LagStats {
  /** Tasks with at least one upstream (the ones that have a lag). */
  steps: number;
  totalMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * Lag of every non-root task of finished runs. `specs` gives each DAG's edges.
 *
 * @example
 * const s = taskLag(tis, new Map([[spec.dagId, spec]]));
 * s.p50Ms; // median step lag
 */
export function taskLag(tis: readonly TaskInstance[], specs: ReadonlyMap<string, DagSpec>): LagStats {
  const byKey = new Map<string, TaskInstance>();
  for (const ti of tis) byKey.set(`${ti.dagId}/${ti.runId}/${ti.taskId}`, ti);
  const upstreamOf = new Map<string, Map<string, string[]>>();
  for (const [dagId, spec] of specs) upstreamOf.set(dagId, new Map(spec.tasks.map((t) => [t.taskId, t.upstream])));
  const lags: number[] = [];
  for (const ti of tis) {
    const ups = upstreamOf.get(ti.dagId)?.get(ti.taskId) ?? [];
    if (ups.length === 0 || ti.startedAt === undefined) continue;
    let lastEnd = -Infinity;
    for (const u of ups) {
      const end = byKey.get(`${ti.dagId}/${ti.runId}/${u}`)?.endedAt;
      if (end === undefined) throw new Error(`task ${ti.dagId}/${ti.runId}/${u} has no endedAt`);
      lastEnd = Math.max(lastEnd, end);
    }
    lags.push(Math.max(0, ti.startedAt - lastEnd));
  }
  return summarize(lags);
}

/**
 * @example
 * summarize([1, 2, 3]).p50Ms; // 2
 */
export function summarize(values: readonly number[]): LagStats {
  const sorted = [...values].sort((a, b) => a - b);
  const pick = (q: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!);
  return {
    steps: sorted.length,
    totalMs: sorted.reduce((a, b) => a + b, 0),
    p50Ms: pick(0.5),
    p99Ms: pick(0.99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : 0,
  };
}
