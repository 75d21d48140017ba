/**
 * The DAG's latest-success mark on DynamoDB (lib/engine/model/prev-success.ts): one kv item
 * per DAG, `pk = ps:<dagId>`, written with UpdateItem conditional on its logical date being
 * no later (or the item absent; a rerun of the marked run refreshes its times) and read strongly consistent, so the functions that end runs
 * need no action on the kv table beyond the GetItem and UpdateItem they hold.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { PrevSuccessStore, RunSuccessMark } from '../../engine/index.js';
import { Expr, type Item } from './dynamo-codec.js';
import { getItem } from './dynamo-cas.js';
import type { DynamoRequests } from './dynamo-requests.js';
import type { TableNames } from './dynamo-schema.js';

const key = (dagId: string): Item => ({ pk: { S: `ps:${dagId}` } });
const FIELDS = ['logicalDate', 'dataIntervalStart', 'dataIntervalEnd', 'startedAt', 'endedAt'] as const;

/**
 * @example
 * const marks = new DynamoPrevSuccess(requests, tableNames('airless-'));
 * await marks.getLastSuccess('etl');
 */
export class DynamoPrevSuccess implements PrevSuccessStore {
  constructor(private readonly r: DynamoRequests, private readonly t: Pick<TableNames, 'kv'>) {}

  async putLastSuccess(dagId: string, mark: RunSuccessMark): Promise<boolean> {
    const x = new Expr();
    const cond = `attribute_not_exists(${x.name('pk')}) OR ${x.name('logicalDate')} <= ${x.value({ N: String(mark.logicalDate) })}`;
    x.set('runId', { S: mark.runId });
    for (const f of FIELDS) {
      if (mark[f] !== undefined) x.set(f, { N: String(mark[f]) });
      else if (f === 'startedAt' || f === 'endedAt') x.remove(f);
    }
    try {
      await this.r.send(new UpdateItemCommand({
        TableName: this.t.kv, Key: key(dagId), UpdateExpression: x.update(), ConditionExpression: cond, ...x.params(), ReturnConsumedCapacity: 'TOTAL',
      }), 'write');
      return true;
    } catch (err) {
      if ((err as Error).name !== 'ConditionalCheckFailedException') throw err;
      return false;
    }
  }

  async getLastSuccess(dagId: string): Promise<RunSuccessMark | undefined> {
    const item = await getItem(this.r, this.t.kv, key(dagId));
    if (!item?.['runId']?.S) return undefined;
    const mark: RunSuccessMark = { runId: item['runId'].S, logicalDate: 0, dataIntervalStart: 0, dataIntervalEnd: 0 };
    for (const f of FIELDS) if (item[f]?.N !== undefined) mark[f] = Number(item[f].N);
    return mark;
  }
}
