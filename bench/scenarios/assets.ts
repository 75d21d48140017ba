/**
 * Issue 21 section 4: what one asset event costs, counted by the real adapters (DynamoStore
 * on DynamoDB Local, SqsQueue on local-aws-sqs in process) and priced at list prices:
 * - an external event (an S3 object) that makes a DAG's run due: the asset-events function's
 *   requests, then the worker's evaluation that creates the run (its tasks are the run's
 *   own cost, measured by the cost scenario, and left out);
 * - the same event delivered again (a duplicate): what recognising it costs;
 * - an event that only queues (an `allOf` DAG still waiting for its other asset);
 * - a task's outlet event (the event, its verify copy a minute later, the run it triggers).
 * Lambda invocations are counted per event (EventBridge invokes once per event; the
 * worker's evaluate message rides a batch of 10 under load, as in the cost scenario).
 * S3's and other AWS services' events reach EventBridge and its rules at no charge.
 */
import type { AddressInfo } from 'node:net';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { createTables, deleteTables } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { SqsQueue } from '../../lib/adapters/aws/sqs-queue.js';
import { MemoryLog, MemoryMetrics } from '../../lib/adapters/memory/observe.js';
import { DEFAULT_CONFIG, handleMessage, ingestExternalEvent, registerManifest, triggerRun, type Ports, type Queue, type QueueMessage, type Timer } from '../../lib/engine/index.js';
import { allOf, asset, dag, watch } from '../../lib/sdk/index.js';
import { InlineBundleSource } from '../../lib/runtime/inline-bundles.js';
import { PerfClock } from '../clock.js';
import { usd } from '../prices.js';
import { LAMBDA_BATCH } from './cost.js';

/** Requests of one step. */
export interface AssetUsage {
  wcu: number;
  rcu: number;
  dynamoRequests: number;
  sqsSends: number;
  /** Lambda invocations: asset-events (one per EventBridge event) and the worker's share of a batch. */
  invocations: number;
}

export interface AssetCostResult {
  /** An S3 object's event recorded and queued, and the run it makes due created. */
  externalTriggering: { ingest: AssetUsage; evaluate: AssetUsage; usdPerMillion: number };
  /** The same notification delivered again. */
  duplicate: { usage: AssetUsage; usdPerMillion: number };
  /** An event that only queues (the DAG waits for another asset). */
  queuedOnly: { usage: AssetUsage; usdPerMillion: number };
  /** A task's outlet event beyond the task's own cost: the event, queueing it, the delayed verify copy (the run it makes due costs `externalTriggering.evaluate`). */
  outlet: { usage: AssetUsage; usdPerMillion: number };
}

class CountingQueue implements Queue {
  sends = 0;
  constructor(readonly sqs: SqsQueue) {}
  async send(messages: readonly QueueMessage[], opts?: { delayMs?: number }): Promise<void> {
    const before = this.sqs.usage.requests;
    await this.sqs.send(messages, opts);
    this.sends += this.sqs.usage.requests - before;
  }
}

const r4 = (x: number) => Math.round(x * 1e4) / 1e4;

function price(u: AssetUsage): number {
  const m = 1e6;
  return Math.round((usd('dynamoWrite', u.wcu * m) + usd('dynamoRead', u.rcu * m) + usd('sqsRequest', u.sqsSends * m) + usd('lambdaRequest', u.invocations * m)) * 100) / 100;
}

/**
 * @example
 * const assets = await assetCostBench(dynamodbClient);
 * assets.externalTriggering.usdPerMillion; // dollars per million S3 objects that each trigger a run
 */
