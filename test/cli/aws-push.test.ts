/**
 * `airless push` against s3rver: build, upload, then poll for the registration that a
 * simulated register-bundle step writes. Polling waits on an injected sleep, never for real.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClients } from '../../lib/adapters/aws/clients.js';
import { registrationKey, type RegisterResult } from '../../lib/adapters/aws/register.js';
import { LATEST_KEY, S3BundleSource } from '../../lib/adapters/aws/s3-bundles.js';
import { BundleError } from '../../lib/engine/index.js';
import { pushBundle } from '../../lib/cli/aws-push.js';
import { exitCodeFor } from '../../lib/cli/output.js';
import { startS3rver, type LocalS3 } from '../../lib/rehearsal/s3rver.js';

const BUCKET = 'push-test';
let work: string;
let dags: string;
let server: LocalS3;
let s3: S3Client;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'airless-push-test-'));
  dags = join(work, 'dags');
  await (await import('node:fs/promises')).mkdir(dags);
  await writeFile(join(dags, 'hello.ts'), `import { dag } from 'airless';
export default dag('hello', { schedule: '@daily', startDate: '2026-01-01' }, ({ task }) => { task('say', async () => 'hi'); });
`);
  // As the rehearsal loads it: a PUT answers once the object is whole (push reads back what it wrote).
  server = await startS3rver({ directory: join(work, 's3'), buckets: [BUCKET] });
  s3 = makeClients({ endpoints: { s3: server.endpoint } }).s3;
});

afterAll(async () => {
  s3?.destroy();
  await server?.close();
  await rm(work, { recursive: true, force: true });
});

/** A virtual clock whose sleep runs `onSleep` (the simulated register step) instead of waiting. */
function fakeTime(onSleep: (n: number) => Promise<void>) {
  let t = 0;
  let sleeps = 0;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms;
      await onSleep(++sleeps);
    },
    get sleeps() {
      return sleeps;
    },
  };
}

async function latestVersion(): Promise<string> {
  return (await (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: LATEST_KEY }))).Body!.transformToString()).trim();
}

async function writeRegistration(r: RegisterResult): Promise<void> {
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: registrationKey(r.version), Body: JSON.stringify(r) }));
}

describe('airless push', () => {
  it('uploads, waits for the registration and prints what changed', async () => {
    const lines: string[] = [];
    const time = fakeTime(async (n) => {
      if (n === 2) {
        const version = await latestVersion();
        await writeRegistration({ version, ok: true, added: ['hello'], updated: [], removed: ['old'], schedules: { created: ['hello'], updated: [], deleted: ['old'] } });
      }
    });
    const r = await pushBundle(dags, { s3, bucket: BUCKET, out: (l) => lines.push(l), ...time, intervalMs: 1_000 });
    expect(r.ok).toBe(true);
    expect(time.sleeps).toBe(2);
    const version = await latestVersion();
    expect(r.version).toBe(version);
    expect(lines).toEqual([
      `built 1 DAG(s) from ${dags}`,
      `uploaded bundle ${version} to s3://${BUCKET}; waiting for registration`,
      `registered bundle ${version}`,
      '  DAGs: added hello; removed old',
      '  schedules: created hello; deleted old',
    ]);
    // The DAG file's text went up beside the bundle: what `airless ui --stack` serves as get_dag_source.
    expect(await new S3BundleSource({ s3, bucket: BUCKET }).sources(version)).toEqual({ 'hello.ts': await readFile(join(dags, 'hello.ts'), 'utf8') });
  });

  it('does not take the verdict of an earlier push of the same build', async () => {
    // The previous test left a registration for this (content-addressed) version.
    const lines: string[] = [];
    const time = fakeTime(async () => writeRegistration({ version: await latestVersion(), ok: true, added: [], updated: [], removed: [], schedules: { created: [], updated: [], deleted: [] } }));
    await pushBundle(dags, { s3, bucket: BUCKET, out: (l) => lines.push(l), ...time });
    expect(time.sleeps).toBe(1);
    expect(lines.slice(-2)).toEqual(['  DAGs: no change', '  schedules: no change']);
  });

  it('reports a rejected bundle with its reason (exit 2)', async () => {
    const time = fakeTime(async () => writeRegistration({ version: await latestVersion(), ok: false, error: 'dag hello: unknown sensor type foo' }));
    const err = await pushBundle(dags, { s3, bucket: BUCKET, out: () => {}, ...time }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BundleError);
    expect((err as Error).message).toMatch(/^bundle [\w.-]+ was rejected: dag hello: unknown sensor type foo$/);
    expect(exitCodeFor(err)).toBe(2);
  });

  it('refuses a folder that does not build before uploading anything (exit 2): a stack has no import errors to list', async () => {
    const broken = join(work, 'broken');
    await (await import('node:fs/promises')).mkdir(broken);
    await writeFile(join(broken, 'oops.ts'), "import { dag } from 'airless';\nexport const x = ;\n");
    const before = await latestVersion();
    const lines: string[] = [];
    const err = await pushBundle(broken, { s3, bucket: BUCKET, out: (l) => lines.push(l), typecheck: false, ...fakeTime(async () => {}) }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^oops\.ts: .*line 2/);
    expect(exitCodeFor(err)).toBe(2);
    expect(lines).toEqual([]);
    expect(await latestVersion()).toBe(before);
  });

  it('gives up after the timeout with a hint (exit 1)', async () => {
    const time = fakeTime(async () => {});
    const err = await pushBundle(dags, { s3, bucket: BUCKET, out: () => {}, ...time, timeoutMs: 10_000, intervalMs: 2_000 }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/not registered within 10 s; check the register-bundle function/);
    expect(exitCodeFor(err)).toBe(1);
    expect(time.sleeps).toBe(5);
  });
});
