import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClients } from '../../../lib/adapters/aws/clients.js';
import { CountingMetrics } from '../../../lib/adapters/aws/metrics.js';
import { S3BlobStore } from '../../../lib/adapters/aws/s3-blob.js';
import { bundleVersion, S3BundleSource, uploadBundle, type LoadBundleFn } from '../../../lib/adapters/aws/s3-bundles.js';
import { BundleError, NotFoundError } from '../../../lib/engine/index.js';
import type { Manifest } from '../../../lib/engine/index.js';
import type { LoadedBundle } from '../../../lib/engine/index.js';
import { startS3rver, type LocalS3 } from '../../../lib/rehearsal/s3rver.js';

const BUCKET = 'airless-test';
let work: string;
let server: LocalS3;
let s3: S3Client;

const sha = (b: string | Uint8Array) => createHash('sha256').update(b).digest('hex');

async function writeBuild(dir: string, code: string, manifestOver: Partial<Manifest> = {}) {
  const bundlePath = join(dir, 'bundle.mjs');
  const manifestPath = join(dir, 'manifest.json');
  const manifest: Manifest = { formatVersion: 1, bundleSha256: sha(code), builtAt: '2030-01-01T00:00:00Z', dags: [], sensorTypes: [], ...manifestOver };
  await writeFile(bundlePath, code);
  await writeFile(manifestPath, JSON.stringify(manifest));
  return { bundlePath, manifestPath, manifest };
}

/** Stands in for lib/isolation/load.ts: imports the cached file for real. */
function importingLoader(calls: { path: string; manifest?: Manifest }[]): LoadBundleFn {
  return async (path, manifest) => {
    calls.push({ path, manifest });
    const mod = (await import(pathToFileURL(path).href)) as { hello?: string };
    return { manifest: { ...manifest!, sensorTypes: [mod.hello ?? ''] }, taskMethod: () => undefined, sensorPoke: () => undefined } as LoadedBundle;
  };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'airless-s3-'));
  server = await startS3rver({ directory: join(work, 's3'), buckets: [BUCKET] });
  s3 = makeClients({ endpoints: { s3: server.endpoint } }).s3;
});

