/**
 * `s3_key` sensor (Airflow's S3KeySensor): true when an object exists at `bucket` +
 * `key` (HeadObject), or when at least one object exists under `prefix` (ListObjectsV2).
 * The S3 client comes from an injected factory, so tests use a fake and the poker Lambda
 * shares its client.
 *
 * A prefix poke asks for one key (`MaxKeys: 1`): one key answers the question, S3 bills
 * a LIST request the same whatever `MaxKeys` is, and a one-key page is the smallest answer
 * to parse. A truncated page is not followed when it holds a key (its continuation token is
 * never sent); only a page that holds no key yet says more follow (S3's response "might
 * contain fewer keys" than asked) is followed, so a poke normally costs one request.
 */
// Loaded on the first s3_key poke: runtimes that never poke S3 never pay for the SDK.
import type { HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { SensorPoke } from '../engine/index.js';
import { InvalidInputError } from '../engine/index.js';

/** Poke context of the `s3_key` sensor. `key` may be a full `s3://bucket/key` URL. */
export interface S3KeyPokeContext {
  bucket?: string;
  key?: string;
  prefix?: string;
  region?: string;
}

/** The one method of an S3 client the sensor uses (an `S3Client` fits). */
export interface S3Like {
  send(command: HeadObjectCommand | ListObjectsV2Command): Promise<unknown>;
}

/** Returns the client for a region (undefined: the default region). Called once per region. */
export type S3ClientFactory = (opts: { region?: string }) => S3Like | Promise<S3Like>;

/**
 * An `S3Client` from the environment: the default credential chain, `region` (else
 * AWS_REGION), and AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL for a local S3 (an IP-address
 * endpoint such as http://127.0.0.1:4569 is addressed path-style).
 */
export const defaultS3Client: S3ClientFactory = async ({ region }) => {
  const { S3Client } = await import('@aws-sdk/client-s3');
  return new S3Client(region ? { region } : {});
};
const defaultFactory = defaultS3Client;

/**
 * @example
 * const poke = s3KeySensor(() => new S3Client({}));
 * await poke({ key: 's3://landing/2026-01-01/_SUCCESS' }, { now: Date.now() });
 * await poke({ bucket: 'landing', prefix: '2026-01-01/' }, { now: Date.now() });
 */
export function s3KeySensor(factory: S3ClientFactory = defaultFactory): SensorPoke {
  const clients = new Map<string, Promise<S3Like>>();
  const clientFor = (region?: string) => {
    let c = clients.get(region ?? '');
    if (!c) {
      c = Promise.resolve(factory({ region }));
      clients.set(region ?? '', c);
    }
    return c;
  };
  return async (raw) => {
    const { bucket, key, prefix } = parseTarget(raw as S3KeyPokeContext);
    const s3 = await clientFor((raw as S3KeyPokeContext).region);
    const { HeadObjectCommand, ListObjectsV2Command } = await import('@aws-sdk/client-s3');
    if (key !== undefined) {
      try {
        await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return true;
      } catch (err) {
        const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
        if (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return false;
        throw err;
      }
    }
    let token: string | undefined;
    for (let page = 0; page < MAX_EMPTY_PAGES; page++) {
      const out = (await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 1, ...(token ? { ContinuationToken: token } : {}) }))) as {
        KeyCount?: number;
        Contents?: unknown[];
        IsTruncated?: boolean;
        NextContinuationToken?: string;
      };
      if ((out.KeyCount ?? out.Contents?.length ?? 0) > 0) return true;
      if (!out.IsTruncated || !out.NextContinuationToken) return false;
      token = out.NextContinuationToken;
    }
    // Still only empty pages: not yet; the next poke asks again.
    return false;
  };
}

/** Empty-but-truncated pages a prefix poke follows at most (bounds one poke's requests). */
const MAX_EMPTY_PAGES = 10;

/** Bucket and key or prefix from a poke context; `s3://bucket/key` URLs are split. */
export function parseTarget(pc: S3KeyPokeContext): { bucket: string; key?: string; prefix?: string } {
  let { bucket, key } = pc;
  const { prefix } = pc;
  if (typeof key === 'string' && key.startsWith('s3://')) {
    const rest = key.slice(5);
    const slash = rest.indexOf('/');
    if (slash <= 0) throw new InvalidInputError(`s3_key sensor: "${key}" is not an s3://bucket/key URL`);
    if (bucket !== undefined && bucket !== rest.slice(0, slash)) {
      throw new InvalidInputError(`s3_key sensor: bucket "${bucket}" contradicts the URL ${key}`);
    }
    bucket = rest.slice(0, slash);
    key = rest.slice(slash + 1);
  }
  if (typeof bucket !== 'string' || bucket === '') {
    throw new InvalidInputError('s3_key sensor needs a "bucket" (or a key written as s3://bucket/key)');
  }
  if ((key === undefined) === (prefix === undefined)) {
    throw new InvalidInputError('s3_key sensor needs exactly one of "key" and "prefix"');
  }
  if (key !== undefined && (typeof key !== 'string' || key === '')) throw new InvalidInputError('s3_key sensor: "key" must be a non-empty string');
  if (prefix !== undefined && typeof prefix !== 'string') throw new InvalidInputError('s3_key sensor: "prefix" must be a string');
  return key !== undefined ? { bucket, key } : { bucket, prefix };
}
