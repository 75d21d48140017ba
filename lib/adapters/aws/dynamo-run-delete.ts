/**
 * Deleting finished runs and task instances on DynamoDB (engine model/run-delete-store.ts).
 * The run item goes first, in a DeleteItem conditional on its state being success or
 * failed: once it is gone nothing can clear or re-queue the run, so its task items and
 * XComs are deleted after it without racing the engine. A process that dies between the
 * two leaves task items no read reaches (every read of a run's tasks starts from the run).
 */
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { TERMINAL_TASK_STATES, type TaskKey, type XcomKey } from '../../engine/index.js';
import { Expr, type Item } from './dynamo-codec.js';
import type { DynamoRequests } from './dynamo-requests.js';
import type { TableNames } from './dynamo-schema.js';
import { clearDynamoXcoms } from './dynamo-xcom-clear.js';

const CC = { ReturnConsumedCapacity: 'TOTAL' } as const;
/** Task items deleted at once. */
const PARALLEL = 16;
const runKeyOf = (dagId: string, runId: string): string => `${dagId}/${runId}`;

/**
 * @example
 * const deletes = new DynamoRunDeletes(requests, tableNames('airless-'));
 * await deletes.deleteRun('etl', 'manual__2026-01-01T00:00:00+00:00');
 */
export class DynamoRunDeletes {
  constructor(private readonly r: DynamoRequests, private readonly t: Pick<TableNames, 'runs' | 'tasks' | 'kv'>) {}

  /** A DeleteItem under a condition on `state`; false when the condition (or the item) fails. */
  private async deleteIf(table: string, key: Item, states: readonly string[]): Promise<boolean> {
    const x = new Expr();
    const cond = `${x.name('state')} IN (${states.map((s) => x.value({ S: s })).join(', ')})`;
    try {
      await this.r.send(new DeleteItemCommand({ TableName: table, Key: key, ConditionExpression: cond, ...x.params(), ...CC }), 'write');
      return true;
    } catch (err) {
      if ((err as Error).name !== 'ConditionalCheckFailedException') throw err;
      return false;
    }
  }

  async deleteRun(dagId: string, runId: string): Promise<boolean> {
    if (!(await this.deleteIf(this.t.runs, { dagId: { S: dagId }, runId: { S: runId } }, ['success', 'failed']))) return false;
    const x = new Expr();
    const items = await this.r.queryAll({
      TableName: this.t.tasks, KeyConditionExpression: `${x.name('runKey')} = ${x.value({ S: runKeyOf(dagId, runId) })}`,
      ProjectionExpression: `${x.name('runKey')}, ${x.name('taskId')}`, ConsistentRead: true, ...x.params(),
    });
    // A few at a time: a mapped task may have thousands of instances.
    for (let at = 0; at < items.length; at += PARALLEL) {
      await Promise.all(items.slice(at, at + PARALLEL).map(async (i) => {
        await this.r.send(new DeleteItemCommand({ TableName: this.t.tasks, Key: { runKey: i['runKey']!, taskId: i['taskId']! }, ...CC }), 'write');
        await clearDynamoXcoms(this.r, this.t.kv, { dagId, runId, taskId: i['taskId']!.S! });
      }));
    }
    return true;
  }

  async deleteTask(key: TaskKey): Promise<boolean> {
    const item = { runKey: { S: runKeyOf(key.dagId, key.runId) }, taskId: { S: key.taskId } };
    if (!(await this.deleteIf(this.t.tasks, item, [...TERMINAL_TASK_STATES]))) return false;
    await clearDynamoXcoms(this.r, this.t.kv, key);
    return true;
  }

  /** One XCom item; its key stays in the task's XCom index, which the task's clear deletes with the rest. */
  async deleteXcom(key: XcomKey): Promise<boolean> {
    const out = await this.r.send<{ Attributes?: Item }>(new DeleteItemCommand({
      TableName: this.t.kv, Key: { pk: { S: `x:${JSON.stringify([key.dagId, key.runId, key.taskId, key.key])}` } }, ReturnValues: 'ALL_OLD', ...CC,
    }), 'write');
    return out.Attributes !== undefined;
  }
}
