/**
 * Kept events on DynamoDB (the EventStore part of the Store port): one kv item per index
 * key, `e:<key>`, holding a list of the newest events under it, each with its own expiry;
 * the item's TTL is its newest event's. An event is appended in one UpdateItem
 * (list_append), so concurrent arrivals under one key never overwrite each other; a list
 * grown past {@link KEEP_PER_KEY} loses its oldest entries in a second write, and an
 * append that would make the item too large starts the list afresh.
 */
import { UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { OversizedValueError, type KeptEvent } from '../../engine/index.js';
import { isExpired } from '../expiry.js';
import { getItem } from './dynamo-cas.js';
import { jsonBytes } from './dynamo-codec.js';
import type { DynamoRequests } from './dynamo-requests.js';

/** Events kept per key; older ones are dropped. */
export const KEEP_PER_KEY = 10;

const fromUtf8 = new TextDecoder();
const NAMES = { '#ev': 'events', '#ttl': 'ttl' };

/**
 * @example
 * const kept = new DynamoKeptEvents(requests, tableNames('airless-').kv);
 * await kept.keepEvent(key, { event, receivedAt: Date.now() }, Math.ceil(Date.now() / 1000) + 86_400);
 */
export class DynamoKeptEvents {
  constructor(private readonly r: DynamoRequests, private readonly table: string) {}

  async keepEvent(key: string, kept: KeptEvent, expiresAtSec: number): Promise<void> {
    const entry: AttributeValue = { M: { v: { B: jsonBytes(kept) }, exp: { N: String(Math.ceil(expiresAtSec)) } } };
    const Key = { pk: { S: `e:${key}` } };
    const values = { ':new': { L: [entry] }, ':empty': { L: [] }, ':ttl': { N: String(Math.ceil(expiresAtSec)) } };
    let length: number;
    try {
      const out = await this.r.send<{ Attributes?: { events?: AttributeValue } }>(new UpdateItemCommand({
        TableName: this.table, Key,
        UpdateExpression: 'SET #ev = list_append(if_not_exists(#ev, :empty), :new), #ttl = :ttl',
        ExpressionAttributeNames: NAMES, ExpressionAttributeValues: values,
        ReturnValues: 'UPDATED_NEW', ReturnConsumedCapacity: 'TOTAL',
      }), 'write');
      length = out.Attributes?.events?.L?.length ?? 1;
    } catch (err) {
      // The item would pass DynamoDB's 400 KB (DynamoRequests names that refusal): start over with this event alone.
      if (!(err instanceof OversizedValueError)) throw err;
      await this.r.send(new UpdateItemCommand({
        TableName: this.table, Key, UpdateExpression: 'SET #ev = :new, #ttl = :ttl',
        ExpressionAttributeNames: NAMES, ExpressionAttributeValues: { ':new': values[':new'], ':ttl': values[':ttl'] }, ReturnConsumedCapacity: 'TOTAL',
      }), 'write');
      return;
    }
    if (length <= KEEP_PER_KEY) return;
    // Two arrivals trimming at once may drop one entry too many: the oldest, which a late wait needs least.
    const drop = Array.from({ length: length - KEEP_PER_KEY }, (_, i) => `#ev[${i}]`).join(', ');
    await this.r.send(new UpdateItemCommand({
      TableName: this.table, Key, UpdateExpression: `REMOVE ${drop}`, ExpressionAttributeNames: { '#ev': 'events' }, ReturnConsumedCapacity: 'TOTAL',
    }), 'write');
  }

  async keptEvents(key: string, now: number): Promise<KeptEvent[]> {
    const item = await getItem(this.r, this.table, { pk: { S: `e:${key}` } });
    const out: KeptEvent[] = [];
    for (const e of item?.['events']?.L ?? []) {
      const exp = Number(e.M?.['exp']?.N ?? 0);
      const v = e.M?.['v']?.B;
      if (v === undefined || isExpired(exp, now)) continue;
      out.push(JSON.parse(fromUtf8.decode(v)) as KeptEvent);
    }
    return out;
  }
}
