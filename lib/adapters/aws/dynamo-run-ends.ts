/**
 * The run-end counts of the Store port on DynamoDB (lib/engine/model/run-ends-store.ts), in
 * the kv table: one summary item `E:[dag,run]` (the closed shards, a number set) and one
 * item per 100 tasks `e:[dag,run,shard]` (number sets `ok` and `failed` of task indexes).
 * Sets make every count idempotent and keep each item under 1 KB (one write unit).
 * Counts of one shard and outcome that arrive while a write of the same is in flight go
 * out together in the next write (coalesce.ts): a worker finishing ten tasks of a wide
 * run at once writes their counts in one or two requests, not ten.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { RunEndEntry, RunEndShard, RunRef } from '../../engine/index.js';
import { Coalescer } from '../coalesce.js';
import { getItem } from './dynamo-cas.js';
import { Expr, type Item } from './dynamo-codec.js';
import type { DynamoRequests } from './dynamo-requests.js';

const CC = { ReturnConsumedCapacity: 'TOTAL' } as const;
const summaryKey = (r: RunRef): Item => ({ pk: { S: `E:${JSON.stringify([r.dagId, r.runId])}` } });
const shardKey = (r: RunRef, s: number): Item => ({ pk: { S: `e:${JSON.stringify([r.dagId, r.runId, s])}` } });
const numbers = (item: Item | undefined, attr: string): number[] => (item?.[attr]?.NS ?? []).map(Number).sort((a, b) => a - b);
const shardOf = (item: Item | undefined): RunEndShard => ({ ok: numbers(item, 'ok'), failed: numbers(item, 'failed') });

/**
 * @example
 * const ends = new DynamoRunEnds(requests, tables.kv);
 * await ends.countRunEnds({ dagId: 'etl', runId: 'r1' }, 0, [{ index: 3, failed: false }]);
 */
export class DynamoRunEnds {
  private readonly counts = new Coalescer<number, Item | undefined>();

  constructor(private readonly r: DynamoRequests, private readonly kv: string) {}

  private async update(key: Item, expr: (x: Expr) => string, returnNew: boolean): Promise<Item | undefined> {
    const x = new Expr();
    const out = await this.r.send<{ Attributes?: Item }>(
      new UpdateItemCommand({ TableName: this.kv, Key: key, UpdateExpression: expr(x), ...x.params(), ...(returnNew ? { ReturnValues: 'ALL_NEW' } : {}), ...CC }),
      'write',
    );
    return out.Attributes;
  }

  async countRunEnds(run: RunRef, shard: number, entries: readonly RunEndEntry[], expiresAt?: number): Promise<RunEndShard> {
    // One write per outcome: ADD to one set and DELETE from the other of the same item
    // cannot share an expression with the opposite pair (overlapping paths).
    let last: Item | undefined;
    for (const failed of [false, true]) {
      const indexes = entries.filter((e) => e.failed === failed).map((e) => e.index);
      if (indexes.length === 0) continue;
      const key = `${shardKey(run, shard).pk!.S}|${failed}`;
      last = await this.counts.run(key, indexes, (all) => this.update(shardKey(run, shard), (x) => {
        const v = x.value({ NS: [...new Set(all)].map(String) });
        const ttl = expiresAt === undefined ? '' : `SET ${x.name('ttl')} = ${x.value({ N: String(Math.ceil(expiresAt)) })} `;
        return `${ttl}ADD ${x.name(failed ? 'failed' : 'ok')} ${v} DELETE ${x.name(failed ? 'ok' : 'failed')} ${v}`;
      }, true));
    }
    return shardOf(last);
  }

  async uncountRunEnds(run: RunRef, shard: number, indexes: readonly number[]): Promise<void> {
    if (indexes.length > 0) {
      await this.update(shardKey(run, shard), (x) => {
        const v = x.value({ NS: [...new Set(indexes)].map(String) });
        return `DELETE ${x.name('ok')} ${v}, ${x.name('failed')} ${v}`;
      }, false);
    }
    await this.update(summaryKey(run), (x) => `DELETE ${x.name('closed')} ${x.value({ NS: [String(shard)] })}`, false);
  }

  async closeRunEndShard(run: RunRef, shard: number, expiresAt?: number): Promise<number> {
    const item = await this.update(summaryKey(run), (x) => {
      const ttl = expiresAt === undefined ? '' : `SET ${x.name('ttl')} = ${x.value({ N: String(Math.ceil(expiresAt)) })} `;
      return `${ttl}ADD ${x.name('closed')} ${x.value({ NS: [String(shard)] })}`;
    }, true);
    return item?.['closed']?.NS?.length ?? 0;
  }

  /** Strongly consistent GetItems, 16 at a time (the functions are granted no batch actions). */
  async getRunEnds(run: RunRef, shards: readonly number[]): Promise<Map<number, RunEndShard>> {
    const out = new Map<number, RunEndShard>();
    for (let i = 0; i < shards.length; i += 16) {
      const slice = shards.slice(i, i + 16);
      const items = await Promise.all(slice.map((s) => getItem(this.r, this.kv, shardKey(run, s))));
      slice.forEach((s, j) => { if (items[j]) out.set(s, shardOf(items[j])); });
    }
    return out;
  }
}
