/**
 * Mark a run success, failed or queued (Airflow's PATCH of a DAG run `state`, the UI's
 * "mark run as"), with Airflow's meaning (api/common/mark_tasks.py):
 * - `success`: the run ends success and every task instance of it that is not success
 *   becomes success, those not reached yet included;
 * - `failed`: the run ends failed; its running (and deferred, sensing) tries fail, its other
 *   unfinished task instances, and those not reached yet, are skipped; finished ones keep
 *   their state;
 * - `queued`: a finished run goes back to queued and starts again when a slot is free (its
 *   tasks keep their states: the run then decides its state again, as Airflow's scheduler does).
 * The run moves first, in one compare-and-set on its state (with its maxActiveRuns or backfill
 * slot), so nothing more of it is scheduled; each task then moves by `transition` (the one
 * writer of task state), where a worker finishing the same try at the same moment loses
 * cleanly, as in run-timeout.ts. DAG callbacks do not fire: the operator decided.
 */
import type { RunCtx } from '../rules/dag-index.js';
import { loadRunCtx } from '../rules/dag-index.js';
import { NotFoundError } from '../model/errors.js';
import type { DagRun, TaskInstance, TaskKey } from '../model/types.js';
import { taskKeyString } from '../model/types.js';
import type { Cas, Ports } from '../model/ports.js';
import { releaseRunSlot, startQueuedRuns } from './settle.js';
import { isTerminal, type TaskState } from '../model/states.js';
import { annotate, createTask, retainUntil, transition } from '../write/transition.js';
import { wakeRunWaiter } from './trigger-dag-run-wake.js';
import { noteRunSuccess } from './prev-success.js';

export const RUN_MARK_STATES = ['queued', 'success', 'failed'] as const;
export type RunMarkState = (typeof RUN_MARK_STATES)[number];

/** Tries that are under way: a run marked failed fails them (Airflow's running states). */
const UNDER_WAY: ReadonlySet<TaskState> = new Set(['running', 'deferred', 'sensing']);

/**
 * Sets a run's state as an operator does. Returns the run as it is after the mark; a run
 * that is already in that state is returned unchanged. Throws NotFoundError for an
 * unknown run.
 *
 * @example
 * const run = await markRun(ports, 'etl', runId, 'failed');
 */
export async function markRun(p: Ports, dagId: string, runId: string, to: RunMarkState): Promise<DagRun> {
  const rc = await loadRunCtx(p, dagId, runId);
  if (!rc) throw new NotFoundError(`unknown run ${dagId}/${runId}`);
  if (rc.run.state === to) return rc.run;
  const from = rc.run.state;
  const now = p.clock.now();
  const r: Cas<DagRun> = to === 'queued'
    ? await p.store.updateRun(dagId, runId, { state: from }, { state: 'queued', endedAt: null, expiresAt: null })
    : await p.store.updateRun(dagId, runId, { state: from }, { state: to, endedAt: now, expiresAt: retainUntil(p) ?? null });
  // Someone else moved the run first (it finished, or another mark): mark what it is now.
  if (!r.ok) return r.current && r.current.state !== from ? markRun(p, dagId, runId, to) : rc.run;
  rc.run = r.item;
  await noteRunSuccess(p, rc.run); // before a queued run can start and read it
  p.log.info(`run marked ${to}`, { dagId, runId, from });
  if (to !== 'queued') await markTasks(p, rc, to);
  // A run that was running gives its slot back (its DAG's, or its backfill's: ADR 0020),
  // which starts what waited for it; a run marked queued again waits for a slot itself.
  if (from === 'running') await releaseRunSlot(p, rc);
  else if (to === 'queued') await startQueuedRuns(p, dagId);
  if (to !== 'queued') await wakeRunWaiter(p, rc.run);
  return rc.run;
}

async function markTasks(p: Ports, rc: RunCtx, to: 'success' | 'failed'): Promise<void> {
  const tis = await p.store.listTasks(rc.run.dagId, rc.run.runId);
  const seen = new Set(tis.map((t) => t.taskId));
  const target = (ti: TaskInstance): TaskState | undefined => {
    if (to === 'success') return ti.state === 'success' ? undefined : 'success';
    if (isTerminal(ti.state)) return undefined;
    return UNDER_WAY.has(ti.state) ? 'failed' : 'skipped';
  };
  const error = to === 'failed' ? 'the run was marked failed' : null;
  const move = async (ti: TaskInstance) => {
    const next = target(ti);
    if (!next) return;
    const done = await transition(p, rc, ti, next, { owner: null, error: next === 'failed' ? error : null, trigger: null, nextMethod: null, nextKwargs: null }, { mark: true });
    if (done.ok && (ti.state === 'sensing' || ti.state === 'deferred')) await p.store.deleteTrigger(taskKeyString(ti));
  };
  const unreached = async (t: RunCtx['spec']['tasks'][number]) => {
    if (to === 'failed') return void (await createTask(p, rc, t, 'skipped'));
    // Created as Airflow lists a task not reached yet (scheduled), then marked: two writes, each conditional.
    const made = await createTask(p, rc, t, 'scheduled');
    if (made.ok) await move(made.item);
  };
  await Promise.all([...tis.map(move), ...rc.spec.tasks.filter((t) => !seen.has(t.taskId)).map(unreached)]);
}

/**
 * Sets (or with null removes) an operator's note on a run: a conditional write on the run's
 * state as read, tried again if the run moved meanwhile. Throws NotFoundError for an unknown run.
 *
 * @example
 * await setRunNote(ports, 'etl', runId, 'rerun after the vendor fix');
 */
export async function setRunNote(p: Ports, dagId: string, runId: string, note: string | null): Promise<DagRun> {
  for (;;) {
    const run = await p.store.getRun(dagId, runId);
    if (!run) throw new NotFoundError(`unknown run ${dagId}/${runId}`);
    const r = await p.store.updateRun(dagId, runId, { state: run.state }, { note });
    if (r.ok) return r.item;
  }
}

/**
 * Sets (or with null removes) an operator's note on a task instance, leaving its state
 * alone: a conditional write on the state and try as read, tried again if the task moved.
 *
 * @example
 * await setTaskNote(ports, { dagId: 'etl', runId, taskId: 'load' }, 'slow vendor');
 */
export async function setTaskNote(p: Ports, key: TaskKey, note: string | null): Promise<TaskInstance | undefined> {
  for (;;) {
    const ti = await p.store.getTask(key);
    if (!ti) return undefined;
    const r = await annotate(p, ti, { note });
    if (r.ok) return r.item;
  }
}
