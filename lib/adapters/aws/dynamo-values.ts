/**
 * XCom values and signals of the DynamoDB store: kv items whose value may be offloaded to
 * the blob store. Part of {@link DynamoStore} (dynamo-store.ts), which delegates here.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { SignalRecord, TaskKey, XcomKey } from '../../engine/index.js';
import { expiresAtSeconds, isExpired } from '../expiry.js';
import { xcomFromJson, xcomToJson } from '../xcom-codec.js';
import type { BlobStore } from './blob.js';
import { getItem } from './dynamo-cas.js';
import { decodeFields, decodeValue, encodeFields, encodeJson, encodeValue, type Item } from './dynamo-codec.js';
import type { DynamoRequests } from './dynamo-requests.js';
import { clearDynamoXcoms, indexXcomKey } from './dynamo-xcom-clear.js';

const NO_RETURN = { ReturnConsumedCapacity: 'TOTAL' } as const;
const blobPath = (...parts: string[]): string => parts.map(encodeURIComponent).join('/');

/**
 * @example
 * const values = new DynamoValues(requests, 'airless-kv', blobs);
 * await values.putXcom({ dagId, runId, taskId, key: 'return_value' }, 42);
 */
export class DynamoValues {
  constructor(
    private readonly r: DynamoRequests,
    private readonly kv: string,
    private readonly blobs: BlobStore | undefined,
  ) {}

  async putXcom(key: XcomKey, value: unknown, expiresAt?: number): Promise<void> {
    const path = [key.dagId, key.runId, key.taskId, key.key];
    const v = await encodeJson(xcomToJson(value, key), blobPath('xcom', ...path), `XCom ${path.join('/')}`, this.blobs);
    const item: Item = { pk: { S: `x:${JSON.stringify(path)}` }, v };
    if (expiresAt !== undefined) item['ttl'] = { N: String(Math.ceil(expiresAt)) };
    await indexXcomKey(this.r, this.kv, key, expiresAt);
    await this.r.send(new PutItemCommand({ TableName: this.kv, Item: item, ...NO_RETURN }), 'write');
  }

  async clearXcoms(task: TaskKey): Promise<void> {
    await clearDynamoXcoms(this.r, this.kv, task);
  }

  async getXcom(key: XcomKey): Promise<unknown> {
    const item = await getItem(this.r, this.kv, { pk: { S: `x:${JSON.stringify([key.dagId, key.runId, key.taskId, key.key])}` } });
    return item && xcomFromJson(await decodeValue(item['v']!, this.blobs));
  }

  async putSignal(sig: SignalRecord): Promise<void> {
    const item: Item = { ...encodeFields(sig, new Set(['payload'])), pk: { S: `s:${sig.key}` }, ttl: encodeValue('ttl', expiresAtSeconds(sig.expiresAt)) };
    if (sig.payload !== undefined) item['payload'] = await encodeJson(sig.payload, blobPath('signal', sig.key), `payload of signal ${sig.key}`, this.blobs);
    await this.r.send(new PutItemCommand({ TableName: this.kv, Item: item, ...NO_RETURN }), 'write');
  }

  /** `expiresAt` is epoch seconds (ms in rows from before issue 10); TTL deletion, late by up to days, is only the clean-up. */
  async getSignal(key: string, now: number): Promise<SignalRecord | undefined> {
    const item = await getItem(this.r, this.kv, { pk: { S: `s:${key}` } });
    if (!item) return undefined;
    const sig = (await decodeFields(item, this.blobs)) as unknown as SignalRecord;
    return isExpired(sig.expiresAt, now) ? undefined : sig;
  }
}
