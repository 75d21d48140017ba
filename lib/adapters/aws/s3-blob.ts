/**
 * Large values (XCom too big for an item, logs) in S3 under `blobs/`.
 */
import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { InvalidInputError, NotFoundError } from '../../engine/index.js';
import type { Metrics } from '../../engine/index.js';
import { isAwsError, wrapAwsError } from './aws-errors.js';
import type { BlobStore } from './blob.js';

export interface S3BlobStoreOptions {
  s3: S3Client;
  bucket: string;
  /** @default 'blobs/' */
  prefix?: string;
  metrics?: Metrics;
}

/**
 * BlobStore on S3.
 *
 * @example
 * const blobs = new S3BlobStore({ s3, bucket: 'airless-data' });
 * await blobs.put('xcom/etl/r1/extract/return_value', new TextEncoder().encode('{"rows":1}'));
 * const bytes = await blobs.get('xcom/etl/r1/extract/return_value');
 */
export class S3BlobStore implements BlobStore {
  private readonly s3: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly metrics?: Metrics;

  constructor(opts: S3BlobStoreOptions) {
    this.s3 = opts.s3;
    this.bucket = opts.bucket;
    this.prefix = opts.prefix ?? 'blobs/';
    this.metrics = opts.metrics;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const Key = this.key(key);
    this.metrics?.count('s3.requests');
    try {
      await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: bytes, ContentLength: bytes.byteLength }));
    } catch (e) {
      throw wrapAwsError(`S3 PutObject s3://${this.bucket}/${Key}`, e);
    }
  }

  /** @throws NotFoundError when no blob has this key. */
  async get(key: string): Promise<Uint8Array> {
    const Key = this.key(key);
    this.metrics?.count('s3.requests');
    try {
      const res = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
      if (!res.Body) throw new NotFoundError(`blob s3://${this.bucket}/${Key} has no body`);
      return await res.Body.transformToByteArray();
    } catch (e) {
      if (e instanceof NoSuchKey || isAwsError(e, 'NoSuchKey', 'NotFound')) {
        throw new NotFoundError(`blob not found: s3://${this.bucket}/${Key}`, { cause: e });
      }
      throw wrapAwsError(`S3 GetObject s3://${this.bucket}/${Key}`, e);
    }
  }

  private key(key: string): string {
    if (key.length === 0 || key.startsWith('/')) throw new InvalidInputError(`invalid blob key "${key}"`);
    return `${this.prefix}${key}`;
  }
}