afterAll(async () => {
  s3?.destroy();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

async function text(key: string): Promise<string> {
  const res = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return res.Body!.transformToString();
}

describe('bundles on s3rver', () => {
  it('uploads content-addressed, then loads through a verified cache', async () => {
    const dir = await mkdtemp(join(work, 'build-'));
    const { bundlePath, manifestPath, manifest } = await writeBuild(dir, "export const hello = 'world';\n");
    const { version } = await uploadBundle(s3, BUCKET, { bundlePath, manifestPath });
    expect(version).toMatch(/^[0-9a-f]{12}-[0-9a-f]{8}$/);
    expect(version.startsWith(manifest.bundleSha256.slice(0, 12))).toBe(true);
    expect(await text('bundles/LATEST')).toBe(version);
    expect(await text(`bundles/${version}/bundle.mjs`)).toBe("export const hello = 'world';\n");
    // Same build, different build time: same version.
    await writeFile(manifestPath, JSON.stringify({ ...manifest, builtAt: '2031-01-01T00:00:00Z' }));
    expect((await uploadBundle(s3, BUCKET, { bundlePath, manifestPath })).version).toBe(version);

    const cacheDir = join(work, 'cache-1');
    const calls: { path: string; manifest?: Manifest }[] = [];
    const metrics = new CountingMetrics();
    const source = new S3BundleSource({ s3, bucket: BUCKET, cacheDir, metrics, loadBundle: importingLoader(calls) });
    expect(await source.latestVersion()).toBe(version);
    expect((await source.manifest(version)).bundleSha256).toBe(manifest.bundleSha256);

    const [a, b] = await Promise.all([source.load(version), source.load(version)]);
    expect(a).toBe(b);
    expect(a.manifest.sensorTypes).toEqual(['world']);
    expect(calls).toEqual([{ path: join(cacheDir, version, 'bundle.mjs'), manifest: expect.objectContaining({ bundleSha256: manifest.bundleSha256 }) }]);
    expect(metrics.get('bundle.download')).toBe(1);

    // A new container with the same /tmp: no download.
    const warm = new CountingMetrics();
    await new S3BundleSource({ s3, bucket: BUCKET, cacheDir, metrics: warm, loadBundle: importingLoader([]) }).load(version);
    expect(warm.get('bundle.cache_hit')).toBe(1);
    expect(warm.get('s3.requests')).toBe(1); // the manifest only

    // A torn cache is replaced, not trusted.
    await writeFile(join(cacheDir, version, 'bundle.mjs'), 'garbage');
    const torn = new CountingMetrics();
    await new S3BundleSource({ s3, bucket: BUCKET, cacheDir, metrics: torn, loadBundle: importingLoader([]) }).load(version);
    expect(torn.get('bundle.download')).toBe(1);
    expect(await readFile(join(cacheDir, version, 'bundle.mjs'), 'utf8')).toBe("export const hello = 'world';\n");
  });

  it('loads through lib/isolation/load.ts by default', async () => {
    const dir = await mkdtemp(join(work, 'build-'));
    const { bundlePath, manifestPath, manifest } = await writeBuild(dir, 'export const files = [];\n');
    const { version } = await uploadBundle(s3, BUCKET, { bundlePath, manifestPath, setLatest: false });
    const loaded = await new S3BundleSource({ s3, bucket: BUCKET, cacheDir: join(work, 'cache-default') }).load(version);
    expect(loaded.manifest.bundleSha256).toBe(manifest.bundleSha256);
    expect(loaded.taskMethod('etl', 'extract', 'execute')).toBeUndefined();
  });

  it('uploads the DAG files\' sources beside the bundle and serves them by version; a version pushed without them has none', async () => {
    const dir = await mkdtemp(join(work, 'build-'));
    const { bundlePath, manifestPath } = await writeBuild(dir, "export const sources = 'kept';\n");
    await writeFile(join(dir, 'sources.json'), JSON.stringify({ 'etl.ts': 'export default dag; // etl\n' }));
    const { version } = await uploadBundle(s3, BUCKET, { bundlePath, manifestPath, setLatest: false });
    expect(JSON.parse(await text(`bundles/${version}/sources.json`))).toEqual({ 'etl.ts': 'export default dag; // etl\n' });
    const source = new S3BundleSource({ s3, bucket: BUCKET, cacheDir: join(work, 'cache-sources'), loadBundle: importingLoader([]) });
    expect(await source.sources(version)).toEqual({ 'etl.ts': 'export default dag; // etl\n' });

    const bare = await mkdtemp(join(work, 'build-'));
    const old = await writeBuild(bare, "export const sources = 'none';\n");
    const { version: without } = await uploadBundle(s3, BUCKET, { ...old, setLatest: false });
    expect(await source.sources(without)).toEqual({});
    await expect(source.sources('nope')).rejects.toThrow(BundleError);
    // A sources file that is not a map of file to text is refused at push, nothing uploaded.
    const bad = await writeBuild(await mkdtemp(join(work, 'build-')), "export const sources = 'bad';\n");
    await writeFile(join(dirname(bad.manifestPath), 'sources.json'), JSON.stringify({ 'etl.ts': 1 }));
    await expect(uploadBundle(s3, BUCKET, { ...bad, setLatest: false })).rejects.toThrow(/not a map of file to text/);
    const badVersion = bundleVersion(bad.manifest);
    await expect(text(`bundles/${badVersion}/bundle.mjs`)).rejects.toThrow();
  });

  it('refuses to upload a manifest that does not describe the bundle', async () => {
    const dir = await mkdtemp(join(work, 'build-'));
    const { bundlePath, manifestPath } = await writeBuild(dir, 'export {};\n', { bundleSha256: 'a'.repeat(64) });
    await expect(uploadBundle(s3, BUCKET, { bundlePath, manifestPath })).rejects.toThrow(BundleError);
  });

  it('rejects a bundle whose sha256 does not match its manifest, naming the object', async () => {
    const manifest: Manifest = { formatVersion: 1, bundleSha256: sha('good'), builtAt: 'x', dags: [], sensorTypes: [] };
    const version = bundleVersion(manifest);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `bundles/${version}/manifest.json`, Body: JSON.stringify(manifest) }));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `bundles/${version}/bundle.mjs`, Body: 'evil' }));
    const calls: { path: string }[] = [];
    const source = new S3BundleSource({ s3, bucket: BUCKET, cacheDir: join(work, 'cache-2'), loadBundle: importingLoader(calls) });
    await expect(source.load(version)).rejects.toThrow(
      new RegExp(`s3://${BUCKET}/bundles/${version}/bundle.mjs has sha256 ${sha('evil')}, but its manifest says`),
    );
    expect(calls).toEqual([]);
  });

  it('reports a missing version or a bad manifest as BundleError', async () => {
    const source = new S3BundleSource({ s3, bucket: BUCKET, cacheDir: join(work, 'cache-3'), loadBundle: importingLoader([]) });
    const err = await source.load('nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BundleError);
    expect((err as Error).message).toBe(`bundle version nope not found: s3://${BUCKET}/bundles/nope/manifest.json does not exist`);
    await expect(source.manifest('../etc')).rejects.toThrow(/invalid bundle version/);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'bundles/bad/manifest.json', Body: '{"formatVersion":1}' }));
    await expect(source.manifest('bad')).rejects.toThrow(/bundleSha256/);
  });
});

describe('S3BlobStore on s3rver', () => {
  it('round-trips bytes under blobs/ and reports a missing key as NotFoundError', async () => {
    const blobs = new S3BlobStore({ s3, bucket: BUCKET });
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    await blobs.put('xcom/etl/r1/t/return_value', bytes);
    expect(await blobs.get('xcom/etl/r1/t/return_value')).toEqual(bytes);
    const raw = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'blobs/xcom/etl/r1/t/return_value' }));
    expect(await raw.Body!.transformToByteArray()).toEqual(bytes);
    await expect(blobs.get('missing')).rejects.toThrow(NotFoundError);
    await expect(blobs.get('missing')).rejects.toThrow(`blob not found: s3://${BUCKET}/blobs/missing`);
  });
});
