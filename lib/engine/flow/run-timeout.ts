/**
 * `dagrunTimeout` (Airflow's `dagrun_timeout`, enforced in SchedulerJobRunner._schedule_dag_run):
 * a run that has been running that long fails, and every unfinished task instance of it
 * (scheduled, queued, running, up for retry, deferred, sensing, or not created yet) ends
 * `skipped`, as Airflow does. No downstream is settled afterwards: nothing more of that run
 * runs. The deadline is written on the run when it starts (`timeoutAt`) and enforced by
 * reconcile's pass over running runs, with a conditional write on the run's state.
 */
import type { RunCtx } from '../rules/dag-index.js';
import type { DagRun, DagSpec } from '../model/types.js';
import type { Ports, RunPatch } from '../model/ports.js';
import { isTerminal } from '../model/states.js';
import { createTask, retainUntil, transition } from '../write/transition.js';
import { giveBackSlot } from './run-slots.js';
import { taskKeyString } from '../model/types.js';

/**
 * The deadline fields of a run starting at `now` (`timeoutAt: null` clears a deadline a
 * cleared run had under an older spec).
 *
 * @example
 * await store.updateRun(dagId, runId, { state: 'queued' }, { state: 'running', startedAt: now, ...runTimeoutPatch(spec, run, now) });
 */
export function runTimeoutPatch(spec: DagSpec, run: DagRun, now: number): Pick<RunPatch, 'timeoutAt'> {
  if (spec.dagrunTimeoutMs) return { timeoutAt: now + spec.dagrunTimeoutMs };
  return run.timeoutAt !== undefined ? { timeoutAt: null } : {};
}

/**
 * The deadline of a run created already running at `now` (runs.ts `createRun`).
 *
 * @example
 * await store.createRun({ ...run, state: 'running', startedAt: now, ...runTimeoutFields(spec, now) });
 */
export function runTimeoutFields(spec: DagSpec, now: number): Pick<DagRun, 'timeoutAt'> {
  return spec.dagrunTimeoutMs ? { timeoutAt: now + spec.dagrunTimeoutMs } : {};
}

/**
 * Fails a running run past its deadline and skips its unfinished tasks. Returns true when
 * this call timed the run out (the caller then starts queued runs).
 *
 * @example
 * if (await enforceRunTimeout(p, rc)) await startQueuedRuns(p, rc.run.dagId, { ended: true });
 */
export async function enforceRunTimeout(p: Ports, rc: RunCtx): Promise<boolean> {
  const now = p.clock.now();
  if (rc.run.state !== 'running' || rc.run.timeoutAt === undefined || now < rc.run.timeoutAt) return false;
  const r = await p.store.updateRun(
    rc.run.dagId,
    rc.run.runId,
    { state: 'running' },
    { state: 'failed', endedAt: now, expiresAt: retainUntil(p) ?? null },
  );
  if (!r.ok) return false;
  rc.run = r.item;
  // Its maxActiveRuns slot goes back after its end (flow/run-slots.ts); the caller starts queued runs.
  await giveBackSlot(p, rc.run);
  p.metrics.count('RunsFailed');
  p.log.warn('run timed out', { dagId: rc.run.dagId, runId: rc.run.runId, dagrunTimeoutMs: rc.spec.dagrunTimeoutMs });
  await skipUnfinished(p, rc);
  return true;
}

async function skipUnfinished(p: Ports, rc: RunCtx): Promise<void> {
  const tis = await p.store.listTasks(rc.run.dagId, rc.run.runId);
  const seen = new Set(tis.map((t) => t.taskId));
  const error = 'the run timed out (dagrunTimeout)';
  await Promise.all([
    ...tis.filter((ti) => !isTerminal(ti.state)).map(async (ti) => {
      // A late result of a running try loses its compare-and-set on this write.
      const done = await transition(p, rc, ti, 'skipped', { error });
      if (!done.ok) return;
      p.metrics.count('TaskSkipped');
      if (ti.state === 'sensing' || ti.state === 'deferred') await p.store.deleteTrigger(taskKeyString(ti));
    }),
    ...rc.spec.tasks.filter((t) => !seen.has(t.taskId)).map((t) => createTask(p, rc, t, 'skipped')),
  ]);
}
