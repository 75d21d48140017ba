/**
 * The reconcile tick: the safety net, never the hot path. Safe to run concurrently with
 * itself and with workers: every action is a compare-and-set or idempotent.
 * It re-queues queued tasks whose message was lost and fails or retries running tasks
 * whose lease expired (both found by the scan of running runs), releases due retries, times out deferrals and sensors, starts
 * queued runs, advances running runs (recovering any fast follow a crash cut short),
 * and creates the runs schedules owe.
 */
import { taskSpec, type RunCtx } from '../rules/dag-index.js';
import { advanceRun, startQueuedRuns, startTry } from './settle.js';
import type { DagRun, TaskInstance } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { timeoutSensor } from './poke.js';
import { scheduleDag } from './runs.js';
import { expireLease, requeueIfLost, reviewDeferred } from './recover.js';
import { enforceRunTimeout } from './run-timeout.js';
import { specOrEndOrphan } from './orphan-run.js';
import { tickBackfills } from './backfill.js';

export interface ReconcileReport {
  due: number;
  runsAdvanced: number;
  /** Next schedule tick per DAG, for runtimes that arm timers. */
  nextTicks: Record<string, number>;
}

async function ctxCache(p: Ports) {
  const cache = new Map<string, Promise<RunCtx | undefined>>();
  return (dagId: string, runId: string) => {
    const k = `${dagId}/${runId}`;
    let c = cache.get(k);
    if (!c) {
      // A run whose bundle is gone is ended here (its due tasks then have nothing to review).
      c = p.store.getRun(dagId, runId).then(async (run) => {
        const spec = run && (await specOrEndOrphan(p, run));
        return run && spec ? { run, spec } : undefined;
      });
      cache.set(k, c);
    }
    return c;
  };
}

/**
 * @example
 * const report = await reconcile(ports);
 */
export async function reconcile(p: Ports, opts: { limit?: number; schedules?: boolean } = {}): Promise<ReconcileReport> {
  const report: ReconcileReport = { due: 0, runsAdvanced: 0, nextTicks: {} };
  const ctxOf = await ctxCache(p);
  const now = p.clock.now();
  const due = await p.store.listDueTasks(now, opts.limit ?? 1000);
  report.due = due.length;
  await Promise.all(
    due.map(async (ti) => {
      // One task's failure (its run's bundle unreadable) is logged, never the whole tick's.
      try {
        const rc = await ctxOf(ti.dagId, ti.runId);
        if (rc) await reviewDue(p, rc, ti, report);
      } catch (err) {
        p.log.error('reconcile failed for a task', { dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, state: ti.state, error: String(err) });
      }
    }),
  );
  const active = await p.store.listActiveRuns();
  const queuedDags = new Set(active.filter((r) => r.state === 'queued').map((r) => r.dagId));
  for (const dagId of queuedDags) await startQueuedRuns(p, dagId).catch((err) => p.log.error('reconcile could not start queued runs', { dagId, error: String(err) }));
  await Promise.all(active.filter((r) => r.state === 'running').map((r) => advance(p, r, report)));
  await tickBackfills(p);
  if (opts.schedules !== false) {
    for (const dag of await p.store.listDags()) {
      // A paused, unscheduled or not yet due DAG needs no read beyond the list: an idle
      // tick reads nothing per DAG (nextTickAt only moves forward, so a stale listed one
      // can only look due, and scheduleDag then reads the DAG itself).
      if (dag.paused || !dag.spec.schedule) continue;
      if (dag.nextTickAt !== undefined && dag.nextTickAt > now) {
        report.nextTicks[dag.dagId] = dag.nextTickAt;
        continue;
      }
      const next = await scheduleDag(p, dag.dagId);
      if (next !== undefined) report.nextTicks[dag.dagId] = next;
    }
  }
  return report;
}

async function advance(p: Ports, run: DagRun, report: ReconcileReport): Promise<void> {
  try {
    const fresh = await p.store.getRun(run.dagId, run.runId);
    if (!fresh || fresh.state !== 'running') return;
    const spec = await specOrEndOrphan(p, fresh);
    if (!spec) return void (await startQueuedRuns(p, fresh.dagId, { ended: true }));
    const rc = { run: fresh, spec };
    if (await enforceRunTimeout(p, rc)) return void (await startQueuedRuns(p, rc.run.dagId, { ended: true }));
    await advanceRun(p, rc, (ti) => (ti.state === 'queued' ? requeueIfLost(p, ti) : expireLease(p, rc, ti)));
    report.runsAdvanced++;
  } catch (err) {
    p.log.error('reconcile could not advance a run', { dagId: run.dagId, runId: run.runId, error: String(err) });
  }
}

async function reviewDue(p: Ports, rc: RunCtx, ti: TaskInstance, report: ReconcileReport): Promise<void> {
  const t = taskSpec(rc.spec, ti.taskId);
  switch (ti.state) {
    // Queued and running tries carry no dueAt (advanceRun finds them); these two cases
    // only serve items written with one.
    case 'queued':
      await requeueIfLost(p, ti);
      return;
    case 'running':
      await expireLease(p, rc, ti);
      return;
    case 'up_for_retry':
      await startTry(p, rc, ti);
      return;
    case 'deferred':
      await reviewDeferred(p, rc, ti);
      return;
    case 'sensing':
      await timeoutSensor(p, rc, ti, t);
      return;
    default:
      return;
  }
}
