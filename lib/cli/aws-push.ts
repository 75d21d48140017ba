/**
 * `airless push <dir>`: build, upload to the stack's bucket, then wait for the
 * register-bundle function's verdict in `bundles/<version>/registration.json`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, type S3Client } from '@aws-sdk/client-s3';
import { isAwsError } from '../adapters/aws/aws-errors.js';
import { registrationKey, type RegisterResult } from '../adapters/aws/register.js';
import { uploadBundle } from '../adapters/aws/s3-bundles.js';
import { buildBundle, bundleVersion } from '../build/index.js';
import { AirlessError, BundleError } from '../engine/index.js';
import { aws } from './aws-stack.js';

export interface PushOptions {
  /** Type-check the DAG files first (default true; `--no-typecheck` turns it off). */
  typecheck?: boolean;
  /** The build cache folder (the CLI's `.airless/cache`). @default no cache */
  cacheDir?: string;
  s3: S3Client;
  bucket: string;
  /** Where a line of output goes. @default process.stdout */
  out?: (line: string) => void;
  /** Waits between polls; tests pass one that does not sleep. @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
  /** @default Date.now */
  now?: () => number;
  /** @default 120_000 */
  timeoutMs?: number;
  /** @default 2_000 */
  intervalMs?: number;
}

/**
 * Builds `dir`, uploads it and waits for its registration. Resolves with the result when
 * registered; a rejected bundle throws {@link BundleError} (exit 2), a registration that
 * never comes an {@link AirlessError} (exit 1).
 *
 * @example
 * const r = await pushBundle('dags', { s3: clients.s3, bucket: env.bucket });
 * console.log(r.added);
 */
export async function pushBundle(dir: string, o: PushOptions): Promise<RegisterResult> {
  const out = o.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = o.now ?? Date.now;
  const timeoutMs = o.timeoutMs ?? 120_000;
  const intervalMs = o.intervalMs ?? 2_000;

  const work = await mkdtemp(join(tmpdir(), 'airless-push-'));
  try {
    const built = await buildBundle({ dir, outDir: work, typecheck: o.typecheck ?? true, cacheDir: o.cacheDir });
    out(`built ${built.manifest.dags.length} DAG(s) from ${dir}`);
    // Versions are content addressed: an earlier push of the same build left its verdict
    // here, and reading that one would answer before this upload is registered.
    const { version } = await uploadAfterClearing(o.s3, o.bucket, built.bundlePath, built.manifestPath);
    out(`uploaded bundle ${version} to s3://${o.bucket}; waiting for registration`);
    const deadline = now() + timeoutMs;
    for (;;) {
      const result = await readRegistration(o.s3, o.bucket, version);
      if (result) return report(result, out);
      if (now() >= deadline) {
        throw new AirlessError(
          `bundle ${version} was uploaded but not registered within ${Math.round(timeoutMs / 1000)} s; ` +
            'check the register-bundle function and its logs (is the S3 notification deployed?)',
          { retryable: true },
        );
      }
      await sleep(intervalMs);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function uploadAfterClearing(s3: S3Client, bucket: string, bundlePath: string, manifestPath: string) {
  const version = bundleVersion(JSON.parse(await readFile(manifestPath, 'utf8')));
  await aws(`S3 DeleteObject s3://${bucket}/${registrationKey(version)}`, () =>
    s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: registrationKey(version) })));
  return aws(`S3 upload to s3://${bucket}`, () => uploadBundle(s3, bucket, { bundlePath, manifestPath }));
}

async function readRegistration(s3: S3Client, bucket: string, version: string): Promise<RegisterResult | undefined> {
  const key = registrationKey(version);
  let text: string;
  try {
    const res = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    text = (await res.Body?.transformToString()) ?? '';
  } catch (e) {
    if (e instanceof NoSuchKey || isAwsError(e, 'NoSuchKey', 'NotFound')) return undefined;
    return aws(`S3 GetObject s3://${bucket}/${key}`, () => Promise.reject(e));
  }
  try {
    return JSON.parse(text) as RegisterResult;
  } catch (cause) {
    throw new AirlessError(`s3://${bucket}/${key} is not JSON`, { cause });
  }
}

function report(r: RegisterResult, out: (line: string) => void): RegisterResult {
  if (!r.ok) throw new BundleError(`bundle ${r.version} was rejected: ${r.error ?? 'no reason given'}`);
  const list = (label: string, ids: string[] | undefined) => (ids?.length ? [`${label} ${ids.join(', ')}`] : []);
  const dags = [...list('added', r.added), ...list('updated', r.updated), ...list('removed', r.removed)];
  const s = r.schedules;
  const schedules = [...list('created', s?.created), ...list('updated', s?.updated), ...list('deleted', s?.deleted)];
  out(`registered bundle ${r.version}`);
  out(`  DAGs: ${dags.length ? dags.join('; ') : 'no change'}`);
  out(`  schedules: ${schedules.length ? schedules.join('; ') : 'no change'}`);
  return r;
}
