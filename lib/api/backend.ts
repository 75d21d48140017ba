/**
 * What the API server reads and acts on: the engine's ports (the embedded runtime's, or a
 * deployed stack's built from the user's credentials) and a task log reader.
 */
import { NotFoundError } from '../engine/index.js';
import type { DagRecord, DagRun, DagSpec, TaskSpec } from '../engine/index.js';
import type { Ports } from '../engine/index.js';
import { HttpError } from './http.js';
import type { ConnectionStore } from './routes-connections.js';
import type { DevControl } from './routes-dev.js';
import type { VariableStore } from './routes-variables.js';
import type { TaskLogReader } from './task-logs.js';

export interface ApiBackend {
  ports: Ports;
  logs: TaskLogReader;
  /** Shown in the UI's header: `local` or the stack name. */
  name: string;
  /** Where the variables endpoints read and write (routes-variables.ts); absent: none. */
  variables?: VariableStore;
  /** Where the connections endpoints read and write (routes-connections.ts); absent: none. */
  connections?: ConnectionStore;
  /** A running `airless dev`: answers `--dev` command lines (routes-dev.ts); absent elsewhere. */
  devControl?: DevControl;
}

export async function needDag(b: ApiBackend, dagId: string): Promise<DagRecord> {
  const d = await b.ports.store.getDag(dagId);
  if (!d) throw new HttpError(404, `dag_id: DAG ${JSON.stringify(dagId)} not found`);
  return d;
}

export async function needRun(b: ApiBackend, dagId: string, runId: string): Promise<{ dag: DagRecord; run: DagRun }> {
  const dag = await needDag(b, dagId);
  const run = await b.ports.store.getRun(dagId, runId);
  if (!run) throw new HttpError(404, `dag_run_id: run ${JSON.stringify(runId)} of DAG ${JSON.stringify(dagId)} not found`);
  return { dag, run };
}

export function needTask(spec: DagSpec, taskId: string): TaskSpec {
  const t = spec.tasks.find((x) => x.taskId === taskId);
  if (!t) throw new HttpError(404, `task_id: task ${JSON.stringify(taskId)} not found in DAG ${JSON.stringify(spec.dagId)}`);
  return t;
}

/** Maps engine errors raised by actions to 4xx responses. */
export async function engineCall<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof NotFoundError) throw new HttpError(404, err.message);
    // A conf that breaks a param's schema is bad input (400, as Airflow), not a conflict.
    if (err instanceof Error && err.name === 'ParamValidationError') throw new HttpError(400, err.message);
    if (err instanceof Error && err.name === 'InvalidInputError') throw new HttpError(409, err.message);
    throw err;
  }
}
