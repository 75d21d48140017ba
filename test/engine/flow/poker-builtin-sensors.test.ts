/**
 * Built-in sensors with I/O: `file` on a temp directory, `http` against a local
 * node:http server, `s3_key` with a fake S3 client; and `file` end to end on the runtime.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinSensors, fileSensor, httpSensor, parseTarget, s3KeySensor, type S3Like } from '../../../lib/sensors/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, T0 } from '../../helpers/runtime.js';
import { MIN } from '../../helpers/waiting.js';

const env = { now: 0 };
let dir: string;
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'airless-sensor-')); });
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

describe('file sensor', () => {
  it('waits for a file, and for a directory to hold an entry', async () => {
    const poke = fileSensor();
    const f = join(dir, 'in.csv');
    expect(await poke({ path: f }, env)).toBe(false);
    await writeFile(f, 'a,b\n');
    expect(await poke({ path: f }, env)).toBe(true);
    expect(await poke({ filepath: f }, env)).toBe(true);
    const sub = join(dir, 'landing');
    await mkdir(sub);
    expect(await poke({ path: sub }, env)).toBe(false);
    await writeFile(join(sub, '_SUCCESS'), '');
    expect(await poke({ path: sub }, env)).toBe(true);
    expect(await poke({ path: join(f, 'not-a-dir') }, env)).toBe(false);
    await expect(poke({}, env)).rejects.toThrow(/needs a "path"/);
  });

  it('settles a batched sensor on the runtime the cycle after the file lands', async () => {
    const target = join(dir, 'runtime', '2026-01-01.csv');
    const d = dag('files', {}, ({ sensor }) => {
      sensor('landed', { type: 'file', pokeContext: { path: join(dir, 'runtime', '{{ ds }}.csv') } }, { pokeInterval: '1m', timeout: '1h' });
    });
    const { rt, clock } = await makeRuntime([d], { sensors: builtinSensors() });
    const run = await rt.trigger('files', { logicalDate: T0 });
    await rt.runUntil(async () => clock.now() >= T0 + 5 * MIN);
    expect((await rt.ports.store.getTask({ dagId: 'files', runId: run.runId, taskId: 'landed' }))!.state).toBe('sensing');
    await mkdir(join(dir, 'runtime'));
    await writeFile(target, 'x');
    expect(await rt.runToCompletion('files', run.runId)).toBe('done');
    const ti = (await rt.ports.store.getTask({ dagId: 'files', runId: run.runId, taskId: 'landed' }))!;
    expect(ti.state).toBe('success');
    // runUntil stops before the 5m cycle runs: that cycle is the first to see the file.
    expect(ti.endedAt).toBe(T0 + 5 * MIN);
  });
});

describe('http sensor', () => {
  let server: Server;
  let base: string;
  let status = 404;
  let body = 'not yet';
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/hang') return; // never answers
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('is false on 404, throws with the status on other answers, true on the expected status', async () => {
    const poke = httpSensor({ timeoutMs: 2_000 });
    status = 404;
    expect(await poke({ url: `${base}/ready` }, env)).toBe(false);
    status = 503;
    await expect(poke({ url: `${base}/ready` }, env)).rejects.toThrow(/answered HTTP 503, expected 200/);
    status = 200;
    body = 'state=DONE';
    expect(await poke({ url: `${base}/ready` }, env)).toBe(true);
    expect(await poke({ url: `${base}/ready`, responseContains: 'DONE' }, env)).toBe(true);
    expect(await poke({ url: `${base}/ready`, responseContains: 'FAILED' }, env)).toBe(false);
    status = 204;
    body = '';
    expect(await poke({ url: `${base}/ready`, expectedStatus: [200, 204], method: 'HEAD' }, env)).toBe(true);
    expect(seen).toContain('HEAD /ready');
  });

  it('times out a request that never answers, and reports a refused connection', async () => {
    const poke = httpSensor();
    await expect(poke({ url: `${base}/hang`, timeoutMs: 100 }, env)).rejects.toThrow(/no answer within 100 ms/);
    await expect(poke({ url: 'http://127.0.0.1:1/x', timeoutMs: 1_000 }, env)).rejects.toThrow(/GET http:\/\/127\.0\.0\.1:1\/x failed/);
    await expect(poke({ url: 'ftp://x' }, env)).rejects.toThrow(/needs an http\(s\) "url"/);
  });
});

describe('s3_key sensor', () => {
  function fakeS3(objects: string[]) {
    const calls: Array<{ op: string; input: unknown }> = [];
    const client: S3Like = {
      async send(cmd) {
        calls.push({ op: cmd.constructor.name, input: cmd.input });
        if (cmd instanceof HeadObjectCommand) {
          if (objects.includes(`${cmd.input.Bucket}/${cmd.input.Key}`)) return {};
          throw Object.assign(new Error('NotFound'), { name: 'NotFound', $metadata: { httpStatusCode: 404 } });
        }
        if (cmd instanceof ListObjectsV2Command) {
          const hits = objects.filter((o) => o.startsWith(`${cmd.input.Bucket}/${cmd.input.Prefix ?? ''}`));
          return { KeyCount: Math.min(hits.length, cmd.input.MaxKeys ?? 1000) };
        }
        throw new Error('unexpected command');
      },
    };
    return { client, calls };
  }

  it('checks a key with HeadObject and a prefix with a one-key listing', async () => {
    const objects: string[] = [];
    const fake = fakeS3(objects);
    const regions: Array<string | undefined> = [];
    const poke = s3KeySensor(({ region }) => { regions.push(region); return fake.client; });
    expect(await poke({ bucket: 'landing', key: '2026-01-01/_SUCCESS' }, env)).toBe(false);
    expect(await poke({ key: 's3://landing/2026-01-01/_SUCCESS' }, env)).toBe(false);
    expect(await poke({ bucket: 'landing', prefix: '2026-01-01/' }, env)).toBe(false);
    objects.push('landing/2026-01-01/_SUCCESS');
    expect(await poke({ key: 's3://landing/2026-01-01/_SUCCESS' }, env)).toBe(true);
    expect(await poke({ bucket: 'landing', prefix: '2026-01-01/' }, env)).toBe(true);
    expect(fake.calls.map((c) => c.op)).toEqual([
      'HeadObjectCommand', 'HeadObjectCommand', 'ListObjectsV2Command', 'HeadObjectCommand', 'ListObjectsV2Command',
    ]);
    expect(fake.calls[2].input).toEqual({ Bucket: 'landing', Prefix: '2026-01-01/', MaxKeys: 1 });
    // One client, made once, for the default region.
    expect(regions).toEqual([undefined]);
  });

  it('a prefix poke follows a page only while it is empty yet truncated (bounded), never a page with a key', async () => {
    const pages = [
      { KeyCount: 0, IsTruncated: true, NextContinuationToken: 't1' },
      { KeyCount: 0, IsTruncated: true, NextContinuationToken: 't2' },
      { KeyCount: 1, IsTruncated: true, NextContinuationToken: 't3' },
    ];
    const inputs: unknown[] = [];
    const client: S3Like = { send: async (cmd) => { inputs.push(cmd.input); return pages[inputs.length - 1]; } };
    expect(await s3KeySensor(() => client)({ bucket: 'b', prefix: 'p/' }, env)).toBe(true);
    expect(inputs).toEqual([
      { Bucket: 'b', Prefix: 'p/', MaxKeys: 1 },
      { Bucket: 'b', Prefix: 'p/', MaxKeys: 1, ContinuationToken: 't1' },
      { Bucket: 'b', Prefix: 'p/', MaxKeys: 1, ContinuationToken: 't2' },
    ]);
    let calls = 0;
    const endless: S3Like = { send: async () => ({ KeyCount: 0, IsTruncated: true, NextContinuationToken: `t${++calls}` }) };
    expect(await s3KeySensor(() => endless)({ bucket: 'b', prefix: 'p/' }, env)).toBe(false);
    expect(calls).toBe(10);
  });

  it('rethrows errors other than not-found, and rejects ambiguous contexts', async () => {
    const denied: S3Like = { send: async () => { throw Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }); } };
    const poke = s3KeySensor(() => denied);
    await expect(poke({ bucket: 'b', key: 'k' }, env)).rejects.toThrow(/Access Denied/);
    expect(() => parseTarget({ bucket: 'b' })).toThrow(/exactly one of "key" and "prefix"/);
    expect(() => parseTarget({ bucket: 'b', key: 'k', prefix: 'p' })).toThrow(/exactly one/);
    expect(() => parseTarget({ key: 'k' })).toThrow(/needs a "bucket"/);
    expect(() => parseTarget({ bucket: 'other', key: 's3://b/k' })).toThrow(/contradicts/);
    expect(parseTarget({ key: 's3://b/a/b.csv' })).toEqual({ bucket: 'b', key: 'a/b.csv' });
  });

  it('builtinSensors exposes the three types and passes the S3 factory through', async () => {
    const fake = fakeS3(['b/k']);
    const sensors = builtinSensors({ s3Client: () => fake.client });
    expect(Object.keys(sensors).sort()).toEqual(['file', 'http', 's3_key']);
    expect(await sensors.s3_key({ bucket: 'b', key: 'k' }, env)).toBe(true);
    expect(fake.calls).toHaveLength(1);
    const shared = fakeS3([]);
    expect(await builtinSensors({ s3: shared.client }).s3_key({ bucket: 'b', prefix: 'x/' }, env)).toBe(false);
    expect(shared.calls.map((c) => c.op)).toEqual(['ListObjectsV2Command']);
  });
});
