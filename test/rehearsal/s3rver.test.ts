/**
 * s3rver as we load it (lib/rehearsal/s3rver.ts) pages truncated listings on Node 20 without
 * `--openssl-legacy-provider` (its DES continuation tokens come from DES-EDE3 with one key
 * repeated, byte for byte what legacy DES gives), and answers a PUT once the object is whole.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClients } from '../../lib/adapters/aws/clients.js';
import { desCompatibleCrypto, startS3rver, type LocalS3 } from '../../lib/rehearsal/s3rver.js';

let work: string;
let server: LocalS3;
let s3: S3Client;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'airless-s3rver-'));
  server = await startS3rver({ directory: join(work, 's3'), buckets: ['pages'] });
  s3 = makeClients({ endpoints: { s3: server.endpoint } }).s3;
  for (const k of ['in/a.csv', 'in/b.csv', 'in/c.csv', 'other/d.csv']) await s3.send(new PutObjectCommand({ Bucket: 'pages', Key: k, Body: k }));
});
afterAll(async () => {
  s3?.destroy();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

describe('s3rver loaded by startS3rver', () => {
  it('answers a truncated ListObjectsV2 and follows its continuation token to the end', async () => {
    const keys: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const out = await s3.send(new ListObjectsV2Command({ Bucket: 'pages', Prefix: 'in/', MaxKeys: 1, ContinuationToken: token }));
      keys.push(...(out.Contents ?? []).map((c) => c.Key!));
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
      pages++;
    } while (token);
    expect(keys).toEqual(['in/a.csv', 'in/b.csv', 'in/c.csv']);
    expect(pages).toBe(3);
  });

  it("its 'des' is single DES: the same bytes as Node's legacy provider gives", () => {
    const key = Buffer.alloc(8, 'S3RVER', 'utf8');
    const iv = Buffer.from('d4d5d6d7d8d9dadb', 'hex');
    const c = desCompatibleCrypto.createCipheriv('des', key, iv);
    const ours = Buffer.concat([c.update('us-east-1/pages/in/a.csv', 'utf8'), c.final()]).toString('hex');
    const legacy = execFileSync(process.execPath, ['--openssl-legacy-provider', '-e', [
      "const c = require('crypto').createCipheriv('des', Buffer.alloc(8, 'S3RVER', 'utf8'), Buffer.from('d4d5d6d7d8d9dadb', 'hex'));",
      "process.stdout.write(Buffer.concat([c.update('us-east-1/pages/in/a.csv', 'utf8'), c.final()]).toString('hex'));",
    ].join('\n')], { encoding: 'utf8' });
    expect(ours).toBe(legacy);
    const d = desCompatibleCrypto.createDecipheriv('des', key, iv);
    expect(Buffer.concat([d.update(Buffer.from(ours, 'hex')), d.final()]).toString('utf8')).toBe('us-east-1/pages/in/a.csv');
    // Everything else is Node's own crypto.
    expect(desCompatibleCrypto.randomBytes(4)).toHaveLength(4);
    expect(() => desCompatibleCrypto.createCipheriv('aes-128-cbc', Buffer.alloc(16), Buffer.alloc(16))).not.toThrow();
  });
});

describe('s3rver PUTs, loaded by startS3rver', () => {
  it('answers only once the object is whole: a GET right after reads all of it, with its etag', async () => {
    for (let i = 0; i < 5; i++) {
      const body = Buffer.alloc(4_000_000 + i, i + 1);
      const put = await s3.send(new PutObjectCommand({ Bucket: 'pages', Key: `big/${i}.bin`, Body: body }));
      const got = await s3.send(new GetObjectCommand({ Bucket: 'pages', Key: `big/${i}.bin` }));
      const bytes = await got.Body!.transformToByteArray();
      expect(bytes.length).toBe(body.length);
      expect(got.ETag).toBe(put.ETag);
    }
    // An object overwritten while it is read (a verdict polled while it is written again):
    // every GET sees one whole version, old or new, never a truncated file.
    const json = (n: number) => JSON.stringify({ ok: true, n, padding: 'p'.repeat(20_000) });
    await s3.send(new PutObjectCommand({ Bucket: 'pages', Key: 'big/verdict.json', Body: json(0) }));
    const bodies: string[] = [];
    for (let n = 1; n <= 30; n++) {
      const reads = Array.from({ length: 4 }, () => s3.send(new GetObjectCommand({ Bucket: 'pages', Key: 'big/verdict.json' })).then((o) => o.Body!.transformToString()));
      await Promise.all([s3.send(new PutObjectCommand({ Bucket: 'pages', Key: 'big/verdict.json', Body: json(n) })), ...reads.map((r) => r.then((b) => bodies.push(b)))]);
    }
    expect(bodies.filter((b) => { try { return JSON.parse(b).ok !== true; } catch { return true; } })).toEqual([]);
    // Files written beside an object while it is stored are never listed as objects.
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'pages', Prefix: 'big/' }));
    expect((listed.Contents ?? []).map((c) => c.Key)).toEqual(['big/0.bin', 'big/1.bin', 'big/2.bin', 'big/3.bin', 'big/4.bin', 'big/verdict.json']);
  });
});

describe('loadS3rver without s3rver installed', () => {
  it('says in one line which optional package to install', async () => {
    const { loadS3rver } = await import('../../lib/rehearsal/s3rver.js');
    expect(() => loadS3rver('file:///nowhere/at/all/x.js')).toThrow(/^the local S3 server needs s3rver, an optional peer of airless: npm install -D s3rver@3\.7\.1$/);
  });
});
