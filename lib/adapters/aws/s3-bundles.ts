/**
 * DAG bundles in S3: `bundles/<version>/bundle.mjs`, `bundles/<version>/manifest.json`
 * and `bundles/LATEST` (the latest version, as text). Versions are content addressed,
 * so a version never changes once written and a cached copy never goes stale.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { loadIsolatedBundle as defaultLoadBundle } from '../../isolation/isolated-bundle.js';
import { BundleError, BundleNotFoundError } from '../../engine/index.js';
import { canonicalJson, sha256Hex } from '../../engine/index.js';
import type { Manifest } from '../../engine/index.js';
import type { BundleSource, LoadedBundle, Metrics } from '../../engine/index.js';
import { isAwsError, wrapAwsError } from './aws-errors.js';
import { parseSources } from '../../build/sources.js';

/** Signature of `loadBundle` in lib/isolation/load.ts. */
export type LoadBundleFn = (bundlePath: string, manifest?: Manifest) => Promise<LoadedBundle>;

export interface S3BundleSourceOptions {
  s3: S3Client;
  bucket: string;
  /** @default '/tmp/airless-bundles' */
  cacheDir?: string;
  metrics?: Metrics;
  /** Imports a downloaded bundle. @default loadIsolatedBundle (each try in a worker thread, lib/isolation) */
  loadBundle?: LoadBundleFn;
}

const VERSION = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;
let tmpCounter = 0;

export function bundleKeys(version: string): { bundle: string; manifest: string; sources: string } {
  return { bundle: `bundles/${version}/bundle.mjs`, manifest: `bundles/${version}/manifest.json`, sources: `bundles/${version}/sources.json` };
}
export const LATEST_KEY = 'bundles/LATEST';

/**
 * {@link BundleSource} on S3 with a verified local cache.
 *
 * @example
 * const bundles = new S3BundleSource({ s3, bucket: process.env.BUNDLE_BUCKET! });
 * const loaded = await bundles.load(run.bundleVersion);
 * const execute = loaded.taskMethod('etl', 'extract', 'execute');
 */
export class S3BundleSource implements BundleSource {
  private readonly s3: S3Client;
  private readonly bucket: string;
  private readonly cacheDir: string;
  private readonly metrics?: Metrics;
  private readonly loadBundle: LoadBundleFn;
  private readonly manifests = new Map<string, Promise<Manifest>>();
  private readonly loaded = new Map<string, Promise<LoadedBundle>>();

  constructor(opts: S3BundleSourceOptions) {
    this.s3 = opts.s3;
    this.bucket = opts.bucket;
    this.cacheDir = opts.cacheDir ?? '/tmp/airless-bundles';
    this.metrics = opts.metrics;
    this.loadBundle = opts.loadBundle ?? defaultLoadBundle;
  }

  manifest(version: string): Promise<Manifest> {
    return memo(this.manifests, version, async () => {
      checkVersion(version);
      const key = bundleKeys(version).manifest;
      return parseManifest(await this.getObject(key, version), `s3://${this.bucket}/${key}`);
    });
  }

  load(version: string): Promise<LoadedBundle> {
    return memo(this.loaded, version, async () => {
      const manifest = await this.manifest(version);
      const dir = await this.ensureCached(version, manifest);
      return this.loadBundle(join(dir, 'bundle.mjs'), manifest);
    });
  }

  /**
   * Each DAG file's source, from `bundles/<version>/sources.json` (uploaded by push); `{}`
   * when a version was pushed without one. Read by the API (`airless ui --stack`, the
   * user's credentials), never by the stack's functions.
   *
   * @example
   * const text = (await bundles.sources(version))['etl.ts'];
   */
  async sources(version: string): Promise<Record<string, string>> {
    checkVersion(version);
    await this.manifest(version);
    let bytes: Uint8Array;
    try {
      bytes = await this.getObject(bundleKeys(version).sources, version);
    } catch (e) {
      if (e instanceof BundleNotFoundError) return {};
      throw e;
    }
    return parseSources(new TextDecoder().decode(bytes), version);
  }

  /** The version `bundles/LATEST` points at. */
  async latestVersion(): Promise<string> {
    const version = new TextDecoder().decode(await this.getObject(LATEST_KEY, 'LATEST')).trim();
    checkVersion(version);
    return version;
  }

