/**
 * The serialized form of the authoring surface of issue 23 §2 (docs/adr/0025): params
 * with a JSON Schema. Re-exported by model.ts.
 */

/**
 * A JSON Schema (draft 2020-12) for one param, as Airflow's `Param(**schema)`: `type`,
 * `enum`, `minimum`/`maximum`, `pattern`, `title`, `description` and the rest of the
 * vocabulary.
 */
export type ParamSchema = Record<string, unknown>;

/** Airflow's `LatestOnlyOperator`: a branch that follows its direct downstreams only in the latest scheduled run (rules/latest-only.ts). */
export interface LatestOnlySpec {
  type: 'latest_only';
}

/**
 * Airflow's `TriggerDagRunOperator` (flow/trigger-dag-run.ts): creates a run of another DAG
 * of the bundle and, with `waitForCompletion`, waits (deferred) for its end.
 */
export interface TriggerDagRunSpec {
  type: 'trigger_dag_run';
  /** The DAG to trigger: one of the bundle's (checked at build). */
  dagId: string;
  /** The run's conf; string leaves are templates (`{{ ds }}`), rendered in the try. */
  conf?: Record<string, unknown>;
  /** The run id (a template); default `manual__<the try's time, ISO>`, as Airflow's. */
  runId?: string;
  /** Clear an existing run with the same id instead of failing (Airflow's reset_dag_run). */
  resetDagRun?: boolean;
  /** Defer until the run is in one of `allowedStates` or `failedStates`. */
  waitForCompletion?: boolean;
  /** Run states that end the wait with success (default `['success']`). */
  allowedStates?: string[];
  /** Run states that end the wait with failure (default `['failed']`). */
  failedStates?: string[];
}

/** A task whose work the engine does itself: no code in the bundle. */
export type BuiltinSpec = LatestOnlySpec | TriggerDagRunSpec;

/** The try that waits for a triggered run (DagRun.waiter): the run's end wakes it. */
export interface RunWaiter {
  dagId: string;
  runId: string;
  taskId: string;
  tryNumber: number;
}
