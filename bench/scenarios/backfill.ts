/**
 * Issue 21: the requests a backfilled run costs, and the cost model the backfill's dry run
 * estimates with (lib/engine/rules/cost-model.ts), counted by the real adapters
 * (DynamoStore on DynamoDB Local, SqsQueue on local-aws-sqs). Three measurements on one
 * set of tables: a 10-task chain run, a 100-task chain run (their difference is the
 * marginal task; the rest of the 10-task run is the run's own work), and a backfill of 5
 * runs of the 10-task chain, one at a time (less 5 plain runs: the backfill's own work:
 * its steps, the message each run's end sends, its advances). Lambda's SQS event source
 * is modelled for a quiet queue: each message its own invocation, one receive and one
 * delete each (the dry run's assumption, an upper bound). Reconcile does not run.
 *
 * `npm run bench -- --only backfill [--update-cost-model]` (the flag writes the figures
 * into cost-model.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { createTables, deleteTables } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { SqsQueue } from '../../lib/adapters/aws/sqs-queue.js';
import { MemoryLog, MemoryMetrics } from '../../lib/adapters/memory/observe.js';
import { COST_MODEL, createBackfill, DEFAULT_CONFIG, estimateBackfillCost, handleMessage, registerManifest, triggerRun } from '../../lib/engine/index.js';
import type { CostModel, Ports, Queue, QueueMessage, RequestCost, Timer } from '../../lib/engine/index.js';
import { chain, dag } from '../../lib/sdk/index.js';
import { InlineBundleSource } from '../../lib/runtime/inline-bundles.js';
import { PerfClock } from '../clock.js';

const SHORT = 10;
const LONG = 100;
const BACKFILL_RUNS = 5;
const DAY = 86_400_000;
const MODEL_FILE = fileURLToPath(new URL('../../lib/engine/rules/cost-model.ts', import.meta.url));

export interface BackfillBenchResult {
  tasksPerRun: number;
  runs: number;
  /** Everything one backfilled run of a 10-task chain costs, and in dollars. */
  perBackfilledRun: RequestCost & { requests: number; usd: number };
  /** The backfill's own part of that (the model's perBackfillRun). */
  backfillOverheadPerRun: RequestCost & { requests: number };
  /** The model as measured now, and whether cost-model.ts holds it (within 5 %). */
  measured: CostModel;
  modelUpToDate: boolean;
}

interface Count { wcu: number; rcu: number; requests: number; messages: number; sends: number; timers: number }

class CountingQueue implements Queue {
  messages = 0;
  sends = 0;
  constructor(readonly sqs: SqsQueue) {}
  async send(messages: readonly QueueMessage[], opts?: { delayMs?: number }): Promise<void> {
    await this.sqs.send(messages, opts);
    this.sends++;
    this.messages += messages.length;
  }
}

/** Every message a quiet queue's worker gets alone: one invocation, one receive, one delete. */
function cost(c: Count, per = 1): RequestCost {
  const r = (x: number) => Math.round((x / per) * 100) / 100;
  return { wcu: r(c.wcu), rcu: r(c.rcu), dynamoRequests: r(c.requests), sqsRequests: r(c.sends + 2 * c.messages), lambdaInvocations: r(c.messages), schedulerCalls: r(c.timers) };
}

const minus = (a: RequestCost, b: RequestCost, k = 1): RequestCost => {
  const r = (x: number) => Math.max(0, Math.round(x * 100) / 100);
  return {
    wcu: r(a.wcu - k * b.wcu), rcu: r(a.rcu - k * b.rcu), dynamoRequests: r(a.dynamoRequests - k * b.dynamoRequests),
    sqsRequests: r(a.sqsRequests - k * b.sqsRequests), lambdaInvocations: r(a.lambdaInvocations - k * b.lambdaInvocations), schedulerCalls: r(a.schedulerCalls - k * b.schedulerCalls),
  };
};
const requests = (c: RequestCost) => Math.round((c.dynamoRequests + c.sqsRequests + c.lambdaInvocations + c.schedulerCalls) * 100) / 100;
const close = (a: number, b: number) => Math.abs(a - b) <= Math.max(0.05 * Math.max(a, b), 0.01);
const same = (a: RequestCost, b: RequestCost) => (Object.keys(a) as (keyof RequestCost)[]).every((k) => close(a[k], b[k]));

/**
 * @example
 * const r = await backfillBench(dynamodbClient); r.perBackfilledRun.requests;
 */
