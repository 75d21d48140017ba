/**
 * XCom values arrive as they left (lib/adapters/xcom-codec.ts), identically on the memory
 * store, on DynamoDB (DynamoDB Local) and through S3 blobs (s3rver) for large values; an
 * unserializable value fails with one line naming the task and the path inside it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { makeClients } from '../../lib/adapters/aws/clients.js';
import { createTables, deleteTables } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { S3BlobStore } from '../../lib/adapters/aws/s3-blob.js';
import { MemoryStore } from '../../lib/adapters/memory/store.js';
import { encodeXcom, xcomFromJson, XcomValueError } from '../../lib/adapters/xcom-codec.js';
import type { Store } from '../../lib/engine/index.js';
import { startS3rver, type LocalS3 } from '../../lib/rehearsal/s3rver.js';
import { LOCAL_AWS } from '../../lib/runtime/dynamodb-local.js';

const endpoint = inject('dynamodbEndpoint');
const key = (taskId: string) => ({ dagId: 'd', runId: 'r', taskId, key: 'return_value' });

function everyType(): Record<string, unknown> {
  const shared = { id: 7 };
  const circular: Record<string, unknown> = { name: 'loop' };
  circular.self = circular;
  return {
    date: new Date('2026-01-01T12:34:56.789Z'),
    map: new Map<unknown, unknown>([['a', 1], [2, new Set([3n])]]),
    set: new Set(['x', new Date(0)]),
    bigint: 12345678901234567890n,
    undef: undefined,
    nested: { deeper: [undefined, null, -0, NaN, Infinity, -Infinity, /re+/gi] },
    u8: new Uint8Array([1, 2, 255]),
    f64: new Float64Array([1.5, -2.25]),
    i32: new Int32Array([-1, 2 ** 30]),
    buffer: new Uint8Array([9, 8]).buffer,
    sparse: [1, , 3], // eslint-disable-line no-sparse-arrays
    repeated: [shared, shared],
    circular,
    url: new URL('https://example.com/a?b=c'),
  };
}

async function roundTrip(store: Store, value: unknown, taskId = 't'): Promise<unknown> {
  await store.putXcom(key(taskId), value);
  return store.getXcom(key(taskId));
}

function checkSame(back: any, sent: any): void {
  expect(back).toEqual(sent);
  expect(back.map.get(2)).toEqual(new Set([3n]));
  expect(back.repeated[0]).toBe(back.repeated[1]);
  expect(back.circular.self).toBe(back.circular);
  expect(Object.is(back.nested.deeper[2], -0)).toBe(true);
  expect(1 in back.sparse).toBe(false);
  expect('undef' in back).toBe(true);
  expect(back.u8).toBeInstanceOf(Uint8Array);
  expect(back.url).toBeInstanceOf(URL);
}

describe('XCom codec', () => {
  it('round-trips every supported type on the memory store', async () => {
    const sent = everyType();
    checkSame(await roundTrip(new MemoryStore(), sent), sent);
    expect(await roundTrip(new MemoryStore(), undefined)).toBeUndefined();
    expect(await roundTrip(new MemoryStore(), 5n)).toBe(5n);
  });

  it('refuses functions, symbols and class instances with one line naming the task and the path', () => {
    class Point { constructor(readonly x: number) {} norm() { return this.x; } }
    const cases: Array<[unknown, RegExp]> = [
      [{ a: { b: [1, () => 1] } }, /^XCom return_value of task t cannot be stored: a function at value\.a\.b\[1\] \(/],
      [{ p: new Point(1) }, /^XCom return_value of task t cannot be stored: a class instance at value\.p \(/],
      [{ s: Symbol('x') }, /^XCom return_value of task t cannot be stored: a Symbol primitive at value\.s \(/],
    ];
    for (const [value, message] of cases) {
      let err: unknown;
      try { encodeXcom(value, key('t')); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(XcomValueError);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toContain('\n');
    }
  });

  it('reads JSON stored before the codec as it is', () => {
    expect(xcomFromJson({ rows: 42 })).toEqual({ rows: 42 });
    expect(xcomFromJson([1, 2])).toEqual([1, 2]);
  });
});

describe.skipIf(!endpoint)('XCom codec on DynamoDB Local and S3 blobs (s3rver)', () => {
  let client: DynamoDBClient;
  let s3: S3Client;
  let server: { close(): Promise<void> };
  let work: string;
  const prefix = `xcom${process.pid}-`;

  beforeAll(async () => {
    client = new DynamoDBClient({ endpoint, ...LOCAL_AWS });
    await createTables(client, prefix);
    work = await mkdtemp(join(tmpdir(), 'airless-xcom-'));
    server = await startS3rver({ directory: join(work, 's3'), buckets: ['xcom'] });
    s3 = makeClients({ endpoints: { s3: (server as LocalS3).endpoint } }).s3;
  });
  afterAll(async () => {
    await deleteTables(client, prefix);
    client.destroy();
    s3?.destroy();
    await server?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('round-trips every supported type inline in the item and, when large, through an S3 blob', async () => {
    const store = new DynamoStore({ client, tablePrefix: prefix, blobs: new S3BlobStore({ s3, bucket: 'xcom' }) });
    const sent = everyType();
    checkSame(await roundTrip(store, sent, 'small'), sent);
    const large = { ...everyType(), pad: 'x'.repeat(400_000), bytes: new Uint8Array(50_000).fill(7) };
    const back = (await roundTrip(store, large, 'large')) as typeof large;
    checkSame(back, large);
    expect(back.bytes).toEqual(large.bytes);
    // It went through the blob store, not the item.
    expect((await new S3BlobStore({ s3, bucket: 'xcom' }).get('xcom/d/r/large/return_value')).byteLength).toBeGreaterThan(400_000);
    expect(await roundTrip(store, undefined, 'undef')).toBeUndefined();
  });
});