export async function assetCostBench(dynamodb: DynamoDBClient): Promise<AssetCostResult> {
  const sqsServer = await createSqsServer({ port: 0, emulateQueueCreationLifecycle: false });
  const sqsClient = new SQSClient({ endpoint: `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const prefix = `bench-assets-${Date.now().toString(36)}-`;
  try {
    await createTables(dynamodb, prefix);
    const { QueueUrl } = await sqsClient.send(new CreateQueueCommand({ QueueName: 'bench-assets' }));
    const landing = asset('s3://lake/landing', { watchers: [watch.s3({ bucket: 'lake', prefix: 'landing/' })] });
    const other = asset('s3://lake/other', { watchers: [watch.s3({ bucket: 'lake', prefix: 'other/' })] });
    const never = asset('never');
    const clean = asset('clean');
    const dags = [
      dag('on_landing', { schedule: landing }, ({ task }) => { task('t', () => 1); }),
      dag('waits', { schedule: allOf(other, never) }, ({ task }) => { task('t', () => 1); }),
      dag('producer', {}, ({ task }) => { task('write', () => 1, { outlets: [clean] }); }),
      dag('plain', {}, ({ task }) => { task('write', () => 1); }),
      dag('on_clean', { schedule: clean }, ({ task }) => { task('t', () => 1); }),
    ];
    const bundles = new InlineBundleSource(dags);
    const store = new DynamoStore({ client: dynamodb, tablePrefix: prefix });
    const sqs = new SqsQueue({ client: sqsClient, queueUrl: QueueUrl! });
    const queue = new CountingQueue(sqs);
    const clock = new PerfClock();
    // Delayed copies (an outlet's verify copy, a minute later) are counted as sent and kept, to be handled when the bench says.
    const delayed: QueueMessage[] = [];
    const timer: Timer = { schedule: async (_id, _at, m) => { queue.sends++; delayed.push(m); } };
    const ports: Ports = { store, queue, timer, clock, bundles, metrics: new MemoryMetrics(), log: new MemoryLog(undefined, 100), config: DEFAULT_CONFIG, workerId: 'bench-assets' };
    await registerManifest(ports, bundles.version, await bundles.manifest(bundles.version));
    const snap = () => ({ wcu: store.usage.wcu, rcu: store.usage.rcu, dynamoRequests: store.usage.requests, sqsSends: queue.sends });
    const since = (a: ReturnType<typeof snap>, invocations: number): AssetUsage => {
      const b = snap();
      return { wcu: r4(b.wcu - a.wcu), rcu: r4(b.rcu - a.rcu), dynamoRequests: b.dynamoRequests - a.dynamoRequests, sqsSends: b.sqsSends - a.sqsSends, invocations };
    };
    const add = (...us: AssetUsage[]): AssetUsage => us.reduce((a, u) => ({
      wcu: r4(a.wcu + u.wcu), rcu: r4(a.rcu + u.rcu), dynamoRequests: a.dynamoRequests + u.dynamoRequests, sqsSends: a.sqsSends + u.sqsSends, invocations: r4(a.invocations + u.invocations),
    }));
    // Handles the queued messages of one kind as workers would: each received batch is a receive and a delete (SQS requests).
    const drain = async (kind: 'asset' | 'any' | 'not-evaluate'): Promise<AssetUsage> => {
      const s = snap();
      let batches = 0;
      for (;;) {
        const got = await sqs.receive(LAMBDA_BATCH, 30_000);
        if (got.length === 0) break;
        batches++;
        for (const d of got) {
          const m = d.message as { kind?: string; op?: string };
          const evaluate = m.kind === 'asset' && m.op === 'evaluate';
          if (kind === 'any' || (kind === 'asset' && m.kind === 'asset') || (kind === 'not-evaluate' && !evaluate)) await handleMessage(ports, d.message);
          await sqs.ack(d);
        }
      }
      const u = since(s, 0);
      return { ...u, sqsSends: u.sqsSends + 2 * batches, invocations: r4(batches / LAMBDA_BATCH) };
    };
    const s3 = (key: string, etag: string) => ({
      source: 's3' as const, bucket: 'lake', key, etag, size: 10, time: clock.now(),
      event: { id: `e-${key}`, source: 'aws.s3', 'detail-type': 'Object Created', detail: { bucket: { name: 'lake' }, object: { key, etag, size: 10 } } },
    });

    const i0 = snap();
    await ingestExternalEvent(ports, s3('landing/a.csv', '"1"'));
    const ingest = since(i0, 1);
    const evaluate = await drain('asset');
    if ((await store.listRuns('on_landing')).length !== 1) throw new Error('the S3 event did not create its run');

    const d0 = snap();
    await ingestExternalEvent(ports, s3('landing/a.csv', '"1"'));
    const duplicate = since(d0, 1);

    const q0 = snap();
    await ingestExternalEvent(ports, s3('other/b.csv', '"1"'));
    const queuedOnly = since(q0, 1);

    // The outlet's cost: a run of `producer` (its verify copy handled too) minus a run of `plain`, the same task without an outlet.
    await drain('any');
    delayed.length = 0;
    const p0 = snap();
    await triggerRun(ports, 'plain', { runId: 'plain' });
    const plainUsage = add(since(p0, 0), await drain('any'));
    const o0 = snap();
    await triggerRun(ports, 'producer', { runId: 'producer' });
    const started = since(o0, 0);
    const produced = await drain('not-evaluate');
    const v0 = snap();
    for (const m of delayed.splice(0)) await handleMessage(ports, m);
    // The verify copy is one more worker invocation's share and its receive and delete.
    const verify = add(since(v0, 0), { wcu: 0, rcu: 0, dynamoRequests: 0, sqsSends: 2 / LAMBDA_BATCH, invocations: 1 / LAMBDA_BATCH });
    const producerUsage = add(started, produced, verify);
    if ((await store.listAssetEvents(clean.uri, { limit: 5 })).length !== 1) throw new Error('the outlet did not emit one event');
    const minus = (a: AssetUsage, b: AssetUsage): AssetUsage => ({
      wcu: r4(a.wcu - b.wcu), rcu: r4(a.rcu - b.rcu), dynamoRequests: a.dynamoRequests - b.dynamoRequests, sqsSends: r4(a.sqsSends - b.sqsSends), invocations: r4(a.invocations - b.invocations),
    });
    const outlet = minus(producerUsage, plainUsage);
    return {
      externalTriggering: { ingest, evaluate, usdPerMillion: price(add(ingest, evaluate)) },
      duplicate: { usage: duplicate, usdPerMillion: price(duplicate) },
      queuedOnly: { usage: queuedOnly, usdPerMillion: price(queuedOnly) },
      outlet: { usage: outlet, usdPerMillion: price(outlet) },
    };
  } finally {
    await deleteTables(dynamodb, prefix).catch(() => undefined);
    sqsClient.destroy();
    await new Promise((r) => sqsServer.close(r));
  }
}

/** The lines `npm run bench` prints. */
export function formatAssetCost(a: AssetCostResult): string {
  const row = (name: string, u: AssetUsage, usdM: number) =>
    `  ${name.padEnd(52)} ${String(u.wcu).padStart(6)} WCU ${String(u.rcu).padStart(6)} RCU ${String(u.sqsSends).padStart(3)} SQS ${String(u.invocations).padStart(5)} Lambda  $${usdM.toFixed(2)}/M`;
  const t = a.externalTriggering;
  return [
    'Asset events (per event; DynamoDB Local and local-aws-sqs, list prices):',
    row('S3 object -> recorded and queued (asset-events)', t.ingest, price(t.ingest)),
    row('  -> its run created (worker, evaluate message)', t.evaluate, price(t.evaluate)),
    row('S3 object that triggers a run, in all', { ...t.ingest, wcu: r4(t.ingest.wcu + t.evaluate.wcu), rcu: r4(t.ingest.rcu + t.evaluate.rcu), sqsSends: t.ingest.sqsSends + t.evaluate.sqsSends, invocations: r4(t.ingest.invocations + t.evaluate.invocations) }, t.usdPerMillion),
    row('the same notification delivered again', a.duplicate.usage, a.duplicate.usdPerMillion),
    row('an event that only queues (allOf still waiting)', a.queuedOnly.usage, a.queuedOnly.usdPerMillion),
    row('a task outlet event (event, queueing, verify copy)', a.outlet.usage, a.outlet.usdPerMillion),
  ].join('\n');
}
