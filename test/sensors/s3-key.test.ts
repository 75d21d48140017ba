/**
 * The `s3_key` sensor against a real local S3 server (s3rver, loaded by startS3rver): a
 * prefix with several matching objects answers in one ListObjectsV2 request (the trial's
 * poke got a 500 here: s3rver's truncated page needed OpenSSL's legacy DES).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClients } from '../../lib/adapters/aws/clients.js';
import { startS3rver, type LocalS3 } from '../../lib/rehearsal/s3rver.js';
import { builtinSensors, type S3Like } from '../../lib/sensors/index.js';

const now = { now: Date.parse('2026-01-01T00:00:00Z') };
let work: string;
let server: LocalS3;
let s3: S3Client;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'airless-s3key-'));
  server = await startS3rver({ directory: join(work, 's3'), buckets: ['landing'] });
  s3 = makeClients({ endpoints: { s3: server.endpoint } }).s3;
  for (const k of ['2026-01-01/part-0.csv', '2026-01-01/part-1.csv', '2026-01-01/_SUCCESS']) {
    await s3.send(new PutObjectCommand({ Bucket: 'landing', Key: k, Body: k }));
  }
});
afterAll(async () => {
  s3?.destroy();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

describe('s3_key on a local S3 server', () => {
  it('a prefix with three objects is found in one request; an empty prefix is not yet; keys by HeadObject', async () => {
    const sent: string[] = [];
    const counting: S3Like = { send: (cmd) => { sent.push(cmd.constructor.name); return s3.send(cmd as never); } };
    const poke = builtinSensors({ s3: counting }).s3_key;
    expect(await poke({ bucket: 'landing', prefix: '2026-01-01/' }, now)).toBe(true);
    expect(sent).toEqual(['ListObjectsV2Command']);
    expect(await poke({ bucket: 'landing', prefix: '2026-01-02/' }, now)).toBe(false);
    expect(await poke({ key: 's3://landing/2026-01-01/_SUCCESS' }, now)).toBe(true);
    expect(await poke({ bucket: 'landing', key: '2026-01-02/_SUCCESS' }, now)).toBe(false);
    expect(sent).toEqual(['ListObjectsV2Command', 'ListObjectsV2Command', 'HeadObjectCommand', 'HeadObjectCommand']);
  });

  it('a poke context with a region gets a client of that region (not the shared one); clients read AWS_ENDPOINT_URL_S3', async () => {
    const env = { AWS_ENDPOINT_URL_S3: server.endpoint, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    try {
      const sent: string[] = [];
      const shared: S3Like = { send: (cmd) => { sent.push(cmd.constructor.name); return s3.send(cmd as never); } };
      const poke = builtinSensors({ s3: shared }).s3_key;
      expect(await poke({ bucket: 'landing', prefix: '2026-01-01/', region: 'eu-west-1' }, now)).toBe(true);
      expect(sent).toEqual([]);
      expect(await poke({ bucket: 'landing', key: '2026-01-01/_SUCCESS' }, now)).toBe(true);
      expect(sent).toEqual(['HeadObjectCommand']);
      // airless run / dev: no shared client, the environment's endpoint is the local server.
      expect(await builtinSensors().s3_key({ key: 's3://landing/2026-01-01/part-1.csv' }, now)).toBe(true);
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  });
});

