/**
 * The DAG registry of the DynamoDB store: one item per DAG in the dags table, its spec in
 * its own kv item. Part of {@link DynamoStore} (dynamo-store.ts), which delegates here.
 */
import { DeleteItemCommand, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { deepFreeze, type Cas, type DagRecord } from '../../engine/index.js';
import type { BlobStore } from './blob.js';
import { casUpdate, getItem } from './dynamo-cas.js';
import { Expr, and, decodeFields, decodeValue, encodeFields, encodeJson, exists, numberIs, type Item } from './dynamo-codec.js';
import type { DynamoRequests } from './dynamo-requests.js';
import { NO_SLOTS, slotsOf } from './dynamo-run-slots.js';
import type { TableNames } from './dynamo-schema.js';

const NO_RETURN = { ReturnConsumedCapacity: 'TOTAL' } as const;
const blobPath = (...parts: string[]): string => parts.map(encodeURIComponent).join('/');

/**
 * The spec lives in its own kv item (`d:<dagId>`), not in the DAG item: the DAG item
 * holds the activeRuns counter, which moves in a transaction at every run start and
 * end, and a transactional write costs 2 units per KB of the whole item. A spec of a
 * few KB there made those two writes cost more than all of a run's task writes.
 *
 * @example
 * const dags = new DynamoDags(requests, tableNames('airless-'), blobs, (x, patch) => patchInto(x, patch));
 * await dags.putDag(record);
 */
export class DynamoDags {
  private readonly specs = new Map<string, DagRecord['spec']>();

  constructor(
    private readonly r: DynamoRequests,
    private readonly t: Pick<TableNames, 'dags' | 'kv'>,
    private readonly blobs: BlobStore | undefined,
    /** The store's patch writer (`null` removes, `undefined` is ignored). */
    private readonly patchInto: (x: Expr, patch: object) => Promise<void>,
  ) {}

  async putDag(rec: DagRecord): Promise<void> {
    await this.putSpec(rec.dagId, rec.bundleVersion, rec.spec);
    const { spec: _spec, activeRuns: _active, runSlots: _slots, ...rest } = rec;
    await this.r.send(new PutItemCommand({ TableName: this.t.dags, Item: { ...encodeFields(rest), slots: NO_SLOTS }, ...NO_RETURN }), 'write');
  }

  async getDag(dagId: string): Promise<DagRecord | undefined> {
    const item = await getItem(this.r, this.t.dags, { dagId: { S: dagId } });
    return item && this.decodeDag(item);
  }

  private async putSpec(dagId: string, version: string, spec: DagRecord['spec']): Promise<void> {
    const v = await encodeJson(spec, blobPath('spec', dagId), `spec of dag ${dagId}`, this.blobs);
    await this.r.send(
      new PutItemCommand({ TableName: this.t.kv, Item: { pk: { S: `d:${dagId}` }, v, version: { S: version } }, ...NO_RETURN }),
      'write',
    );
  }

  private async decodeDag(whole: Item): Promise<DagRecord | undefined> {
    const { rest: item, runSlots } = slotsOf(whole);
    // `activeRuns` is the number of slot holders (a counter of that name, moved in transactions before issue 22, is ignored).
    const { activeRuns: _legacy, ...decoded } = await decodeFields(item);
    const active = Object.keys(runSlots).length;
    const fields = (active ? { ...decoded, activeRuns: active, runSlots } : decoded) as unknown as Omit<DagRecord, 'spec'>;
    // A spec never changes within a bundle version: read it once per version and process
    // (a DAG is read at every run start and end). Shared, so frozen.
    const cacheKey = `${fields.dagId}\u0000${fields.bundleVersion}`;
    const cached = this.specs.get(cacheKey);
    if (cached) return { ...fields, spec: cached };
    const specItem = await getItem(this.r, this.t.kv, { pk: { S: `d:${fields.dagId}` } });
    if (!specItem?.['v']) return undefined;
    const spec = (await decodeValue(specItem['v'], this.blobs)) as DagRecord['spec'];
    if (specItem['version']?.S === fields.bundleVersion) this.specs.set(cacheKey, deepFreeze(spec));
    return { ...fields, spec };
  }

  async listDags(): Promise<DagRecord[]> {
    const out: DagRecord[] = [];
    let start: Item | undefined;
    do {
      const page = await this.r.send<{ Items?: Item[]; LastEvaluatedKey?: Item }>(
        new ScanCommand({ TableName: this.t.dags, ExclusiveStartKey: start, ConsistentRead: true, ...NO_RETURN }),
        'read',
      );
      for (const item of page.Items ?? []) {
        const d = await this.decodeDag(item);
        if (d) out.push(d);
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return out.sort((a, b) => (a.dagId < b.dagId ? -1 : 1));
  }

  async updateDag(dagId: string, patch: Partial<Omit<DagRecord, 'dagId'>>, expectNextTickAt?: number | null): Promise<Cas<DagRecord>> {
    const x = new Expr();
    const cond = and(exists(x, 'dagId'), expectNextTickAt !== undefined && numberIs(x, 'nextTickAt', expectNextTickAt));
    const { spec, ...rest } = patch;
    await this.patchInto(x, rest);
    if (spec) {
      // The spec is written only once the DAG item's condition holds, so a lost race
      // leaves the spec as it was.
      const check = await getItem(this.r, this.t.dags, { dagId: { S: dagId } });
      if (!check) return { ok: false, current: undefined, reason: 'condition' };
      if (expectNextTickAt !== undefined && ((check['nextTickAt']?.N !== undefined ? Number(check['nextTickAt'].N) : null) !== expectNextTickAt)) {
        return { ok: false, current: await this.decodeDag(check), reason: 'condition' };
      }
      await this.putSpec(dagId, patch.bundleVersion ?? String(check['bundleVersion']?.S), spec);
    }
    return casUpdate(this.r, this.t.dags, { dagId: { S: dagId } }, x, cond, async (i) => (await this.decodeDag(i))!);
  }

  async deleteDag(dagId: string): Promise<void> {
    await this.r.send(new DeleteItemCommand({ TableName: this.t.dags, Key: { dagId: { S: dagId } }, ...NO_RETURN }), 'write');
    await this.r.send(new DeleteItemCommand({ TableName: this.t.kv, Key: { pk: { S: `d:${dagId}` } }, ...NO_RETURN }), 'write');
  }
}
