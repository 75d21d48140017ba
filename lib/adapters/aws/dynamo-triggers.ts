/**
 * Triggers on DynamoDB: the registrations of waiting sensors and deferrals (triggers
 * table, with the sparse `sensorDue` and `byEvent` indexes) and the per-cycle poke claims
 * (`p:` items of the kv table, expiring by TTL). Split from dynamo-store.ts, which
 * delegates to it.
 */
import { DeleteItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { Cas, TriggerRecord } from '../../engine/index.js';
import { Expr, below, decodeFields, encodeFields, encodeValue, exists } from './dynamo-codec.js';
import { casPut, getItem } from './dynamo-cas.js';
import type { DynamoRequests } from './dynamo-requests.js';
import type { TableNames } from './dynamo-schema.js';

const NO_RETURN = { ReturnConsumedCapacity: 'TOTAL' } as const;
const isCondFail = (err: unknown): boolean => (err as Error).name === 'ConditionalCheckFailedException';
/** What a record looks like once stored: JSON values copied, absent fields dropped. */
const plain = <T>(rec: T): T => JSON.parse(JSON.stringify(rec)) as T;

/**
 * @example
 * const triggers = new DynamoTriggers(requests, tableNames('airless-'));
 * await triggers.putTrigger({ id: 'etl/r1/wait', kind: 'sensor', dagId: 'etl', runId: 'r1', taskId: 'wait', tryNumber: 1, createdAt: Date.now() });
 */
export class DynamoTriggers {
  constructor(private readonly r: DynamoRequests, private readonly t: Pick<TableNames, 'triggers' | 'kv'>) {}

  async putTrigger(t: TriggerRecord): Promise<Cas<TriggerRecord>> {
    const item = encodeFields(t);
    return casPut(this.r, this.t.triggers, item, 'id', plain(t), async (i) => (await decodeFields(i)) as unknown as TriggerRecord);
  }

  async getTrigger(id: string): Promise<TriggerRecord | undefined> {
    const item = await getItem(this.r, this.t.triggers, { id: { S: id } });
    return item && ((await decodeFields(item)) as unknown as TriggerRecord);
  }

  async deleteTrigger(id: string): Promise<void> {
    await this.r.send(new DeleteItemCommand({ TableName: this.t.triggers, Key: { id: { S: id } }, ...NO_RETURN }), 'write');
  }

  /** Updates an existing trigger; a missing one stays missing (no partial resurrection). */
  async updateTrigger(id: string, patch: Partial<Omit<TriggerRecord, 'id'>>): Promise<void> {
    const x = new Expr();
    const cond = exists(x, 'id');
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) continue;
      if (v === null) x.remove(k);
      else x.set(k, encodeValue(k, v));
    }
    if (!x.hasUpdates) return;
    try {
      await this.r.send(
        new UpdateItemCommand({ TableName: this.t.triggers, Key: { id: { S: id } }, UpdateExpression: x.update(), ConditionExpression: cond, ...x.params(), ...NO_RETURN }),
        'write',
      );
    } catch (err) {
      if (!isCondFail(err)) throw err;
    }
  }

  async listSensorTriggers(shard: number, dueBefore: number): Promise<TriggerRecord[]> {
    const x = new Expr();
    const kc = `${x.name('shardcode')} = ${x.value({ N: String(shard) })} AND ${x.name('nextPokeAt')} <= ${x.value({ N: String(dueBefore) })}`;
    const items = await this.r.queryAll({ TableName: this.t.triggers, IndexName: 'sensorDue', KeyConditionExpression: kc, ...x.params() });
    const out = (await Promise.all(items.map((i) => decodeFields(i)))) as unknown as TriggerRecord[];
    return out.sort((a, b) => a.nextPokeAt! - b.nextPokeAt! || (a.id < b.id ? -1 : 1));
  }

  async listEventTriggers(eventKey: string): Promise<TriggerRecord[]> {
    const x = new Expr();
    const kc = `${x.name('eventKey')} = ${x.value({ S: eventKey })}`;
    const items = await this.r.queryAll({ TableName: this.t.triggers, IndexName: 'byEvent', KeyConditionExpression: kc, ...x.params() });
    const out = (await Promise.all(items.map((i) => decodeFields(i)))) as unknown as TriggerRecord[];
    return out.sort((a, b) => (a.id < b.id ? -1 : 1));
  }


  async claimPoke(hashcode: string, cycle: number, expiresAtSec?: number): Promise<boolean> {
    const x = new Expr();
    const cond = below(x, 'cycle', cycle);
    x.set('cycle', { N: String(cycle) });
    if (expiresAtSec !== undefined) x.set('ttl', { N: String(Math.ceil(expiresAtSec)) });
    try {
      await this.r.send(
        new UpdateItemCommand({ TableName: this.t.kv, Key: { pk: { S: `p:${hashcode}` } }, UpdateExpression: x.update(), ConditionExpression: cond, ...x.params(), ...NO_RETURN }),
        'write',
      );
      return true;
    } catch (err) {
      if (!isCondFail(err)) throw err;
      this.r.lostRace();
      return false;
    }
  }
}
