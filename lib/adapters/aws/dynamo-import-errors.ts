/**
 * Import errors on DynamoDB (lib/engine/model/import-error-store.ts): one kv item,
 * `pk = import-errors`, holding the records as JSON with the next id and a revision. Few
 * files fail at once and each message is one line, so one item holds them; every write is
 * a PutItem conditional on the revision it read (retried on a lost race), so two writers
 * never lose a record or reuse an id. Written by the CLI (`airless dev`), never by a stack's
 * functions: no role of the stack needs a grant for it.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { ImportErrorRecord, ImportErrorStore } from '../../engine/index.js';
import type { Item } from './dynamo-codec.js';
import { getItem } from './dynamo-cas.js';
import type { DynamoRequests } from './dynamo-requests.js';
import type { TableNames } from './dynamo-schema.js';

const KEY: Item = { pk: { S: 'import-errors' } };
/** A message is cut here: the item stays far below DynamoDB's 400 KB for any number of files a folder holds. */
const MAX_MESSAGE = 2_000;

interface State { rev: number; nextId: number; errors: ImportErrorRecord[] }

/**
 * @example
 * const errors = new DynamoImportErrors(requests, tableNames('airless-'));
 * await errors.listImportErrors();
 */
export class DynamoImportErrors implements ImportErrorStore {
  constructor(private readonly r: DynamoRequests, private readonly t: Pick<TableNames, 'kv'>) {}

  async putImportError(file: string, message: string, at: number): Promise<ImportErrorRecord> {
    let rec: ImportErrorRecord | undefined;
    await this.update((s) => {
      const old = s.errors.find((e) => e.file === file);
      rec = { id: old?.id ?? s.nextId, file, message: message.slice(0, MAX_MESSAGE), at };
      return { ...s, nextId: old ? s.nextId : s.nextId + 1, errors: [...s.errors.filter((e) => e.file !== file), rec] };
    });
    return rec!;
  }

  async clearImportErrors(keep: readonly string[] = []): Promise<void> {
    const s = await this.read();
    if (s.errors.every((e) => keep.includes(e.file))) return;
    await this.update((cur) => ({ ...cur, errors: cur.errors.filter((e) => keep.includes(e.file)) }));
  }

  async listImportErrors(): Promise<ImportErrorRecord[]> {
    return (await this.read()).errors.sort((a, b) => a.id - b.id);
  }

  private async read(): Promise<State> {
    const item = await getItem(this.r, this.t.kv, KEY);
    if (!item?.['errors']?.S) return { rev: 0, nextId: 1, errors: [] };
    return { rev: Number(item['rev']!.N), nextId: Number(item['nextId']!.N), errors: JSON.parse(item['errors'].S) as ImportErrorRecord[] };
  }

  /** Applies `change` to the state read, written only if nobody wrote since; retried otherwise. */
  private async update(change: (s: State) => State): Promise<void> {
    for (;;) {
      const s = await this.read();
      const next = change(s);
      try {
        await this.r.send(new PutItemCommand({
          TableName: this.t.kv,
          Item: { ...KEY, rev: { N: String(s.rev + 1) }, nextId: { N: String(next.nextId) }, errors: { S: JSON.stringify(next.errors) } },
          ConditionExpression: s.rev === 0 ? 'attribute_not_exists(pk)' : '#rev = :rev',
          ...(s.rev === 0 ? {} : { ExpressionAttributeNames: { '#rev': 'rev' }, ExpressionAttributeValues: { ':rev': { N: String(s.rev) } } }),
          ReturnConsumedCapacity: 'TOTAL',
        }), 'write');
        return;
      } catch (err) {
        if ((err as Error).name !== 'ConditionalCheckFailedException') throw err;
      }
    }
  }
}
