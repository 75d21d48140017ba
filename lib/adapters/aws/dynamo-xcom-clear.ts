/**
 * Clearing a task instance's XComs on DynamoDB (`Store.clearXcoms`). An XCom is one kv
 * item keyed by `x:[dagId,runId,taskId,key]`, with no sort key to list a task's XComs by.
 * So each key other than `return_value` that a task pushes is also added to a small
 * index item `xk:[dagId,runId,taskId]` (a string set, written before the value, so a crash
 * in between leaves at worst a listed key without a value). `return_value`, written by
 * every successful try, is not indexed: clearing always deletes it, and the hot path of a
 * task that pushes nothing else pays no extra write.
 * Values spilled to the blob store stay there (the store has no blob delete; the pointer
 * goes with the item).
 */
import { DeleteItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { TaskKey, XcomKey } from '../../engine/index.js';
import { getItem } from './dynamo-cas.js';
import type { DynamoRequests } from './dynamo-requests.js';

const NO_RETURN = { ReturnConsumedCapacity: 'TOTAL' } as const;
const RETURN_VALUE = 'return_value';
const indexKey = (t: TaskKey) => ({ pk: { S: `xk:${JSON.stringify([t.dagId, t.runId, t.taskId])}` } });
const xcomKey = (t: TaskKey, key: string) => ({ pk: { S: `x:${JSON.stringify([t.dagId, t.runId, t.taskId, key])}` } });

/**
 * Lists an XCom key in its task's index before the value is written (not for `return_value`).
 *
 * @example
 * await indexXcomKey(requests, 'airless-kv', { dagId: 'etl', runId: 'r1', taskId: 'extract', key: 'rows' }, expiresAt);
 */
export async function indexXcomKey(r: DynamoRequests, table: string, key: XcomKey, expiresAt?: number): Promise<void> {
  if (key.key === RETURN_VALUE) return;
  const ttl = expiresAt === undefined ? '' : ' SET #ttl = :ttl';
  await r.send(
    new UpdateItemCommand({
      TableName: table,
      Key: indexKey(key),
      UpdateExpression: `ADD #keys :k${ttl}`,
      ExpressionAttributeNames: { '#keys': 'keys', ...(expiresAt === undefined ? {} : { '#ttl': 'ttl' }) },
      ExpressionAttributeValues: { ':k': { SS: [key.key] }, ...(expiresAt === undefined ? {} : { ':ttl': { N: String(Math.ceil(expiresAt)) } }) },
      ...NO_RETURN,
    }),
    'write',
  );
}

/**
 * Deletes every XCom of a task instance: its return value and each indexed key, then the
 * index. Returns how many keys were deleted (present or not).
 *
 * @example
 * await clearDynamoXcoms(requests, 'airless-kv', { dagId: 'etl', runId: 'r1', taskId: 'extract' });
 */
export async function clearDynamoXcoms(r: DynamoRequests, table: string, task: TaskKey): Promise<number> {
  const index = await getItem(r, table, indexKey(task));
  const keys = [RETURN_VALUE, ...(index?.['keys']?.SS ?? [])];
  await Promise.all(keys.map((k) => r.send(new DeleteItemCommand({ TableName: table, Key: xcomKey(task, k), ...NO_RETURN }), 'write')));
  if (index) await r.send(new DeleteItemCommand({ TableName: table, Key: indexKey(task), ...NO_RETURN }), 'write');
  return keys.length;
}
