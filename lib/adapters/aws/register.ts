/**
 * Registering an uploaded bundle version: the manifest is validated (schedulers read
 * only manifests; no bundle code runs here), the DAG registry updated, the recurring
 * schedules synced, and the result written beside the manifest for `airless push`.
 */
import { GetObjectCommand, NoSuchKey, PutObjectCommand } from '@aws-sdk/client-s3';
import { isAwsError, wrapAwsError } from './aws-errors.js';
import { BundleError, registerManifest, BUILTIN_SENSOR_TYPES, validateDagSpec, type DagSpec } from '../../engine/index.js';
import type { AwsPorts } from './wiring.js';

/** EventBridge Scheduler's schedule name rule. */
const SCHEDULE_NAME = /^[0-9a-zA-Z_.-]{1,64}$/;

const MANIFEST_KEY = /^bundles\/([A-Za-z0-9_.-]{1,128})\/manifest\.json$/;

export interface RegisterResult {
  version: string;
  ok: boolean;
  error?: string;
  added?: string[];
  updated?: string[];
  removed?: string[];
  schedules?: { created: string[]; updated: string[]; deleted: string[] };
}

/** `bundles/<version>/registration.json`: what `airless push` waits for. */
export const registrationKey = (version: string) => `bundles/${version}/registration.json`;

/**
 * @example
 * await registerBundleVersion(ports, 'bundles/3f2a.../manifest.json');
 */
export async function registerBundleVersion(p: AwsPorts, key: string): Promise<RegisterResult> {
  const m = MANIFEST_KEY.exec(key);
  if (!m) {
    p.log.warn('ignored an object that is not a bundle manifest', { key });
    return { version: '', ok: false, error: `not a manifest key: ${key}` };
  }
  const version = m[1];
  let result: RegisterResult;
  try {
    // S3 delivers notifications at least once: a repeat of one already registered (`push`
    // deletes the verdict before it uploads) must not register that version again, which
    // would roll the registry back to it when a newer version came since. Checked before
    // the manifest, which a warm container may still hold after the object is gone.
    const previous = await readRegistration(p, version);
    if (previous?.ok) {
      p.log.info('duplicate notification of a registered bundle ignored', { version });
      return previous;
    }
    const manifest = await p.bundles.manifest(version);
    if (manifest.formatVersion !== 1 || !Array.isArray(manifest.dags)) throw new BundleError(`manifest of ${version} has an unknown format`);
    for (const spec of manifest.dags) validateDagSpec(spec, { knownSensorTypes: [...BUILTIN_SENSOR_TYPES, ...(manifest.sensorTypes ?? [])] });
    assertSchedulesCreatable(p, manifest.dags);
    const changes = await registerManifest(p, version, manifest);
    const paused = new Map((await p.store.listDags()).map((d) => [d.dagId, d.paused]));
    const s = await p.scheduleSync.sync(manifest.dags, { now: p.clock.now(), isPaused: (d) => paused.get(d.dagId) ?? d.pausedOnCreation });
    result = { version, ok: true, ...changes, schedules: { created: s.created, updated: s.updated, deleted: s.deleted } };
    p.log.info('bundle registered', { ...result });
  } catch (err) {
    result = { version, ok: false, error: (err as Error).message };
    p.log.error('bundle rejected', { version, error: result.error });
  }
  await p.clients.s3.send(new PutObjectCommand({
    Bucket: p.env.bucket, Key: registrationKey(version),
    Body: JSON.stringify(result), ContentType: 'application/json',
  }));
  return result;
}

/** The verdict an earlier delivery wrote for `version`, if any (404 needs s3:ListBucket, else 403). */
async function readRegistration(p: AwsPorts, version: string): Promise<RegisterResult | undefined> {
  try {
    const res = await p.clients.s3.send(new GetObjectCommand({ Bucket: p.env.bucket, Key: registrationKey(version) }));
    return JSON.parse((await res.Body?.transformToString()) ?? '') as RegisterResult;
  } catch (e) {
    if (e instanceof NoSuchKey || isAwsError(e, 'NoSuchKey', 'NotFound')) return undefined;
    throw wrapAwsError(`S3 GetObject s3://${p.env.bucket}/${registrationKey(version)}`, e);
  }
}

/**
 * Translates every DAG's schedule into its CreateSchedule request before the registry is
 * touched: a bundle with one schedule EventBridge cannot take (both day fields of a cron
 * restricted, a name it refuses) is rejected whole instead of half-registered.
 */
function assertSchedulesCreatable(p: AwsPorts, dags: readonly DagSpec[]): void {
  for (const dag of dags) {
    let name: string | undefined;
    try {
      name = p.scheduleSync.desiredSchedule(dag, { now: p.clock.now(), isPaused: () => false })?.Name;
    } catch (cause) {
      throw new BundleError(`dag ${dag.dagId}: its schedule cannot be created in EventBridge Scheduler: ${(cause as Error).message}`, { cause });
    }
    if (name !== undefined && !SCHEDULE_NAME.test(name)) {
      throw new BundleError(`dag ${dag.dagId}: schedule name ${name} is not a valid EventBridge Scheduler name (1-64 of A-Z a-z 0-9 _ . -)`);
    }
  }
}
