/**
 * The latest successful run of a DAG, kept so that a task's template can name the previous
 * successful run (Airflow's `prev_data_interval_start_success` and kin) with one item read:
 * the runs table has no index by logical date and state (ADR 0025).
 */

/** What a template needs of a successful run. */
export interface RunSuccessMark {
  runId: string;
  logicalDate: number;
  dataIntervalStart: number;
  dataIntervalEnd: number;
  startedAt?: number;
  endedAt?: number;
}

export interface PrevSuccessStore {
  /**
   * Keeps `mark` as the DAG's latest success when it has no mark yet or its mark's logical
   * date is not later (the same run succeeding again refreshes its times) (a conditional write: racing successes keep the latest logical date).
   * True when it wrote.
   */
  putLastSuccess(dagId: string, mark: RunSuccessMark): Promise<boolean>;
  getLastSuccess(dagId: string): Promise<RunSuccessMark | undefined>;
}
