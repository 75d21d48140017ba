/**
 * s3rver (the local S3 server of the rehearsal and the tests), loaded so that truncated
 * listings work on Node 20+ without `--openssl-legacy-provider`.
 *
 * s3rver 3.7.1 builds a ListObjectsV2 continuation token with single DES
 * (`crypto.createCipheriv('des', key8, iv)`), which OpenSSL 3 keeps in its legacy provider:
 * every truncated listing (two keys under a prefix listed with `MaxKeys: 1`) answered 500.
 * The fix gives s3rver's bucket controller, and only it, a `crypto` whose `'des'` is
 * DES-EDE3-CBC with the 8-byte key repeated three times. Triple DES with K1 = K2 = K3 *is*
 * single DES (encrypt, decrypt, encrypt with one key), and it lives in OpenSSL's default
 * provider: the tokens are byte for byte those of the original, no flag is needed, and no
 * other module's crypto changes. We substitute the module s3rver requires rather than edit
 * its source, so an s3rver update that drops DES simply stops reaching the shim.
 */
import crypto from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import Module, { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, sep } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InvalidInputError } from '../engine/index.js';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverCtor = new (opts: Record<string, unknown>) => S3rverInstance;

/** A running s3rver on 127.0.0.1. */
export interface LocalS3 {
  endpoint: string;
  close(): Promise<void>;
}

/** `crypto` with single DES served by the default provider (see the file comment). */
export const desCompatibleCrypto: typeof crypto = Object.create(crypto, {
  createCipheriv: { value: (alg: string, key: Buffer, iv: Buffer, opts?: unknown) => crypto.createCipheriv(...desArgs(alg, key), iv, opts as never) },
  createDecipheriv: { value: (alg: string, key: Buffer, iv: Buffer, opts?: unknown) => crypto.createDecipheriv(...desArgs(alg, key), iv, opts as never) },
});

function desArgs(alg: string, key: Buffer): [string, Buffer] {
  const single = /^des(-cbc)?$/i.test(alg) && key.length === 8;
  return single ? ['des-ede3-cbc', Buffer.concat([key, key, key])] : [alg, key];
}

/** Set once per process (also across copies of this module, as vitest makes per test file). */
const PATCHED = Symbol.for('airless.s3rver.desCompatibleCrypto');

/**
 * The s3rver constructor, with its bucket controller given {@link desCompatibleCrypto}.
 * `from` is where to resolve s3rver from (default: this package).
 *
 * @example
 * const S3rver = loadS3rver();
 * const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir });
 */
export function loadS3rver(from: string = import.meta.url): S3rverCtor {
  const req = createRequire(from);
  let main: string;
  try {
    main = req.resolve('s3rver');
  } catch (cause) {
    throw new InvalidInputError('the local S3 server needs s3rver, an optional peer of airless: npm install -D s3rver@3.7.1', { cause });
  }
  const controller = createRequire(main).resolve('./controllers/bucket');
  const g = globalThis as { [PATCHED]?: Set<string> };
  if (!g[PATCHED]) {
    const files = (g[PATCHED] = new Set<string>());
    // Module.prototype.require is what every CommonJS `require` goes through: answer
    // `crypto` differently for s3rver's bucket controller, pass everything else on unchanged.
    const original = Module.prototype.require;
    Module.prototype.require = function require(this: NodeJS.Module, id: string) {
      if ((id === 'crypto' || id === 'node:crypto') && files.has(this.filename)) return desCompatibleCrypto;
      return original.call(this, id);
    } as typeof original;
  }
  if (!g[PATCHED].has(controller)) {
    g[PATCHED].add(controller);
    // Loaded before without the shim (someone required s3rver directly): load it afresh.
    const root = dirname(dirname(main)) + sep;
    if (req.cache[controller]) for (const k of Object.keys(req.cache)) if (k.startsWith(root)) delete req.cache[k];
  }
  atomicPuts(createRequire(main)('./stores/filesystem') as { prototype: FilesystemStore });
  return req('s3rver') as S3rverCtor;
}

/** The part of s3rver's FilesystemStore that atomicPuts replaces and uses. */
interface FilesystemStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(object: { bucket: string; key: string; content: Buffer | Readable; metadata: unknown }): Promise<{ size: number; md5: string }>;
}

const ATOMIC = Symbol.for('airless.s3rver.atomicPuts');
let tmpSeq = 0;

/**
 * S3 writes an object atomically: a GET sees the old object or the new one, whole. s3rver
 * 3.7.1 answers a PUT before a buffered body is on disk and writes files in place, so a
 * GET right after (register-bundle's verdict, read by `airless push`) can read half a file:
 * "Unexpected end of JSON input" under load. Here a PUT writes its body, its md5 and its
 * metadata to files beside them, renames the md5 and metadata into place, then the body
 * (s3rver finds an object by its body file, and lists only `._S3rver_object` files), and
 * answers only then.
 */
function atomicPuts(Store: { prototype: FilesystemStore }): void {
  const proto = Store.prototype as FilesystemStore & { [ATOMIC]?: true };
  if (proto[ATOMIC]) return;
  proto[ATOMIC] = true;
  proto.putObject = async function putObject(this: FilesystemStore, object) {
    const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(objectPath), { recursive: true });
    const tmp = `${objectPath}.airless-${process.pid}-${tmpSeq++}`;
    const md5 = crypto.createHash('md5');
    let size = 0;
    const body = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    const count = new Transform({ transform(chunk: Buffer, _enc, done) { md5.update(chunk); size += chunk.length; done(null, chunk); } });
    await pipeline(body, count, createWriteStream(tmp));
    const digest = md5.digest('hex');
    await this.putMetadata(object.bucket, object.key, object.metadata, digest);
    await rename(tmp, objectPath);
    return { size, md5: digest };
  };
  const putMetadata = proto.putMetadata;
  // Its md5 and metadata files too: s3rver's own code writes them beside, then each one
  // replaces the old in one rename.
  proto.putMetadata = async function atomicMetadata(this: FilesystemStore, bucket, key, metadata, md5) {
    const suffix = `.airless-${process.pid}-${tmpSeq++}`;
    const real = this.getResourcePath.bind(this);
    const staged = Object.create(this, { getResourcePath: { value: (b: string, k: string, r: string) => `${real(b, k, r)}${suffix}` } }) as FilesystemStore;
    await putMetadata.call(staged, bucket, key, metadata, md5);
    for (const resource of ['object.md5', 'metadata.json']) {
      // No md5 given: s3rver writes no md5 file.
      await rename(`${real(bucket, key, resource)}${suffix}`, real(bucket, key, resource)).catch((e: NodeJS.ErrnoException) => { if (e.code !== 'ENOENT') throw e; });
    }
  };
}

/**
 * Starts s3rver on a free port of 127.0.0.1, with `buckets` created.
 *
 * @example
 * const s3 = await startS3rver({ directory: join(work, 's3'), buckets: ['landing'] });
 * // ... S3Client({ endpoint: s3.endpoint, forcePathStyle: true, credentials: S3RVER_CREDENTIALS })
 * await s3.close();
 */
export async function startS3rver(o: { directory: string; buckets?: readonly string[] }): Promise<LocalS3> {
  const S3rver = loadS3rver();
  const server = new S3rver({
    port: 0, address: '127.0.0.1', silent: true, directory: o.directory,
    ...(o.buckets?.length ? { configureBuckets: o.buckets.map((name) => ({ name })) } : {}),
  });
  const { port } = await server.run();
  return { endpoint: `http://127.0.0.1:${port}`, close: () => server.close() };
}
