/**
 * The compare-and-set primitives of the DynamoDB store: a conditional put, a conditional
 * update and a conditional update paired with a slot counter in one transaction. Each
 * turns a failed condition into a typed lost race carrying the item as it is.
 */
import { GetItemCommand, PutItemCommand, UpdateItemCommand, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { NotFoundError } from '../../engine/index.js';
import type { Cas, SlotChange } from '../../engine/index.js';
import { Expr, and, below, exists, type Item } from './dynamo-codec.js';
import type { DynamoRequests } from './dynamo-requests.js';

export type Decode<T> = (item: Item) => Promise<T>;

const CAS_RETURN = { ReturnValues: 'ALL_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD', ReturnConsumedCapacity: 'TOTAL' } as const;
const isCondFail = (err: unknown): boolean => (err as Error).name === 'ConditionalCheckFailedException';

async function lost<T>(r: DynamoRequests, err: unknown, decode: Decode<T>): Promise<Cas<T>> {
  if (!isCondFail(err)) throw err;
  r.lostRace();
  const old = (err as { Item?: Item }).Item;
  return { ok: false, current: old && (await decode(old)), reason: 'condition' };
}

/** Strongly consistent GetItem (eventually consistent, half the read units, when asked). */
export async function getItem(r: DynamoRequests, table: string, key: Item, eventually = false): Promise<Item | undefined> {
  const out = await r.send<{ Item?: Item }>(
    new GetItemCommand({ TableName: table, Key: key, ConsistentRead: !eventually, ReturnConsumedCapacity: 'TOTAL' }),
    'read',
  );
  return out.Item;
}

/**
 * Puts `item` unless an item with its key exists (`keyAttr` is its partition key).
 *
 * @example
 * await casPut(r, tables.runs, item, 'dagId', () => Promise.resolve(run), decodeRun);
 */
export async function casPut<T>(r: DynamoRequests, table: string, item: Item, keyAttr: string, stored: T, decode: Decode<T>): Promise<Cas<T>> {
  const x = new Expr();
  try {
    await r.send(
      new PutItemCommand({
        TableName: table, Item: item, ConditionExpression: `attribute_not_exists(${x.name(keyAttr)})`, ...x.params(),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD', ReturnConsumedCapacity: 'TOTAL',
      }),
      'write',
    );
    return { ok: true, item: stored };
  } catch (err) {
    return lost(r, err, decode);
  }
}

/** Applies the updates collected in `x` when `cond` holds; returns the item after. */
export async function casUpdate<T>(r: DynamoRequests, table: string, key: Item, x: Expr, cond: string, decode: Decode<T>): Promise<Cas<T>> {
  try {
    const out = await r.send<{ Attributes?: Item }>(
      new UpdateItemCommand({
        TableName: table, Key: key, ConditionExpression: cond, UpdateExpression: x.hasUpdates ? x.update() : undefined, ...x.params(), ...CAS_RETURN,
      }),
      'write',
    );
    return { ok: true, item: await decode(out.Attributes ?? (await getItem(r, table, key))!) };
  } catch (err) {
    return lost(r, err, decode);
  }
}

/** The counter half of a slot transaction: the holder exists, is below max for +1, and moves. */
export function counterUpdate(table: string, key: Item, keyAttr: string, counter: string, slot: SlotChange): TransactWriteItem {
  const x = new Expr();
  const cond = and(exists(x, keyAttr), slot.delta > 0 && slot.max !== undefined && below(x, counter, slot.max));
  x.setRaw(`${x.name(counter)} = if_not_exists(${x.name(counter)}, ${x.value({ N: '0' })}) + ${x.value({ N: String(slot.delta) })}`);
  return { Update: { TableName: table, Key: key, ConditionExpression: cond, UpdateExpression: x.update(), ...x.params() } };
}

/**
 * `casUpdate` and a counter move in one transaction. The item's own condition failing is a
 * `condition` loss; the counter's is `slots`, except that a release (`-1`) whose holder is
 * gone retries as the plain write `withoutSlot`.
 */
export async function casWithSlot<T>(
  r: DynamoRequests,
  mine: { table: string; key: Item; x: Expr; cond: string },
  counter: TransactWriteItem,
  slot: SlotChange,
  decode: Decode<T>,
  withoutSlot: () => Promise<Cas<T>>,
): Promise<Cas<T>> {
  const { table, key, x, cond } = mine;
  const own = { TableName: table, Key: key, ConditionExpression: cond, ...x.params(), ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
  const res = await r.transact([x.hasUpdates ? { Update: { ...own, UpdateExpression: x.update() } } : { ConditionCheck: own }, counter]);
  if (!res.ok) {
    r.lostRace();
    const [item, holder] = res.reasons;
    if (item?.Code === 'ConditionalCheckFailed') return { ok: false, current: item.Item && (await decode(item.Item)), reason: 'condition' };
    if (holder?.Code === 'ConditionalCheckFailed' && slot.delta < 0) return withoutSlot();
    const now = await getItem(r, table, key);
    return { ok: false, current: now && (await decode(now)), reason: 'slots' };
  }
  // Transactions return no attributes: read the item back (strongly consistent).
  const after = await getItem(r, table, key);
  if (!after) throw new NotFoundError(`item deleted right after its update in ${table}`);
  return { ok: true, item: await decode(after) };
}
