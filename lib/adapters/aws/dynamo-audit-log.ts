/**
 * The audit log on DynamoDB (lib/engine/model/audit-log.ts), in the kv table: a counter
 * item `alseq` numbers the events (UpdateItem ADD, so racing writers get distinct ids) and
 * each event is an item `al:<id>`. Reading every event reads the counter and then each id
 * with parallel GetItems (as dynamo-assets.ts does: the same read units as BatchGetItem and
 * one action fewer to grant); an id whose put never landed (a writer that died between the
 * two writes) is skipped. Only the API server writes and reads it, with the user's credentials.
 */
import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { AuditEvent, AuditLogStore } from '../../engine/index.js';
import { Expr, type Item } from './dynamo-codec.js';
import { getItem } from './dynamo-cas.js';
import type { DynamoRequests } from './dynamo-requests.js';
import type { TableNames } from './dynamo-schema.js';

const SEQ_KEY: Item = { pk: { S: 'alseq' } };
const key = (id: number): Item => ({ pk: { S: `al:${id}` } });
/** GetItems in flight at once when listing. */
const PARALLEL = 16;

/**
 * @example
 * const log = new DynamoAuditLog(requests, tableNames('airless-'));
 * await log.appendAuditEvent({ when: Date.now(), event: 'patch_dag', dagId: 'etl' });
 */
export class DynamoAuditLog implements AuditLogStore {
  constructor(private readonly r: DynamoRequests, private readonly t: Pick<TableNames, 'kv'>) {}

  async appendAuditEvent(e: Omit<AuditEvent, 'id'>): Promise<AuditEvent> {
    const x = new Expr();
    const out = await this.r.send<{ Attributes?: Item }>(
      new UpdateItemCommand({ TableName: this.t.kv, Key: SEQ_KEY, UpdateExpression: `ADD ${x.name('n')} ${x.value({ N: '1' })}`, ReturnValues: 'UPDATED_NEW', ...x.params(), ReturnConsumedCapacity: 'TOTAL' }),
      'write',
    );
    const kept: AuditEvent = { ...e, id: Number(out.Attributes?.['n']?.N) };
    await this.r.send(new PutItemCommand({ TableName: this.t.kv, Item: { ...key(kept.id), v: { S: JSON.stringify(kept) } }, ReturnConsumedCapacity: 'TOTAL' }), 'write');
    return kept;
  }

  async getAuditEvent(id: number): Promise<AuditEvent | undefined> {
    if (!Number.isSafeInteger(id) || id < 1) return undefined;
    const item = await getItem(this.r, this.t.kv, key(id));
    return item?.['v']?.S ? (JSON.parse(item['v'].S) as AuditEvent) : undefined;
  }

  async listAuditEvents(): Promise<AuditEvent[]> {
    const n = Number((await getItem(this.r, this.t.kv, SEQ_KEY))?.['n']?.N ?? 0);
    const out: AuditEvent[] = [];
    for (let from = 1; from <= n; from += PARALLEL) {
      const ids = Array.from({ length: Math.min(PARALLEL, n - from + 1) }, (_v, i) => from + i);
      for (const e of await Promise.all(ids.map((id) => this.getAuditEvent(id)))) if (e) out.push(e);
    }
    return out;
  }
}
