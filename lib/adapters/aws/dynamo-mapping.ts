/**
 * The mapping operations of the Store port on DynamoDB (lib/engine/model/mapping-store.ts).
 * Counts live in the kv table, outside the run's task partition: one summary item
 * `M:[dag,run,task]` (shard count `want`, closed shards `closed` as a number set) and one
 * item per 100 instances `m:[dag,run,task,shard]` (`want`, and a number set of map indexes
 * per outcome). Sets make every count idempotent (adding an index twice is a no-op), items
 * stay under 1 KB (one write unit each), and the hottest item takes 100 writes per mapped
 * task, not n. Instances are task items `<task>#<i>` in the run's partition: one Query
 * with `begins_with` lists them.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { getItem } from './dynamo-cas.js';
import { MAP_OUTCOMES, shardCount, shardWant, type MapOutcome, type MapShardState, type TaskInstance, type TaskKey } from '../../engine/index.js';
import { Expr, type Item } from './dynamo-codec.js';
import type { DynamoRequests } from './dynamo-requests.js';

const CC = { ReturnConsumedCapacity: 'TOTAL' } as const;
const summaryKey = (k: TaskKey): Item => ({ pk: { S: `M:${JSON.stringify([k.dagId, k.runId, k.taskId])}` } });
const shardKey = (k: TaskKey, s: number): Item => ({ pk: { S: `m:${JSON.stringify([k.dagId, k.runId, k.taskId, s])}` } });
const setName = (o: MapOutcome): string => `s_${o}`;

function shardState(item: Item | undefined): MapShardState {
  const indexes = Object.fromEntries(MAP_OUTCOMES.map((o) => [o, (item?.[setName(o)]?.NS ?? []).map(Number).sort((a, b) => a - b)]));
  return { want: Number(item?.['want']?.N ?? 0), indexes: indexes as Record<MapOutcome, number[]> };
}

export class DynamoMapCounts {
  constructor(
    private readonly r: DynamoRequests,
    private readonly kv: string,
    private readonly tasks: string,
    private readonly decodeTask: (i: Item) => Promise<TaskInstance>,
  ) {}

  private async update(key: Item, expr: string, x: Expr, returnNew = false): Promise<Item | undefined> {
    const out = await this.r.send<{ Attributes?: Item }>(
      new UpdateItemCommand({ TableName: this.kv, Key: key, UpdateExpression: expr, ...x.params(), ...(returnNew ? { ReturnValues: 'ALL_NEW' } : {}), ...CC }),
      'write',
    );
    return out.Attributes;
  }

  async initMapCounts(parent: TaskKey, n: number, expiresAt?: number): Promise<void> {
    // SET of `want` only: a repeated init (a resumed expansion) never touches the counts.
    const setWant = (key: Item, want: number) => {
      const x = new Expr();
      const ttl = expiresAt === undefined ? '' : `, ${x.name('ttl')} = ${x.value({ N: String(Math.ceil(expiresAt)) })}`;
      return this.update(key, `SET ${x.name('want')} = ${x.value({ N: String(want) })}${ttl}`, x);
    };
    const shards = Array.from({ length: shardCount(n) }, (_, s) => s);
    for (let i = 0; i < shards.length; i += 25) {
      await Promise.all(shards.slice(i, i + 25).map((s) => setWant(shardKey(parent, s), shardWant(n, s))));
    }
    await setWant(summaryKey(parent), shards.length);
  }

  async countMapped(parent: TaskKey, shard: number, mapIndex: number, outcome: MapOutcome): Promise<MapShardState> {
    const x = new Expr();
    const v = x.value({ NS: [String(mapIndex)] });
    const others = MAP_OUTCOMES.filter((o) => o !== outcome).map((o) => `${x.name(setName(o))} ${v}`);
    const item = await this.update(shardKey(parent, shard), `ADD ${x.name(setName(outcome))} ${v} DELETE ${others.join(', ')}`, x, true);
    return shardState(item);
  }

  async uncountMapped(parent: TaskKey, shard: number, mapIndex: number): Promise<void> {
    const x = new Expr();
    const v = x.value({ NS: [String(mapIndex)] });
    await this.update(shardKey(parent, shard), `DELETE ${MAP_OUTCOMES.map((o) => `${x.name(setName(o))} ${v}`).join(', ')}`, x);
    const y = new Expr();
    await this.update(summaryKey(parent), `DELETE ${y.name('closed')} ${y.value({ NS: [String(shard)] })}`, y);
  }

  async closeMapShard(parent: TaskKey, shard: number): Promise<{ closed: number; want: number }> {
    const x = new Expr();
    const item = await this.update(summaryKey(parent), `ADD ${x.name('closed')} ${x.value({ NS: [String(shard)] })}`, x, true);
    return { closed: item?.['closed']?.NS?.length ?? 0, want: Number(item?.['want']?.N ?? Infinity) };
  }

  async getMapSummary(parent: TaskKey): Promise<{ closed: number[]; want: number } | undefined> {
    const items = await this.batchGet([summaryKey(parent)]);
    const item = items[0];
    if (!item?.['want']) return undefined;
    return { closed: (item['closed']?.NS ?? []).map(Number).sort((a, b) => a - b), want: Number(item['want'].N) };
  }

  async getMapShards(parent: TaskKey, shards: readonly number[]): Promise<Map<number, MapShardState>> {
    const out = new Map<number, MapShardState>();
    const items = await this.batchGet(shards.map((s) => shardKey(parent, s)));
    for (const item of items) {
      const s = (JSON.parse(item['pk']!.S!.slice(2)) as unknown[])[3] as number;
      out.set(s, shardState(item));
    }
    return out;
  }

  async listMapped(parent: TaskKey): Promise<TaskInstance[]> {
    const x = new Expr();
    const kc = `${x.name('runKey')} = ${x.value({ S: `${parent.dagId}/${parent.runId}` })} AND begins_with(${x.name('taskId')}, ${x.value({ S: `${parent.taskId}#` })})`;
    const items = await this.r.queryAll({ TableName: this.tasks, KeyConditionExpression: kc, ConsistentRead: true, ...x.params() });
    return Promise.all(items.map((i) => this.decodeTask(i)));
  }

  /**
   * Strongly consistent reads of the given items, 16 at a time. GetItem, not BatchGetItem:
   * the same read units, and the functions' least-privilege policy (lib/infra/functions.ts)
   * grants no batch actions.
   */
  private async batchGet(keys: Item[]): Promise<Item[]> {
    const out: Item[] = [];
    for (let i = 0; i < keys.length; i += 16) {
      const items = await Promise.all(keys.slice(i, i + 16).map((k) => getItem(this.r, this.kv, k)));
      for (const item of items) if (item) out.push(item);
    }
    return out;
  }
}