export async function backfillBench(dynamodb: DynamoDBClient): Promise<BackfillBenchResult> {
  const sqsServer = await createSqsServer({ port: 0, emulateQueueCreationLifecycle: false });
  const sqsClient = new SQSClient({ endpoint: `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const prefix = `bench-bf-${Date.now().toString(36)}-`;
  try {
    await createTables(dynamodb, prefix);
    const { QueueUrl } = await sqsClient.send(new CreateQueueCommand({ QueueName: 'bench-backfill' }));
    const chainDag = (id: string, n: number) => dag(id, { schedule: '@daily', maxActiveRuns: 1 }, ({ task }) => {
      chain(...Array.from({ length: n }, (_, i) => task(`t${i}`, async () => undefined)));
    });
    const bundles = new InlineBundleSource([chainDag('bf_short', SHORT), chainDag('bf_long', LONG)]);
    const store = new DynamoStore({ client: dynamodb, tablePrefix: prefix });
    const sqs = new SqsQueue({ client: sqsClient, queueUrl: QueueUrl! });
    const queue = new CountingQueue(sqs);
    const clock = new PerfClock();
    let timers = 0;
    const timer: Timer = { schedule: async (_id, at, m) => { timers++; await queue.send([m], { delayMs: Math.min(900_000, Math.max(0, at - clock.now())) }); } };
    const ports: Ports = {
      store, queue, timer, clock, bundles, metrics: new MemoryMetrics(), log: new MemoryLog(undefined, 100), config: DEFAULT_CONFIG, workerId: 'bench-backfill',
      remainingMs: () => 5 * 60_000,
    };
    await registerManifest(ports, bundles.version, await bundles.manifest(bundles.version));
    const snap = (): Count => ({ wcu: store.usage.wcu, rcu: store.usage.rcu, requests: store.usage.requests, messages: queue.messages, sends: queue.sends, timers });
    const since = (a: Count): Count => { const b = snap(); return { wcu: b.wcu - a.wcu, rcu: b.rcu - a.rcu, requests: b.requests - a.requests, messages: b.messages - a.messages, sends: b.sends - a.sends, timers: b.timers - a.timers }; };
    const drain = async () => {
      for (;;) {
        const got = await sqs.receive(10, 30_000);
        if (got.length === 0) return;
        for (const d of got) { await handleMessage(ports, d.message); await sqs.ack(d); }
      }
    };
    const measureRun = async (dagId: string) => {
      const s0 = snap();
      const run = await triggerRun(ports, dagId, { runId: `${dagId}-manual` });
      await drain();
      if ((await store.getRun(dagId, run.runId))?.state !== 'success') throw new Error(`${dagId} did not succeed`);
      return cost(since(s0));
    };
    const short = await measureRun('bf_short');
    const long = await measureRun('bf_long');
    const perTask = minus(long, short);
    for (const k of Object.keys(perTask) as (keyof RequestCost)[]) perTask[k] = Math.round((perTask[k] / (LONG - SHORT)) * 100) / 100;
    const perRun = minus(short, perTask, SHORT);

    const b0 = snap();
    const today = Math.floor(clock.now() / DAY) * DAY;
    const b = await createBackfill(ports, { dagId: 'bf_short', fromDate: today - (BACKFILL_RUNS + 1) * DAY, toDate: today - 2 * DAY, maxActiveRuns: 1 });
    await drain();
    const done = await store.getBackfill(b.id);
    if (!done?.completedAt || done.created !== BACKFILL_RUNS) throw new Error(`the bench backfill did not complete: ${JSON.stringify(done)}`);
    const perBackfilled = cost(since(b0), BACKFILL_RUNS);
    const overhead = minus(perBackfilled, short);
    const measured: CostModel = { perTask, perRun, perBackfillRun: overhead, measured: `${new Date().toISOString().slice(0, 10)}, npm run bench -- --only backfill (DynamoDB Local, local-aws-sqs)` };
    const usd = estimateBackfillCost({ runs: 1, tasksPerRun: SHORT }, measured).usd;
    return {
      tasksPerRun: SHORT, runs: BACKFILL_RUNS,
      perBackfilledRun: { ...perBackfilled, requests: requests(perBackfilled), usd },
      backfillOverheadPerRun: { ...overhead, requests: requests(overhead) },
      measured,
      modelUpToDate: same(COST_MODEL.perTask, perTask) && same(COST_MODEL.perRun, perRun) && same(COST_MODEL.perBackfillRun, overhead),
    };
  } finally {
    await deleteTables(dynamodb, prefix).catch(() => undefined);
    sqsClient.destroy();
    await new Promise((r) => sqsServer.close(r));
  }
}

/** Writes the measured figures between cost-model.ts's `measured` markers. */
export function writeCostModel(model: CostModel): void {
  const text = readFileSync(MODEL_FILE, 'utf8');
  const line = (c: RequestCost) => `{ ${(Object.keys(c) as (keyof RequestCost)[]).map((k) => `"${k}": ${c[k]}`).join(', ')} }`;
  const block = [
    'export const COST_MODEL: CostModel = {',
    `  "perTask": ${line(model.perTask)},`,
    `  "perRun": ${line(model.perRun)},`,
    `  "perBackfillRun": ${line(model.perBackfillRun)},`,
    `  "measured": ${JSON.stringify(model.measured)}`,
    '};',
  ].join('\n');
  const out = text.replace(/(\/\/ measured:begin[^\n]*\n)[\s\S]*?(\n\/\/ measured:end)/, `$1${block}$2`);
  if (out === text && !text.includes(block)) throw new Error(`no measured markers in ${MODEL_FILE}`);
  writeFileSync(MODEL_FILE, out);
}

/** The bench's table lines. */
export function formatBackfill(r: BackfillBenchResult): string {
  const p = r.perBackfilledRun;
  const o = r.backfillOverheadPerRun;
  return [
    `5. Backfill: ${r.runs} backfilled runs of a ${r.tasksPerRun}-task chain, one at a time (quiet queue: a Lambda invocation per message)`,
    `   per backfilled run: ${p.requests} requests (${p.dynamoRequests} DynamoDB, ${p.sqsRequests} SQS, ${p.lambdaInvocations} Lambda), ${p.wcu} WCU, ${p.rcu} RCU: $${(p.usd * 1e6).toFixed(2)} per million runs`,
    `   the backfill's own share: ${o.requests} requests, ${o.wcu} WCU, ${o.rcu} RCU per run (its step, its message, its advance)`,
    `   cost model (lib/engine/rules/cost-model.ts): ${r.modelUpToDate ? 'up to date' : 'OUT OF DATE: run npm run bench -- --only backfill --update-cost-model'}`,
  ].join('\n');
}