  private async ensureCached(version: string, manifest: Manifest): Promise<string> {
    const dir = join(this.cacheDir, version);
    const cached = await readFile(join(dir, 'bundle.mjs')).catch(() => undefined);
    if (cached && sha256(cached) === manifest.bundleSha256) {
      this.metrics?.count('bundle.cache_hit');
      return dir;
    }
    // A cached copy that fails verification (a torn /tmp) is replaced, never trusted.
    if (cached) await rm(dir, { recursive: true, force: true });

    const key = bundleKeys(version).bundle;
    const bytes = await this.getObject(key, version);
    const actual = sha256(bytes);
    if (actual !== manifest.bundleSha256) {
      throw new BundleError(
        `bundle s3://${this.bucket}/${key} has sha256 ${actual}, but its manifest says ${manifest.bundleSha256}`,
      );
    }
    // Write to a private directory, then rename: concurrent loaders in one container
    // (or a crash mid-write) never expose a half-written bundle.
    await mkdir(this.cacheDir, { recursive: true });
    const tmp = join(this.cacheDir, `.tmp-${version}-${process.pid}-${++tmpCounter}`);
    await mkdir(tmp, { recursive: true });
    await writeFile(join(tmp, 'bundle.mjs'), bytes);
    await writeFile(join(tmp, 'manifest.json'), JSON.stringify(manifest));
    try {
      await rename(tmp, dir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw new BundleError(`cannot cache bundle ${version} in ${dir}`, { cause: e });
      // Another loader won the race with identical, verified content.
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
    this.metrics?.count('bundle.download');
    return dir;
  }

  private async getObject(key: string, version: string): Promise<Uint8Array> {
    this.metrics?.count('s3.requests');
    try {
      const res = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!res.Body) throw new BundleError(`s3://${this.bucket}/${key} has no body`);
      return await res.Body.transformToByteArray();
    } catch (e) {
      if (e instanceof NoSuchKey || isAwsError(e, 'NoSuchKey', 'NotFound')) {
        throw new BundleNotFoundError(`bundle version ${version} not found: s3://${this.bucket}/${key} does not exist`, {
          cause: e,
        });
      }
      throw wrapAwsError(`S3 GetObject s3://${this.bucket}/${key}`, e);
    }
  }
}

/**
 * Uploads a built bundle for `airless push`. The version is content addressed: the
 * first 12 hex of the bundle's sha256 and 8 of the manifest (without `builtAt`), so
 * pushing the same build twice yields the same version. The manifest goes up after the
 * bundle because its upload triggers registration, and LATEST after the manifest.
 *
 * @example
 * const { version } = await uploadBundle(s3, 'airless-bundles', { bundlePath: 'dist/bundle.mjs', manifestPath: 'dist/manifest.json' });
 */
export async function uploadBundle(
  s3: S3Client,
  bucket: string,
  opts: { bundlePath: string; manifestPath: string; setLatest?: boolean; /** @default sources.json beside the manifest (a build without one uploads none) */ sourcesPath?: string },
): Promise<{ version: string; bundleKey: string; manifestKey: string }> {
  const bundle = await readFile(opts.bundlePath);
  const manifestText = await readFile(opts.manifestPath, 'utf8');
  const manifest = parseManifest(new TextEncoder().encode(manifestText), opts.manifestPath);
  const actual = sha256(bundle);
  if (actual !== manifest.bundleSha256) {
    throw new BundleError(
      `${opts.manifestPath} describes a bundle with sha256 ${manifest.bundleSha256}, but ${opts.bundlePath} has ${actual}: rebuild`,
    );
  }
  const version = bundleVersion(manifest);
  const keys = bundleKeys(version);
  const put = async (Key: string, Body: Uint8Array | string, ContentType: string) => {
    try {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body, ContentType }));
    } catch (e) {
      throw wrapAwsError(`S3 PutObject s3://${bucket}/${Key}`, e);
    }
  };
  // Checked before anything is uploaded; put before the manifest, whose upload registers the version.
  const sourcesText = await readFile(opts.sourcesPath ?? join(dirname(opts.manifestPath), 'sources.json'), 'utf8').catch(() => undefined);
  const sources = sourcesText === undefined ? undefined : JSON.stringify(parseSources(sourcesText, version));
  await put(keys.bundle, bundle, 'text/javascript');
  if (sources !== undefined) await put(keys.sources, sources, 'application/json');
  await put(keys.manifest, manifestText, 'application/json');
  if (opts.setLatest ?? true) await put(LATEST_KEY, version, 'text/plain');
  return { version, bundleKey: keys.bundle, manifestKey: keys.manifest };
}

/**
 * The content-addressed version of a manifest.
 *
 * @example
 * bundleVersion(manifest); // 'a1b2c3d4e5f6-0f1e2d3c'
 */
export function bundleVersion(manifest: Manifest): string {
  const { builtAt: _ignored, ...stable } = manifest;
  return `${manifest.bundleSha256.slice(0, 12)}-${sha256Hex(canonicalJson(stable)).slice(0, 8)}`;
}

function parseManifest(bytes: Uint8Array, where: string): Manifest {
  let m: unknown;
  try {
    m = JSON.parse(new TextDecoder().decode(bytes));
  } catch (cause) {
    throw new BundleError(`manifest ${where} is not JSON`, { cause });
  }
  const o = m as Partial<Manifest> | null;
  if (typeof o !== 'object' || o === null || o.formatVersion !== 1) {
    throw new BundleError(`manifest ${where} has no "formatVersion": 1`);
  }
  if (typeof o.bundleSha256 !== 'string' || !/^[0-9a-f]{64}$/.test(o.bundleSha256)) {
    throw new BundleError(`manifest ${where} has no valid "bundleSha256" (64 lowercase hex)`);
  }
  if (!Array.isArray(o.dags)) throw new BundleError(`manifest ${where} has no "dags" array`);
  return m as Manifest;
}

function checkVersion(version: string): void {
  if (!VERSION.test(version)) throw new BundleError(`invalid bundle version "${version}"`);
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Caches the promise; a failure is forgotten so the next call tries again. */
function memo<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  const hit = cache.get(key);
  if (hit) return hit;
  const p = make();
  cache.set(key, p);
  p.catch(() => cache.delete(key));
  return p;
}
