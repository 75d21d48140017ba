/**
 * Airflow's `prev_data_interval_start_success`, `prev_data_interval_end_success`,
 * `prev_start_date_success` and `prev_end_date_success`: the DAG's latest successful run
 * whose logical date is before this run's (Airflow's `get_previous_successful_dagrun`).
 *
 * The runs table has no index by logical date, and a task's path must not list runs, so
 * the run that succeeds writes itself as its DAG's latest success (a conditional write that
 * only moves forward, model/prev-success.ts), and a template that names these variables
 * reads that one item and checks the run it names. When that run is not before this one
 * (a backfill of earlier dates, a rerun of an old run) or is no longer a success, the
 * DAG's run history is read instead: rare, and paid only by templates that use them.
 */
import type { DagRun } from '../model/types.js';
import type { RunSuccessMark } from '../model/prev-success.js';
import type { Ports } from '../model/ports.js';
import { pythonDate } from '../rules/date-math.js';

/** The template variables this file fills, `null` when there is no previous success (Airflow's None). */
export interface PrevSuccessVars {
  prev_data_interval_start_success: string | null;
  prev_data_interval_end_success: string | null;
  prev_start_date_success: string | null;
  prev_end_date_success: string | null;
}

/** Whether a template (or any value holding templates) names one of these variables. */
export function mentionsPrevSuccess(values: unknown): boolean {
  const text = typeof values === 'string' ? values : JSON.stringify(values ?? null);
  return /\{\{[^}]*\bprev_(data_interval_(start|end)|start_date|end_date)_success\b/.test(text);
}

/**
 * Records a run that just became a success as its DAG's latest success (the writer that
 * won the run's transition calls it). A failure is logged: the readers fall back to history.
 *
 * @example
 * await noteRunSuccess(p, rc.run); // nothing unless rc.run.state is 'success'
 */
export async function noteRunSuccess(p: Ports, run: DagRun): Promise<void> {
  if (run.state !== 'success') return;
  try {
    await p.store.putLastSuccess(run.dagId, {
      runId: run.runId, logicalDate: run.logicalDate, dataIntervalStart: run.dataIntervalStart, dataIntervalEnd: run.dataIntervalEnd,
      ...(run.startedAt !== undefined ? { startedAt: run.startedAt } : {}), ...(run.endedAt !== undefined ? { endedAt: run.endedAt } : {}),
    });
  } catch (err) {
    p.log.warn('could not record the run as its DAG\'s latest success; templates will read the history', { dagId: run.dagId, runId: run.runId, error: String(err) });
  }
}

/**
 * The previous successful run of `run`'s DAG, as template variables.
 *
 * @example
 * renderTemplate(t, { ...vars, ...(await prevSuccessVars(p, rc.run)) });
 */
export async function prevSuccessVars(p: Ports, run: Pick<DagRun, 'dagId' | 'logicalDate'>): Promise<PrevSuccessVars> {
  const prev = await previousSuccess(p, run);
  const at = (t: number | undefined) => (t === undefined ? null : pythonDate(t, ' '));
  return {
    prev_data_interval_start_success: at(prev?.dataIntervalStart),
    prev_data_interval_end_success: at(prev?.dataIntervalEnd),
    prev_start_date_success: at(prev?.startedAt),
    prev_end_date_success: at(prev?.endedAt),
  };
}

async function previousSuccess(p: Ports, run: Pick<DagRun, 'dagId' | 'logicalDate'>): Promise<RunSuccessMark | undefined> {
  const mark = await p.store.getLastSuccess(run.dagId);
  if (mark && mark.logicalDate < run.logicalDate) {
    const r = await p.store.getRun(run.dagId, mark.runId);
    if (r?.state === 'success' && r.logicalDate === mark.logicalDate) return r;
  }
  // No mark (no success since marks were kept), or not one this run can use.
  const history = await p.store.listRuns(run.dagId, { states: ['success'] });
  return history.find((r) => r.logicalDate < run.logicalDate);
}
