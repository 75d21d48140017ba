/**
 * The asset operations of the Store port on DynamoDB (lib/engine/model/asset-store.ts), in
 * the `assets` table (partition `pk`, sort `sk`):
 * - `R` / `<uri>`: the registry, one partition (listed with one query; read once per event);
 * - `W#<source>` / `<uri>\0<watcher>`: the watcher index, one partition per bucket or queue;
 * - `E#<hash>` / `E`: one item per event, found by the hash of its asset and dedup key (so
 *   the put of a redelivered event fails its condition), listed per asset by time through
 *   the KEYS_ONLY index `byAsset` (`asset`, `ref`): marking an event queued or consumed then
 *   writes no index entry;
 * - `Q#<dagId>` / `Q`: a DAG's queue: `gen`, `openedAt`, and per asset id `u:<id>` (its URI),
 *   `p:<id>` (a string set of queued refs) and `o:<id>` (more queued than listed).
 * Queueing an event is one transaction with the event item (`queuedFor` gains the DAG on
 * condition it lacks it), so an event is queued at most once per DAG even when two
 * deliveries of it race. Sets make the rest idempotent.
 */
import { DeleteItemCommand, GetItemCommand, PutItemCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { assetId, parseAssetEventRef } from '../../engine/index.js';
import type { AssetEventRecord, AssetQueue, AssetRecord, AssetWatcherEntry, ConsumeResult, QueueOutcome } from '../../engine/index.js';
import { Expr, decodeFields, decodeValue, encodeFields, encodeValue, type Item } from './dynamo-codec.js';
import { getItem } from './dynamo-cas.js';
import type { DynamoRequests } from './dynamo-requests.js';

const CC = { ReturnConsumedCapacity: 'TOTAL' } as const;
const isCondFail = (err: unknown): boolean => (err as Error).name === 'ConditionalCheckFailedException';
const eventKey = (hash: string): Item => ({ pk: { S: `E#${hash}` }, sk: { S: 'E' } });
const queueKey = (dagId: string): Item => ({ pk: { S: `Q#${dagId}` }, sk: { S: 'Q' } });
const watcherKey = (w: AssetWatcherEntry): Item => ({ pk: { S: `W#${w.source}` }, sk: { S: `${w.uri}\u0000${w.watcher.name}` } });
const RECORD_SKIP = new Set(['pk', 'sk']);

async function decodeEvent(item: Item): Promise<AssetEventRecord> {
  const ref = item['ref']!.S!;
  const ev: AssetEventRecord = {
    ref, id: Number(item['id']!.N), uri: item['asset']!.S!, timestamp: Number(item['timestamp']!.N),
    extra: (await decodeValue(item['extra']!)) as Record<string, unknown>, origin: item['origin']!.S as AssetEventRecord['origin'],
  };
  if (item['source']) ev.source = (await decodeValue(item['source'])) as AssetEventRecord['source'];
  if (item['queuedFor']?.SS) ev.queuedFor = [...item['queuedFor'].SS].sort();
  if (item['consumedBy']?.SS) ev.consumedBy = [...item['consumedBy'].SS].sort();
  if (item['expiresAt']?.N) ev.expiresAt = Number(item['expiresAt'].N);
  return ev;
}

function decodeQueue(dagId: string, item: Item): AssetQueue {
  const q: AssetQueue = { dagId, gen: Number(item['gen']?.N ?? 0), openedAt: Number(item['openedAt']?.N ?? 0), queued: {} };
  const overflow: string[] = [];
  for (const [k, av] of Object.entries(item)) {
    if (!k.startsWith('u:')) continue;
    const id = k.slice(2);
    const uri = av.S!;
    const refs = item[`p:${id}`]?.SS;
    if (refs?.length) q.queued[uri] = [...refs].sort();
    if (item[`o:${id}`]?.BOOL) overflow.push(uri);
  }
  if (overflow.length) q.overflow = overflow.sort();
  return q;
}

/**
 * @example
 * const assets = new DynamoAssets(requests, tableNames('airless-').assets);
 * await assets.queueAssetEvent('report', 's3://lake/raw', ref, Date.now(), 100);
 */
export class DynamoAssets {
  constructor(private readonly r: DynamoRequests, private readonly table: string) {}

  async putAssetRecord(rec: AssetRecord): Promise<void> {
    const item = { pk: { S: 'R' }, sk: { S: rec.uri }, ...encodeFields(rec) };
    await this.r.send(new PutItemCommand({ TableName: this.table, Item: item, ...CC }), 'write');
  }

  async getAssetRecord(uri: string): Promise<AssetRecord | undefined> {
    const item = await getItem(this.r, this.table, { pk: { S: 'R' }, sk: { S: uri } });
    return item && this.decodeRecord(item);
  }

  async listAssetRecords(): Promise<AssetRecord[]> {
    const x = new Expr();
    const items = await this.r.queryAll({ TableName: this.table, KeyConditionExpression: `${x.name('pk')} = ${x.value({ S: 'R' })}`, ConsistentRead: true, ...x.params() });
    return Promise.all(items.map((i) => this.decodeRecord(i)));
  }

  private async decodeRecord(item: Item): Promise<AssetRecord> {
    const rest: Item = {};
    for (const [k, v] of Object.entries(item)) if (!RECORD_SKIP.has(k)) rest[k] = v;
    return (await decodeFields(rest)) as unknown as AssetRecord;
  }

  async putAssetWatcher(w: AssetWatcherEntry): Promise<void> {
    const item = { ...watcherKey(w), uri: { S: w.uri }, watcher: encodeValue('watcher', w.watcher) };
    await this.r.send(new PutItemCommand({ TableName: this.table, Item: item, ...CC }), 'write');
  }

  async deleteAssetWatcher(w: AssetWatcherEntry): Promise<void> {
    await this.r.send(new DeleteItemCommand({ TableName: this.table, Key: watcherKey(w), ...CC }), 'write');
  }

  async listAssetWatchers(source: string): Promise<AssetWatcherEntry[]> {
    const x = new Expr();
    const items = await this.r.queryAll({ TableName: this.table, KeyConditionExpression: `${x.name('pk')} = ${x.value({ S: `W#${source}` })}`, ...x.params() });
    return Promise.all(items.map(async (i) => ({ source, uri: i['uri']!.S!, watcher: (await decodeValue(i['watcher']!)) as AssetWatcherEntry['watcher'] })));
  }

  async putAssetEvent(e: AssetEventRecord): Promise<{ created: boolean; event: AssetEventRecord }> {
    const { hash } = parseAssetEventRef(e.ref);
    const item: Item = {
      ...eventKey(hash), asset: { S: e.uri }, ref: { S: e.ref }, id: { N: String(e.id) }, timestamp: { N: String(e.timestamp) },
      extra: encodeValue('extra', e.extra), origin: { S: e.origin },
    };
    if (e.source) item['source'] = encodeValue('source', e.source);
    if (e.expiresAt !== undefined) item['expiresAt'] = { N: String(Math.ceil(e.expiresAt)) };
    try {
      await this.r.send(new PutItemCommand({
        TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD', ...CC,
      }), 'write');
      return { created: true, event: await decodeEvent(item) };
    } catch (err) {
      if (!isCondFail(err)) throw err;
      this.r.lostRace();
      const old = (err as { Item?: Item }).Item ?? (await getItem(this.r, this.table, eventKey(hash)));
      return { created: false, event: await decodeEvent(old!) };
    }
  }

  async getAssetEvents(refs: readonly string[]): Promise<AssetEventRecord[]> {
    // GetItems in parallel, not BatchGetItem: the same read units, and one action fewer to grant.
    const out = await Promise.all(refs.map(async (ref) => {
      const o = await this.r.send<{ Item?: Item }>(new GetItemCommand({ TableName: this.table, Key: eventKey(parseAssetEventRef(ref).hash), ...CC }), 'read');
      return o.Item && decodeEvent(o.Item);
    }));
    return out.filter((e): e is AssetEventRecord => e !== undefined);
  }

  async listAssetEvents(uri: string, opts: { limit: number; after?: number; before?: number }): Promise<AssetEventRecord[]> {
    const x = new Expr();
    const lo = opts.after === undefined ? undefined : String(Math.max(0, Math.ceil(opts.after))).padStart(13, '0');
    const hi = opts.before === undefined ? undefined : String(Math.max(0, Math.ceil(opts.before))).padStart(13, '0');
    let key = `${x.name('asset')} = ${x.value({ S: uri })}`;
    if (lo !== undefined && hi !== undefined) key += ` AND ${x.name('ref')} BETWEEN ${x.value({ S: lo })} AND ${x.value({ S: hi })}`;
    else if (lo !== undefined) key += ` AND ${x.name('ref')} >= ${x.value({ S: lo })}`;
    else if (hi !== undefined) key += ` AND ${x.name('ref')} < ${x.value({ S: hi })}`;
    const keys = await this.r.queryAll({ TableName: this.table, IndexName: 'byAsset', KeyConditionExpression: key, ScanIndexForward: false, Limit: opts.limit, ...x.params() }, opts.limit);
    const refs = keys.map((k) => k['ref']!.S!).filter((ref) => hi === undefined || ref < hi);
    return this.getAssetEvents(refs);
  }

  async markAssetEventsConsumed(refs: readonly string[], runKey: string): Promise<void> {
    await Promise.all(refs.map((ref) => this.r.send(new UpdateItemCommand({
      TableName: this.table, Key: eventKey(parseAssetEventRef(ref).hash), UpdateExpression: 'ADD consumedBy :r', ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':r': { SS: [runKey] } }, ...CC,
    }), 'write').catch((err) => { if (!isCondFail(err)) throw err; })));
  }

  async queueAssetEvent(dagId: string, uri: string, ref: string, now: number, cap: number): Promise<QueueOutcome> {
    const id = String(assetId(uri));
    const mark = {
      Update: {
        TableName: this.table, Key: eventKey(parseAssetEventRef(ref).hash),
        UpdateExpression: 'ADD queuedFor :d', ConditionExpression: 'attribute_exists(pk) AND NOT contains(queuedFor, :dag)',
        ExpressionAttributeValues: { ':d': { SS: [dagId] }, ':dag': { S: dagId } },
      },
    };
    const opened: Record<string, AttributeValue> = { ':u': { S: uri }, ':zero': { N: '0' }, ':now': { N: String(now) } };
    const names = { '#u': `u:${id}`, '#p': `p:${id}`, '#o': `o:${id}` };
    const first = await this.r.transact([mark, {
      Update: {
        TableName: this.table, Key: queueKey(dagId),
        UpdateExpression: 'ADD #p :r SET #u = :u, gen = if_not_exists(gen, :zero), openedAt = if_not_exists(openedAt, :now)',
        ConditionExpression: 'attribute_not_exists(#p) OR size(#p) < :cap',
        ExpressionAttributeNames: { '#u': names['#u'], '#p': names['#p'] },
        ExpressionAttributeValues: { ...opened, ':r': { SS: [ref] }, ':cap': { N: String(cap) } },
      },
    }]);
    if (first.ok) return 'queued';
    if (first.reasons[0]?.Code === 'ConditionalCheckFailed') return 'already';
    // The asset's list is full: the event is counted (an overflow mark), not listed.
    const second = await this.r.transact([mark, {
      Update: {
        TableName: this.table, Key: queueKey(dagId),
        UpdateExpression: 'SET #u = :u, #o = :t, gen = if_not_exists(gen, :zero), openedAt = if_not_exists(openedAt, :now)',
        ExpressionAttributeNames: { '#u': names['#u'], '#o': names['#o'] },
        ExpressionAttributeValues: { ...opened, ':t': { BOOL: true } },
      },
    }]);
    return second.ok ? 'overflow' : 'already';
  }

  async getAssetQueue(dagId: string): Promise<AssetQueue | undefined> {
    const item = await getItem(this.r, this.table, queueKey(dagId));
    return item && decodeQueue(dagId, item);
  }

  async consumeAssetQueue(dagId: string, gen: number, refs: Readonly<Record<string, readonly string[]>>, now: number): Promise<ConsumeResult> {
    const x = new Expr();
    const deletes: string[] = [];
    const removes: string[] = [];
    for (const [uri, list] of Object.entries(refs)) {
      const id = assetId(uri);
      if (list.length) deletes.push(`${x.name(`p:${id}`)} ${x.value({ SS: [...list] })}`);
      removes.push(x.name(`o:${id}`));
    }
    const update = [
      `SET ${x.name('gen')} = ${x.value({ N: String(gen + 1) })}, ${x.name('openedAt')} = ${x.value({ N: String(now) })}`,
      removes.length ? `REMOVE ${removes.join(', ')}` : '',
      deletes.length ? `DELETE ${deletes.join(', ')}` : '',
    ].filter(Boolean).join(' ');
    const cond = gen === 0 ? `(attribute_not_exists(${x.name('gen')}) OR ${x.name('gen')} = ${x.value({ N: '0' })})` : `${x.name('gen')} = ${x.value({ N: String(gen) })}`;
    try {
      const out = await this.r.send<{ Attributes?: Item }>(new UpdateItemCommand({
        TableName: this.table, Key: queueKey(dagId), UpdateExpression: update, ConditionExpression: cond, ...x.params(),
        ReturnValues: 'ALL_NEW', ReturnValuesOnConditionCheckFailure: 'ALL_OLD', ...CC,
      }), 'write');
      return { ok: true, item: decodeQueue(dagId, out.Attributes ?? {}) };
    } catch (err) {
      if (!isCondFail(err)) throw err;
      this.r.lostRace();
      const old = (err as { Item?: Item }).Item;
      return { ok: false, current: old && decodeQueue(dagId, old), reason: 'condition' };
    }
  }

  async clearAssetQueue(dagId: string, uri?: string): Promise<void> {
    if (uri === undefined) {
      await this.r.send(new DeleteItemCommand({ TableName: this.table, Key: queueKey(dagId), ...CC }), 'write');
      return;
    }
    const id = assetId(uri);
    await this.r.send(new UpdateItemCommand({
      TableName: this.table, Key: queueKey(dagId), UpdateExpression: 'REMOVE #p, #o', ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#p': `p:${id}`, '#o': `o:${id}` }, ...CC,
    }), 'write').catch((err) => { if (!isCondFail(err)) throw err; });
  }
}
