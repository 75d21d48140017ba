/**
 * Where values too large for a DynamoDB item go (XCom, run conf). The S3 implementation
 * lives elsewhere; the store needs only these two calls.
 */
import { NotFoundError } from '../../engine/index.js';

/**
 * Byte storage by key. `put` overwrites; `get` of a missing key rejects with NotFoundError.
 *
 * @example
 * await blobs.put('xcom/etl/r1/extract/return_value', bytes);
 * const back = await blobs.get('xcom/etl/r1/extract/return_value');
 */
export interface BlobStore {
  put(key: string, bytes: Uint8Array): Promise<void>;
  get(key: string): Promise<Uint8Array>;
}

/**
 * In-memory {@link BlobStore} for tests and the embedded runtime.
 *
 * @example
 * const blobs = new MemoryBlobStore();
 * new DynamoStore({ client, tablePrefix: 'dev-', blobs });
 */
export class MemoryBlobStore implements BlobStore {
  readonly blobs = new Map<string, Uint8Array>();

  async put(key: string, bytes: Uint8Array): Promise<void> {
    this.blobs.set(key, bytes.slice());
  }

  async get(key: string): Promise<Uint8Array> {
    const b = this.blobs.get(key);
    if (!b) throw new NotFoundError(`blob ${key} not found`);
    return b.slice();
  }
}
