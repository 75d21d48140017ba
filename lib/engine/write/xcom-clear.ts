/**
 * A new try starts with none of the XComs of the tries before it, as in Airflow 3: the
 * execution API's `ti_run` (airflow-core/src/airflow/api_fastapi/execution_api/routes/
 * task_instances.py) calls `XCom.clear` for the task instance when it starts running,
 * except when it resumes from a deferral (`next_method` set), whose XComs are kept.
 */
import type { TaskInstance } from '../model/types.js';
import type { Ports } from '../model/ports.js';

/**
 * Called by the claim (`queued → running`) with the task as written: clears the XComs a
 * failed (or cleared) earlier try left. A first try has none, so it costs nothing.
 *
 * @example
 * await clearEarlierTries(p, claimed); // try 2 of `extract`: try 1's pushes are gone
 */
export async function clearEarlierTries(p: Ports, ti: TaskInstance): Promise<void> {
  if (ti.tryNumber <= 1 || ti.nextMethod !== undefined) return;
  await p.store.clearXcoms(ti);
}
