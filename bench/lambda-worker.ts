/**
 * The worker Lambda as it ships, in this process: functions/worker.ts bundled by esbuild
 * with the settings `cdk synth` uses (lib/infra/functions.ts `BUNDLING`), given the
 * environment the stack sets, pointed at local servers through one routing endpoint
 * (aws-proxy.ts), and invoked with SQS events the way Lambda's event source does: receive
 * up to a batch, invoke, delete what succeeded. Each invocation is timed: Lambda bills the
 * handler's wall time, rounded up to the millisecond, times the configured memory.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { build } from 'esbuild';
import { BUNDLING, WORKER_DEFAULTS } from '../lib/infra/functions.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Inside node_modules, so the bundle's external `@aws-sdk/*` imports resolve as Lambda's runtime provides them. */
const OUT_DIR = `${ROOT}node_modules/.cache/airless-bench/`;

type Handler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

/**
 * Bundles functions/worker.ts as NodejsFunction does (ESM, minified, names kept, source
 * maps, the require banner, `@aws-sdk/*` external). Returns the bundle's path.
 *
 * @example
 * const file = await bundleWorker(); // .../node_modules/.cache/airless-bench/worker-<sha>.mjs
 */
export async function bundleWorker(): Promise<string> {
  mkdirSync(OUT_DIR, { recursive: true });
  const staging = `${OUT_DIR}worker-staging.mjs`;
  await build({
    entryPoints: [`${ROOT}functions/worker.ts`],
    outfile: staging,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLING.target,
    mainFields: BUNDLING.mainFields,
    minify: BUNDLING.minify,
    keepNames: BUNDLING.keepNames,
    sourcemap: BUNDLING.sourceMap,
    sourcesContent: BUNDLING.sourcesContent,
    banner: { js: BUNDLING.banner! },
    external: BUNDLING.externalModules,
    logLevel: 'error',
  });
  // Content-addressed: an import of the same path would return the module cached before.
  const sha = createHash('sha256').update(readFileSync(staging)).digest('hex').slice(0, 12);
  const file = `${OUT_DIR}worker-${sha}.mjs`;
  const { renameSync } = await import('node:fs');
  renameSync(staging, file);
  renameSync(`${staging}.map`, `${file}.map`);
  return file;
}

/** The billing figures of a function: its memory and architecture as the stack configures them. */
export const WORKER_MEMORY_MB = WORKER_DEFAULTS.memoryMb;
export const WORKER_ARCHITECTURE = WORKER_DEFAULTS.architecture;

export interface Invocation {
  records: number;
  /** Wall time of the handler, ms. */
  ms: number;
  failed: number;
}

/** A loaded worker bundle and the invocations made through it. */
export class BundledWorker {
  readonly invocations: Invocation[] = [];
  private constructor(private readonly handler: Handler, private readonly sqs: SQSClient, private readonly queueUrl: string, private readonly queueArn: string) {}

  /**
   * Imports the bundle. Set the function's environment (`process.env`) first: the handler
   * builds its ports from it on the first invocation, as a cold container does.
   */
  static async load(file: string, sqs: SQSClient, queueUrl: string, queueArn: string): Promise<BundledWorker> {
    const mod = (await import(pathToFileURL(file).href)) as { handler: Handler };
    return new BundledWorker(mod.handler, sqs, queueUrl, queueArn);
  }

  /**
   * Receives up to `batch` messages, invokes the handler with them and deletes what
   * succeeded (one DeleteMessageBatch, as the event source does). Returns the records
   * handled, 0 when nothing was visible.
   */
  async deliver(batch: number): Promise<number> {
    const res = await this.sqs.send(new ReceiveMessageCommand({
      QueueUrl: this.queueUrl, MaxNumberOfMessages: batch, WaitTimeSeconds: 0, VisibilityTimeout: 60,
      AttributeNames: ['All'], MessageSystemAttributeNames: ['All'],
    }));
    const messages = res.Messages ?? [];
    if (messages.length === 0) return 0;
    const records: SQSRecord[] = messages.map((m) => ({
      messageId: m.MessageId!, receiptHandle: m.ReceiptHandle!, body: m.Body ?? '',
      attributes: {
        ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1', SentTimestamp: m.Attributes?.SentTimestamp ?? '0',
        SenderId: 'bench', ApproximateFirstReceiveTimestamp: m.Attributes?.ApproximateFirstReceiveTimestamp ?? '0',
      },
      messageAttributes: {}, md5OfBody: m.MD5OfBody ?? '', eventSource: 'aws:sqs', eventSourceARN: this.queueArn, awsRegion: 'us-east-1',
    }));
    const started = performance.now();
    const deadline = Date.now() + 300_000;
    const out = (await this.handler({ Records: records }, context(deadline))) ?? { batchItemFailures: [] };
    const ms = performance.now() - started;
    const failed = new Set(out.batchItemFailures.map((f) => f.itemIdentifier));
    this.invocations.push({ records: records.length, ms, failed: failed.size });
    const done = records.filter((r) => !failed.has(r.messageId));
    if (done.length > 0) {
      await this.sqs.send(new DeleteMessageBatchCommand({
        QueueUrl: this.queueUrl, Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
      }));
    }
    return records.length;
  }

  /** Delivers batches until the queue has nothing visible. */
  async drain(batch: number): Promise<void> {
    while ((await this.deliver(batch)) > 0);
  }
}

function context(deadline: number): Context {
  return {
    callbackWaitsForEmptyEventLoop: false, functionName: 'worker', functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:worker', memoryLimitInMB: String(WORKER_MEMORY_MB),
    awsRequestId: `bench-${Math.trunc(performance.now() * 1000)}`, logGroupName: '/aws/lambda/worker', logStreamName: 'bench',
    getRemainingTimeInMillis: () => deadline - Date.now(), done: () => {}, fail: () => {}, succeed: () => {},
  };
}

/**
 * Billed GB-seconds of some invocations: each rounded up to the millisecond (Lambda's
 * granularity since 2020), times the memory.
 *
 * @example
 * gbSeconds([{ records: 10, ms: 41.2, failed: 0 }], 1024); // 0.042
 */
export function gbSeconds(invocations: readonly Invocation[], memoryMb: number): number {
  return invocations.reduce((s, i) => s + Math.ceil(i.ms) / 1000, 0) * (memoryMb / 1024);
}
