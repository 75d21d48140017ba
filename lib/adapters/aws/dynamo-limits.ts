/**
 * Pools and per-task limits on DynamoDB: counters are kv items (`l:pool:<name>` keeps the
 * slots left in `free`; `l:run:...` and `l:dag:...` keep the slots used in `used`), moved
 * in one transaction with the task write that takes or gives back the slots; waiters are
 * found through the sparse `waiting` index of the tasks table (`waitKey`, `waitRank`).
 * Rationale: docs/adr/0014-pools-and-priority.md.
 */
import { GetItemCommand, UpdateItemCommand, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { NotFoundError } from '../../engine/index.js';
import type { Cas, LimitMove, PoolSpec, PoolState, TaskKey } from '../../engine/index.js';
import { Expr, and, exists, type Item } from './dynamo-codec.js';
import type { DynamoRequests } from './dynamo-requests.js';
import { getItem, type Decode } from './dynamo-cas.js';

const isPool = (key: string): boolean => key.startsWith('pool:');
const pk = (key: string): Item => ({ pk: { S: `l:${key}` } });

/** The counter half of a limit move, for a transaction. */
export function limitUpdate(kvTable: string, m: LimitMove): TransactWriteItem {
  const x = new Expr();
  const d = (n: number) => x.value({ N: String(n) });
  let cond: string;
  if (isPool(m.key)) {
    // A pool exists once registered; a take needs `free >= delta` (absent fails any comparison).
    cond = m.delta > 0 ? `${x.name('free')} >= ${d(m.delta)}` : exists(x, 'pk');
    x.setRaw(`${x.name('free')} = ${x.name('free')} + ${d(-m.delta)}`);
  } else {
    cond = m.delta > 0
      ? (m.max === undefined ? '' : `(attribute_not_exists(${x.name('used')}) OR ${x.name('used')} <= ${d(m.max - m.delta)})`)
      : exists(x, 'used');
    x.setRaw(`${x.name('used')} = if_not_exists(${x.name('used')}, ${d(0)}) + ${d(m.delta)}`);
    if (m.expiresAt !== undefined) x.setRaw(`${x.name('ttl')} = ${d(Math.ceil(m.expiresAt))}`);
  }
  return { Update: { TableName: kvTable, Key: pk(m.key), ConditionExpression: cond || undefined, UpdateExpression: x.update(), ...x.params() } };
}

/**
 * A task write with its counter moves (the run's maxActiveTasks counter first, when given)
 * in one transaction. The task's own condition failing is a `condition` loss; a take that
 * does not fit is a `slots` loss naming the counter (`limit`; none for the run's counter);
 * a give-back to a counter that is gone is retried without it.
 */
export async function casWithLimits<T>(
  r: DynamoRequests,
  mine: { table: string; key: Item; x: Expr; cond: string },
  kvTable: string,
  runCounter: { item: TransactWriteItem; release: boolean } | undefined,
  moves: readonly LimitMove[],
  decode: Decode<T>,
  retry: (runCounter: boolean, moves: readonly LimitMove[]) => Promise<Cas<T>>,
): Promise<Cas<T>> {
  const { table, key, x, cond } = mine;
  const own = { TableName: table, Key: key, ConditionExpression: cond, ...x.params(), ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
  const counters = moves.map((m) => limitUpdate(kvTable, m));
  const items: TransactWriteItem[] = [x.hasUpdates ? { Update: { ...own, UpdateExpression: x.update() } } : { ConditionCheck: own }];
  if (runCounter) items.push(runCounter.item);
  items.push(...counters);
  const res = await r.transact(items);
  if (!res.ok) {
    r.lostRace();
    const [item, ...rest] = res.reasons;
    if (item?.Code === 'ConditionalCheckFailed') return { ok: false, current: item.Item && (await decode(item.Item)), reason: 'condition' };
    const failed = rest.findIndex((c) => c?.Code === 'ConditionalCheckFailed');
    const offset = runCounter ? 1 : 0;
    if (runCounter && failed === 0) {
      if (runCounter.release) return retry(false, moves);
      return { ok: false, current: await current(r, table, key, decode), reason: 'slots' };
    }
    const m = moves[failed - offset];
    if (m && m.delta < 0) return retry(runCounter !== undefined, moves.filter((o) => o !== m));
    return { ok: false, current: await current(r, table, key, decode), reason: 'slots', ...(m ? { limit: m.key } : {}) };
  }
  const after = await getItem(r, table, key);
  if (!after) throw new NotFoundError(`item deleted right after its update in ${table}`);
  return { ok: true, item: await decode(after) };
}

async function current<T>(r: DynamoRequests, table: string, key: Item, decode: Decode<T>): Promise<T | undefined> {
  const now = await getItem(r, table, key);
  return now && decode(now);
}

/** Creates a pool, or moves its slots (and the slots left by the same difference), by compare-and-set on the slots. */
export async function registerPool(r: DynamoRequests, kvTable: string, pool: PoolSpec): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const item = await getItem(r, kvTable, pk(`pool:${pool.name}`));
    const old = item?.['slots']?.N;
    const x = new Expr();
    const cond = old === undefined ? `attribute_not_exists(${x.name('slots')})` : `${x.name('slots')} = ${x.value({ N: old })}`;
    x.set('slots', { N: String(pool.slots) });
    x.setRaw(`${x.name('free')} = if_not_exists(${x.name('free')}, ${x.value({ N: '0' })}) + ${x.value({ N: String(pool.slots - Number(old ?? 0)) })}`);
    if (pool.description !== undefined) x.set('description', { S: pool.description });
    else x.remove('description');
    try {
      await r.send(
        new UpdateItemCommand({ TableName: kvTable, Key: pk(`pool:${pool.name}`), ConditionExpression: and(cond), UpdateExpression: x.update(), ...x.params(), ReturnConsumedCapacity: 'TOTAL' }),
        'write',
      );
      return;
    } catch (err) {
      if ((err as Error).name !== 'ConditionalCheckFailedException') throw err;
    }
  }
  throw new Error(`pool ${pool.name}: its slots kept changing while being registered`);
}

export async function getPool(r: DynamoRequests, kvTable: string, name: string): Promise<PoolState | undefined> {
  const out = await r.send<{ Item?: Item }>(
    new GetItemCommand({ TableName: kvTable, Key: pk(`pool:${name}`), ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' }),
    'read',
  );
  const i = out.Item;
  if (!i?.['slots']) return undefined;
  return {
    name, slots: Number(i['slots'].N), free: Number(i['free']?.N ?? 0), ...(i['description']?.S !== undefined ? { description: i['description'].S } : {}),
  };
}

/** Waiters of one counter, best first, from the sparse `waiting` index (keys only: the caller reads each task). */
export async function listWaiters(r: DynamoRequests, tasksTable: string, waitKey: string, limit: number): Promise<TaskKey[]> {
  const x = new Expr();
  const items = await r.queryAll(
    { TableName: tasksTable, IndexName: 'waiting', KeyConditionExpression: `${x.name('waitKey')} = ${x.value({ S: waitKey })}`, Limit: limit, ...x.params() },
    limit,
  );
  return items.map((i) => {
    const runKey = String(i['runKey']?.S);
    const slash = runKey.indexOf('/');
    return { dagId: runKey.slice(0, slash), runId: runKey.slice(slash + 1), taskId: String(i['taskId']?.S) };
  });
}
