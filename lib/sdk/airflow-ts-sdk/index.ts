/**
 * `apache-airflow-ts-sdk` (and `@apache-airflow/ts-sdk`) as Airless resolves them: the Dag
 * authoring surface of Airflow 3.4's TypeScript SDK, running on Airless without an Airflow
 * cluster (docs/airflow-ts-sdk.md). `airless build` bundles this module where a DAG file
 * imports either name, and type-checks against these types.
 *
 * @example
 * import { Dag, getClient } from 'apache-airflow-ts-sdk';
 * export const dag = new Dag('hello', { schedule: '@daily' });
 * const greet = dag.task('greet', async () => (await getClient().getVariable('greeting')) ?? 'hello');
 * greet();
 */
import { InvalidDagError } from '../../engine/index.js';

export { Dag } from './dag.js';
export { getClient, getContext, ConnectionNotFoundError, VariableNotFoundError } from './client.js';
export type * from './types.js';

/**
 * The SDK's handler of a task that a Python Dag declares. Airless has no Python side, so
 * such a handler has no Dag to run in: declare the Dag in TypeScript (`new Dag(...)`).
 * Constructing one is refused where it happens, naming the file.
 */
export class TaskHandler {
  constructor(dagId: string, taskId: string, _handler?: unknown) {
    throw new InvalidDagError(
      `TaskHandler("${dagId}", "${taskId}") implements a task of a Dag declared in Python; Airless runs no Python: declare the Dag in TypeScript with new Dag(...) and dag.task(...)`,
    );
  }
}

/**
 * The SDK's bundle of Dags served to an Airflow coordinator. On Airless the build reads a
 * file's exported Dags itself: `register` keeps nothing and `serve` returns at once.
 */
export class Bundle {
  register(...items: unknown[]): this {
    void items;
    return this;
  }
  async serve(): Promise<void> {}
}

/**
 * The SDK's renames of a handler's arguments to a Python Dag's names. Native Dags name
 * their inputs themselves, so on Airless the handler is returned as it is.
 */
export function withArgNames<H>(names: Record<string, string>, handler: H): H {
  void names;
  return handler;
}

/**
 * The SDK's inputs given in the order the handler destructures them. Refused on Airless
 * (the order would be read from the function's source text): name the inputs instead.
 */
export function withArgList(...values: unknown[]): never {
  void values;
  throw new InvalidDagError('withArgList(...) is not supported on Airless: name the inputs, task({ rows: extracted, region: "us" })');
}
