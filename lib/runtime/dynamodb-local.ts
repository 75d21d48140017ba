/**
 * Starts DynamoDB Local (AWS's own engine, a Java jar) for tests, benchmarks and the
 * chaos run. The jar ships inside the npm package `amplify-dynamodb-simulator`; only its
 * `package/emulator` folder is kept, cached outside the repository
 * (`$AIRLESS_CACHE/dynamodb-local` or `~/.cache/airless/dynamodb-local`).
 *
 * Run directly to keep one running: `npx tsx lib/runtime/dynamodb-local.ts [port]`.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { AirlessError } from '../engine/index.js';

const run = promisify(execFile);

/** The npm package (and version) that carries DynamoDB Local 1.25.1. */
export const DYNAMODB_LOCAL_PACKAGE = 'amplify-dynamodb-simulator@2.9.30';

/** Credentials and region every client of DynamoDB Local uses. */
export const LOCAL_AWS = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
} as const;

export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
}

/** DynamoDB Local could not be obtained or started (no Java, no registry, bad jar). */
export class DynamoDbLocalError extends AirlessError {}

/** Folder that holds (or will hold) `DynamoDBLocal.jar` and `DynamoDBLocal_lib/`. */
export function dynamoDbLocalCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const root = env.AIRLESS_CACHE ? join(env.AIRLESS_CACHE, 'dynamodb-local') : join(homedir(), '.cache', 'airless', 'dynamodb-local');
  return join(root, DYNAMODB_LOCAL_PACKAGE.split('@')[1]!);
}

/**
 * Returns the emulator folder, downloading it once. Extraction happens in a temporary
 * folder that is renamed into place, so a concurrent or interrupted run never sees half a jar.
 *
 * @example
 * const dir = await ensureDynamoDbLocalJar(); // .../dynamodb-local/2.9.30
 */
export async function ensureDynamoDbLocalJar(dir = dynamoDbLocalCacheDir()): Promise<string> {
  if (existsSync(join(dir, 'DynamoDBLocal.jar'))) return dir;
  const parent = join(dir, '..');
  await mkdir(parent, { recursive: true });
  const tmp = await mkdtemp(join(parent, '.tmp-'));
  try {
    await run('npm', ['pack', DYNAMODB_LOCAL_PACKAGE, '--silent', '--pack-destination', tmp], {
      cwd: tmp,
      maxBuffer: 16 * 1024 * 1024,
    });
    const tgz = (await readdir(tmp)).find((f) => f.endsWith('.tgz'));
    if (!tgz) throw new DynamoDbLocalError(`npm pack ${DYNAMODB_LOCAL_PACKAGE} produced no archive`);
    await run('tar', ['xzf', join(tmp, tgz), '-C', tmp, 'package/emulator']);
    if (!existsSync(join(tmp, 'package/emulator/DynamoDBLocal.jar'))) {
      throw new DynamoDbLocalError(`${DYNAMODB_LOCAL_PACKAGE} has no package/emulator/DynamoDBLocal.jar`);
    }
    try {
      await rename(join(tmp, 'package/emulator'), dir);
    } catch (err) {
      // Another process put it in place first: theirs is as good as ours.
      if (!existsSync(join(dir, 'DynamoDBLocal.jar'))) throw err;
    }
    return dir;
  } catch (err) {
    if (err instanceof DynamoDbLocalError) throw err;
    throw new DynamoDbLocalError(`cannot obtain DynamoDB Local (${DYNAMODB_LOCAL_PACKAGE}): ${(err as Error).message}`, {
      cause: err,
    });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** A TCP port free right now on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts DynamoDB Local in memory on a free port (or `port`) and resolves once it answers.
 *
 * @example
 * const ddb = await startDynamoDbLocal();
 * const client = new DynamoDBClient({ endpoint: ddb.endpoint, ...LOCAL_AWS });
 * await ddb.stop();
 */
export async function startDynamoDbLocal(opts: { port?: number; readyTimeoutMs?: number } = {}): Promise<DynamoDbLocal> {
  const dir = await ensureDynamoDbLocalJar();
  const port = opts.port ?? (await freePort());
  const endpoint = `http://127.0.0.1:${port}`;
  const child = spawn(
    'java',
    [
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(dir, 'DynamoDBLocal.jar'),
      '-inMemory',
      '-port',
      String(port),
      '-disableTelemetry',
    ],
    // DynamoDB Local writes dynamodb-local-metadata.json into its working directory (even
    // with -inMemory -disableTelemetry): keep it in the jar's folder, not the user's project.
    { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir },
  );
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-2000)));
  const exited = new Promise<Error>((resolve) => {
    child.once('error', (err) => resolve(err));
    child.once('exit', (code) => resolve(new Error(`java exited with code ${code}: ${stderr.trim()}`)));
  });
  // If the parent exits without calling stop(), do not leave a JVM behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = () => {
    process.off('exit', killOnExit);
    return stopChild(child);
  };
  let gone = false;
  try {
    await Promise.race([
      waitUntilAnswering(endpoint, opts.readyTimeoutMs ?? 30_000, () => gone),
      exited.then((err) => Promise.reject(err)),
    ]);
  } catch (err) {
    gone = true;
    await stop();
    throw new DynamoDbLocalError(`DynamoDB Local did not start on ${endpoint}: ${(err as Error).message}`, { cause: err });
  }
  return { endpoint, stop };
}

async function waitUntilAnswering(endpoint: string, timeoutMs: number, abandoned: () => boolean): Promise<void> {
  const client = new DynamoDBClient({ endpoint, ...LOCAL_AWS, maxAttempts: 1 });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (err) {
        if (Date.now() > deadline || abandoned()) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    client.destroy();
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = process.argv[2] ? Number(process.argv[2]) : undefined;
  const ddb = await startDynamoDbLocal({ port });
  console.log(`DynamoDB Local listening on ${ddb.endpoint} (Ctrl-C to stop)`);
  const shutdown = () => void ddb.stop().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
