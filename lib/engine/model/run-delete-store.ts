/**
 * Deleting a finished run or task instance (Airflow's `delete_dag_run`,
 * `delete_task_instance`), as the API asks for it. Only what has finished is deleted: a
 * run that is queued or running holds run and pool slots and has work in flight, and an
 * unfinished task instance is the engine's to move; both answer false here (the API says why).
 */
import type { TaskKey, XcomKey } from './types.js';

export interface RunDeleteStore {
  /**
   * Deletes a finished run (success or failed, checked in the same conditional write),
   * then its task instances and their XComs. False when there is no finished run by that key.
   */
  deleteRun(dagId: string, runId: string): Promise<boolean>;
  /** Deletes a finished task instance (a terminal state, checked in the write) and its XComs. False when there is none. */
  deleteTask(key: TaskKey): Promise<boolean>;
  /** Deletes one XCom entry (`delete_xcom_entry`). False when there was none. */
  deleteXcom(key: XcomKey): Promise<boolean>;
}
