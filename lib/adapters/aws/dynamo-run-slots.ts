/**
 * maxActiveRuns slots on DynamoDB (lib/engine/model/run-slots-store.ts): a map `slots`
 * (run id to the time it took its slot) on the DAG's item in the dags table, taken with
 * `SET slots.<run>` under the condition that the run holds one already or fewer than max
 * runs do (`size(slots)`), and given back with `REMOVE`. One single-item write each,
 * idempotent; no transaction. The item stays small while few runs are active (some 50
 * bytes a run: 1 KB holds about 20).
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { RunSlotTake } from '../../engine/index.js';
import { Expr, type Item } from './dynamo-codec.js';
import type { DynamoRequests } from './dynamo-requests.js';

/** The attribute of the DAG item that holds the map. */
export const SLOTS_ATTR = 'slots';
/** Its value on a new DAG item: an empty map, so that `SET slots.<run>` has a parent. */
export const NO_SLOTS = { M: {} };

const isCondFail = (err: unknown): boolean => (err as Error).name === 'ConditionalCheckFailedException';
/** A nested path under an attribute the item lacks (a DAG item written before the map existed). */
const isNoParent = (err: unknown): boolean => (err as Error).name === 'ValidationException' && /document path/i.test((err as Error).message);

/**
 * @example
 * const slots = new DynamoRunSlots(requests, tables.dags);
 * await slots.take('etl', 'manual__2026-01-01T00:00:00.000Z', 16, Date.now()); // 'taken'
 */
export class DynamoRunSlots {
  constructor(private readonly r: DynamoRequests, private readonly dags: string) {}

  async take(dagId: string, runId: string, max: number, now: number): Promise<RunSlotTake> {
    for (let attempt = 0; ; attempt++) {
      const x = new Expr();
      const slots = x.name(SLOTS_ATTR);
      const mine = `${slots}.${x.name(runId)}`;
      const cond = `attribute_exists(${x.name('dagId')}) AND (attribute_exists(${mine}) OR size(${slots}) < ${x.value({ N: String(max) })})`;
      try {
        const out = await this.r.send<{ Attributes?: Item }>(new UpdateItemCommand({
          TableName: this.dags, Key: { dagId: { S: dagId } }, ConditionExpression: cond,
          UpdateExpression: `SET ${mine} = if_not_exists(${mine}, ${x.value({ N: String(now) })})`, ...x.params(),
          ReturnValues: 'UPDATED_OLD', ReturnValuesOnConditionCheckFailure: 'ALL_OLD', ReturnConsumedCapacity: 'TOTAL',
        }), 'write');
        return out.Attributes?.[SLOTS_ATTR]?.M?.[runId] ? 'held' : 'taken';
      } catch (err) {
        const old = (err as { Item?: Item }).Item;
        const noMap = isNoParent(err) || (isCondFail(err) && old !== undefined && old[SLOTS_ATTR] === undefined);
        if (noMap && attempt === 0 && (await this.addMap(dagId))) continue;
        if (!isCondFail(err)) throw err;
        this.r.lostRace();
        return old ? 'full' : 'no_dag';
      }
    }
  }

  async release(dagId: string, runId: string): Promise<number | undefined> {
    const x = new Expr();
    try {
      const out = await this.r.send<{ Attributes?: Item }>(new UpdateItemCommand({
        TableName: this.dags, Key: { dagId: { S: dagId } }, ConditionExpression: `attribute_exists(${x.name('dagId')})`,
        UpdateExpression: `REMOVE ${x.name(SLOTS_ATTR)}.${x.name(runId)}`, ...x.params(),
        ReturnValues: 'ALL_NEW', ReturnConsumedCapacity: 'TOTAL',
      }), 'write');
      return Object.keys(out.Attributes?.[SLOTS_ATTR]?.M ?? {}).length;
    } catch (err) {
      if (isNoParent(err)) return 0;
      if (!isCondFail(err)) throw err;
      return undefined;
    }
  }

  /** Gives a DAG item written before the map existed its empty map; false when the DAG is gone. */
  private async addMap(dagId: string): Promise<boolean> {
    const x = new Expr();
    const slots = x.name(SLOTS_ATTR);
    try {
      await this.r.send(new UpdateItemCommand({
        TableName: this.dags, Key: { dagId: { S: dagId } }, ConditionExpression: `attribute_exists(${x.name('dagId')})`,
        UpdateExpression: `SET ${slots} = if_not_exists(${slots}, ${x.value(NO_SLOTS)})`, ...x.params(), ReturnConsumedCapacity: 'TOTAL',
      }), 'write');
      return true;
    } catch (err) {
      if (!isCondFail(err)) throw err;
      return false;
    }
  }
}

/** The holders read from a DAG item (and the item without them, for the field decoder). */
export function slotsOf(item: Item): { rest: Item; runSlots: Record<string, number> } {
  const { [SLOTS_ATTR]: av, ...rest } = item;
  const runSlots = Object.fromEntries(Object.entries(av?.M ?? {}).map(([k, v]) => [k, Number(v.N ?? 0)]).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { rest, runSlots };
}
