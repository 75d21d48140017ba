/**
 * The poker state items of the Store port on DynamoDB (lib/engine/model/poker-state.ts):
 * one kv item per poker shard, `pk = poker:<shard>`, read strongly consistent and written
 * with UpdateItem conditional on the version before (absent for the first write), so the
 * functions need no action on the kv table beyond the GetItem and UpdateItem they hold.
 * Whether a virtual shard holds a sensor is a one-item query of the triggers table's
 * `sensorDue` index. docs/adr/0024-nothing-at-idle.md.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { PokerState, PokerStateCas, PokerWant } from '../../engine/index.js';
import { Expr, numberIs, type Item } from './dynamo-codec.js';
import { getItem } from './dynamo-cas.js';
import type { DynamoRequests } from './dynamo-requests.js';
import type { TableNames } from './dynamo-schema.js';

const WANTS: readonly PokerWant[] = ['on', 'draining', 'off'];
const key = (shard: number): Item => ({ pk: { S: `poker:${shard}` } });

function decode(shard: number, item: Item | undefined): PokerState | undefined {
  if (!item?.['want']?.S) return undefined;
  const want = item['want'].S as PokerWant;
  if (!WANTS.includes(want)) throw new Error(`poker state of shard ${shard} holds an unknown want ${JSON.stringify(want)}`);
  return { shard, want, version: Number(item['version']?.N ?? 0), since: Number(item['since']?.N ?? 0) };
}

/**
 * @example
 * const states = new DynamoPokerStates(requests, tableNames('airless-'));
 * await states.putPokerState({ shard: 0, want: 'on', version: 1, since: Date.now() });
 */
export class DynamoPokerStates {
  constructor(private readonly r: DynamoRequests, private readonly t: Pick<TableNames, 'kv' | 'triggers'>) {}

  async getPokerState(shard: number): Promise<PokerState | undefined> {
    return decode(shard, await getItem(this.r, this.t.kv, key(shard)));
  }

  async putPokerState(next: PokerState): Promise<PokerStateCas> {
    const x = new Expr();
    const cond = numberIs(x, 'version', next.version > 1 ? next.version - 1 : null);
    x.set('want', { S: next.want }).set('version', { N: String(next.version) }).set('since', { N: String(next.since) });
    try {
      await this.r.send(new UpdateItemCommand({
        TableName: this.t.kv, Key: key(next.shard), UpdateExpression: x.update(), ConditionExpression: cond, ...x.params(),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD', ReturnConsumedCapacity: 'TOTAL',
      }), 'write');
      return { ok: true, item: { ...next } };
    } catch (err) {
      if ((err as Error).name !== 'ConditionalCheckFailedException') throw err;
      this.r.lostRace();
      return { ok: false, current: decode(next.shard, (err as { Item?: Item }).Item), reason: 'condition' };
    }
  }

  async hasSensorTriggers(virtualShard: number): Promise<boolean> {
    const x = new Expr();
    const kc = `${x.name('shardcode')} = ${x.value({ N: String(virtualShard) })}`;
    const items = await this.r.queryAll({ TableName: this.t.triggers, IndexName: 'sensorDue', KeyConditionExpression: kc, Limit: 1, ...x.params() }, 1);
    return items.length > 0;
  }
}
