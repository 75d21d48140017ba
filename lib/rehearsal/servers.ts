/**
 * The local AWS-protocol servers a rehearsal forwards to: DynamoDB Local (AWS's own
 * engine, local/dynamodb-local.ts), local-aws-sqs (in a worker thread on the virtual
 * clock, see sqs-thread.mjs) and s3rver, each on a free port of 127.0.0.1.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { startDynamoDbLocal, type DynamoDbLocal } from '../runtime/dynamodb-local.js';
import { AirlessError } from '../engine/index.js';
import type { RehearsalClock } from './clock.js';
import { ACCOUNT_ID, REGION } from './template.js';
import { startS3rver } from './s3rver.js';

export interface LocalServers {
  dynamodb: string;
  sqs: string;
  s3: string;
  /** The next moment a delayed SQS message becomes visible or a visibility timeout ends; null when none. */
  sqsNextDue(): Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * @example
 * const servers = await startServers({ clock, dir: '.airless/rehearsal', dynamodbEndpoint: undefined });
 */
export async function startServers(o: { clock: RehearsalClock; dir: string; dynamodbEndpoint?: string }): Promise<LocalServers> {
  const stops: (() => Promise<void>)[] = [];
  try {
    let dynamodb = o.dynamodbEndpoint;
    if (!dynamodb) {
      const ddb: DynamoDbLocal = await startDynamoDbLocal();
      stops.push(() => ddb.stop());
      dynamodb = ddb.endpoint;
    }
    const sqs = await startSqsThread(o.clock);
    stops.push(sqs.stop);
    const s3 = await startS3rver({ directory: join(o.dir, 's3') });
    stops.push(() => s3.close());
    return {
      dynamodb,
      sqs: sqs.url,
      s3: s3.endpoint,
      sqsNextDue: sqs.nextDue,
      stop: async () => {
        for (const stop of stops.reverse()) await stop().catch(() => {});
      },
    };
  } catch (e) {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    throw e;
  }
}

async function startSqsThread(clock: RehearsalClock) {
  const worker = new Worker(new URL('./sqs-thread.mjs', import.meta.url), {
    workerData: { clockBuffer: clock.buffer, accountId: ACCOUNT_ID, region: REGION },
  });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (m: { type: string; port: number }) => (m.type === 'ready' ? resolve(m.port) : reject(new AirlessError(`sqs thread: ${JSON.stringify(m)}`))));
  });
  let nextId = 0;
  const pending = new Map<number, (n: number | null) => void>();
  worker.on('message', (m: { type: string; id: number; next: number | null }) => {
    if (m.type === 'nextDue') {
      pending.get(m.id)?.(m.next);
      pending.delete(m.id);
    }
  });
  return {
    url: `http://127.0.0.1:${port}`,
    nextDue: () => new Promise<number | null>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      worker.postMessage({ type: 'nextDue', id });
    }),
    stop: async () => {
      await worker.terminate();
    },
  };
}
