/**
 * The request layer of the DynamoDB store: counts every request and its consumed
 * capacity, turns DynamoDB's size errors into OversizedValueError, pages queries and
 * retries transactions that lost only to a concurrent transaction.
 */
import {
  QueryCommand,
  TransactWriteItemsCommand,
  type CancellationReason,
  type ConsumedCapacity,
  type DynamoDBClient,
  type QueryCommandInput,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { AirlessError, OversizedValueError } from '../../engine/index.js';
import type { Metrics } from '../../engine/index.js';
import type { Item } from './dynamo-codec.js';

/** Requests and capacity units used so far (benchmarks read it). */
export interface DynamoUsage {
  requests: number;
  wcu: number;
  rcu: number;
}

export type TransactResult = { ok: true } | { ok: false; reasons: CancellationReason[] };

/** Transactions cancelled only by concurrent transactions are retried this many times. */
const MAX_CONFLICT_RETRIES = 40;

/**
 * Sends commands for the store and keeps the books.
 *
 * @example
 * const r = new DynamoRequests(client, metrics);
 * const out = await r.send<GetItemCommandOutput>(new GetItemCommand({ ... }), 'read');
 */
export class DynamoRequests {
  readonly usage: DynamoUsage = { requests: 0, wcu: 0, rcu: 0 };

  constructor(
    private readonly client: DynamoDBClient,
    private readonly metrics?: Metrics,
  ) {}

  async send<Out>(command: object, kind: 'read' | 'write'): Promise<Out> {
    this.usage.requests++;
    this.metrics?.count('dynamodb.requests');
    try {
      const out = await (this.client.send as (c: object) => Promise<Out>)(command);
      this.addCapacity((out as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity, kind);
      return out;
    } catch (err) {
      const e = err as Error;
      if (e.name === 'ValidationException' && /item size|size has exceeded|too large/i.test(e.message)) {
        throw new OversizedValueError(`DynamoDB refused an item over its 400 KB limit: ${e.message}`, { cause: err });
      }
      throw err;
    }
  }

  /** Counts a failed condition: a lost race is normal, and watched. */
  lostRace(): void {
    this.metrics?.count('store.lost_race');
  }

  /** All items of a query, following pages until `limit` items (after filtering) are in. */
  async queryAll(input: QueryCommandInput, limit = Infinity): Promise<Item[]> {
    const items: Item[] = [];
    let start: Item | undefined;
    do {
      const out = await this.send<{ Items?: Item[]; LastEvaluatedKey?: Item }>(
        new QueryCommand({ ...input, ExclusiveStartKey: start, ReturnConsumedCapacity: 'TOTAL' }),
        'read',
      );
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start && items.length < limit);
    return items.length > limit ? items.slice(0, limit) : items;
  }

  /**
   * Runs a transaction. A condition failure is returned with the cancellation reasons
   * (each with its item when asked for); conflicts with other transactions are retried
   * with jittered backoff, since they say nothing about the conditions.
   */
  async transact(items: TransactWriteItem[]): Promise<TransactResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.send(new TransactWriteItemsCommand({ TransactItems: items, ReturnConsumedCapacity: 'TOTAL' }), 'write');
        return { ok: true };
      } catch (err) {
        if ((err as Error).name !== 'TransactionCanceledException') throw err;
        const reasons = (err as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
        if (reasons.some((r) => r.Code === 'ConditionalCheckFailed')) return { ok: false, reasons };
        const conflict = reasons.some((r) => r.Code === 'TransactionConflict');
        if (!conflict || attempt >= MAX_CONFLICT_RETRIES) {
          throw new AirlessError(`DynamoDB transaction cancelled: ${reasons.map((r) => r.Code).join(', ')}`, {
            cause: err,
            retryable: true,
          });
        }
        const ms = Math.min(200, 5 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random());
        await new Promise((r) => setTimeout(r, ms));
      }
    }
  }

  private addCapacity(cc: ConsumedCapacity | ConsumedCapacity[] | undefined, kind: 'read' | 'write'): void {
    for (const c of Array.isArray(cc) ? cc : cc ? [cc] : []) {
      const rcu = c.ReadCapacityUnits ?? (kind === 'read' ? (c.CapacityUnits ?? 0) : 0);
      const wcu = c.WriteCapacityUnits ?? (kind === 'write' ? (c.CapacityUnits ?? 0) : 0);
      this.usage.rcu += rcu;
      this.usage.wcu += wcu;
      if (rcu) this.metrics?.count('dynamodb.rcu', rcu);
      if (wcu) this.metrics?.count('dynamodb.wcu', wcu);
    }
  }
}
