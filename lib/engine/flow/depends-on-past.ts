/**
 * `dependsOnPast` (Airflow's PrevDagrunDep, airflow-core ti_deps/deps/prev_dagrun_dep.py):
 * a task instance whose trigger rule says run waits, `scheduled`, until the same task's
 * instance in the previous run (by logical date; with catch-up, the previous non-manual
 * run) has succeeded or been skipped. The first run proceeds, and so does the first
 * instance of a task added later (Airflow's `ignore_first_depends_on_past`, its default).
 * The waiting instance is woken by the previous one finishing (fast follow across runs,
 * {@link nextWaiting}); reconcile's pass over running runs decides it again as a safety net.
 */
import { specFor, taskSpec, type RunCtx } from '../rules/dag-index.js';
import type { DagRun, TaskInstance, TaskSpec } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import type { TaskState } from '../model/states.js';

const PASSING: ReadonlySet<TaskState> = new Set(['success', 'skipped']);

/** The runs before `run`, newest first, that its depends-on-past looks at. */
async function earlierRuns(p: Ports, rc: RunCtx): Promise<DagRun[]> {
  const runs = await p.store.listRuns(rc.run.dagId);
  return runs
    .filter((r) => r.logicalDate < rc.run.logicalDate && r.runId !== rc.run.runId && (!rc.spec.catchup || r.runType !== 'manual'))
    .sort((a, b) => b.logicalDate - a.logicalDate);
}

/**
 * True when the past lets `t` run in this run now.
 *
 * @example
 * if (t.dependsOnPast && !(await pastAllows(p, rc, t))) return; // stays scheduled; woken later
 */
export async function pastAllows(p: Ports, rc: RunCtx, t: TaskSpec): Promise<boolean> {
  if (!t.dependsOnPast) return true;
  const earlier = await earlierRuns(p, rc);
  const prev = earlier[0];
  if (!prev) return true;
  const ti = await p.store.getTask({ dagId: prev.dagId, runId: prev.runId, taskId: t.taskId });
  if (ti) return PASSING.has(ti.state);
  // No instance in the previous run: the first instance of this task proceeds; otherwise
  // the previous one has not run yet.
  for (const r of earlier.slice(1)) {
    if (await p.store.getTask({ dagId: r.dagId, runId: r.runId, taskId: t.taskId })) return false;
  }
  return true;
}

/** A dependsOnPast task ended `success` or `skipped`, which may let its next run's instance start (the caller calls {@link nextWaiting} only then). */
export function mayWakeNext(t: TaskSpec, state: TaskState): boolean {
  return t.dependsOnPast === true && PASSING.has(state);
}

/**
 * After a dependsOnPast task ended `success` or `skipped`: its instance in the next run,
 * when that one is running and waits `scheduled`, with the run to decide it in.
 */
export async function nextWaiting(
  p: Ports,
  rc: RunCtx,
  taskId: string,
  state: TaskState,
): Promise<{ rc: RunCtx; ti: TaskInstance } | undefined> {
  if (!mayWakeNext(taskSpec(rc.spec, taskId), state)) return undefined;
  const runs = await p.store.listRuns(rc.run.dagId, { states: ['running'] });
  const next = runs.filter((r) => r.logicalDate > rc.run.logicalDate).sort((a, b) => a.logicalDate - b.logicalDate)[0];
  if (!next) return undefined;
  const ti = await p.store.getTask({ dagId: next.dagId, runId: next.runId, taskId });
  if (!ti || ti.state !== 'scheduled') return undefined;
  return { rc: { run: next, spec: await specFor(p, next) }, ti };
}
