/**
 * `triggerDagRun(taskId, { dagId, conf, waitForCompletion, allowedStates, failedStates,
 * resetDagRun })` on the DAG builder: Airflow's TriggerDagRunOperator, a task the engine runs
 * itself (no code in the bundle; lib/engine/flow/trigger-dag-run.ts). On the builder, as
 * `latestOnly`, because a task needs the DAG it is declared in.
 *
 * @example
 * export default dag('ingest', {}, ({ task, triggerDagRun }) => {
 *   task('load', () => 1).before(triggerDagRun('report', { dagId: 'report', conf: { day: '{{ ds }}' }, waitForCompletion: true }));
 * });
 */
import type { TriggerDagRunSpec } from '../engine/index.js';

/** The run states a triggered run can be in. */
export type TriggeredRunState = 'queued' | 'running' | 'success' | 'failed';

/** What `triggerDagRun` takes (Airflow's TriggerDagRunOperator arguments, camel-cased). */
export interface TriggerDagRunOptions {
  /** The DAG to trigger: a DAG of this bundle (checked at build). */
  dagId: string;
  /** The run's conf; string leaves are templates (`{{ ds }}`); checked against the target's params. */
  conf?: Record<string, unknown>;
  /** The run id, a template (Airflow's trigger_run_id); default `manual__<time of the try, ISO>`. */
  runId?: string;
  /** Clear an existing run with the same id and run it again, instead of failing. */
  resetDagRun?: boolean;
  /** Wait (deferred, holding no worker) until the run is in allowedStates or failedStates. */
  waitForCompletion?: boolean;
  /** Default `['success']`. */
  allowedStates?: TriggeredRunState[];
  /** Default `['failed']`. */
  failedStates?: TriggeredRunState[];
}

/**
 * The serialized form of a triggerDagRun task (checked by validateDagSpec).
 *
 * @example
 * triggerSpec({ dagId: 'report' }); // { type: 'trigger_dag_run', dagId: 'report' }
 */
export function triggerSpec(o: TriggerDagRunOptions): TriggerDagRunSpec {
  const spec: TriggerDagRunSpec = { type: 'trigger_dag_run', dagId: o?.dagId };
  for (const [k, v] of Object.entries(o ?? {})) {
    if (k !== 'dagId' && v !== undefined) (spec as unknown as Record<string, unknown>)[k] = structuredClone(v);
  }
  return spec;
}
