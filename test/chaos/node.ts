/**
 * One chaos engine process: a worker, a reconciler and a poker at once, on the shared
 * DynamoDB tables and the shared SQS queue. The parent SIGKILLs it at random moments;
 * nothing here prepares for that, which is the point. Counters are written to a stats
 * file every 500 ms (a killed process cannot report at exit).
 *
 * Started by chaos.ts as `node --import tsx test/chaos/node.ts` with a {@link ChildEnv}.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeClients } from '../../lib/adapters/aws/clients.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { CountingMetrics } from '../../lib/adapters/aws/metrics.js';
import { SqsQueue } from '../../lib/adapters/aws/sqs-queue.js';
import { SystemClock } from '../../lib/adapters/clock.js';
import { LocalBundleSource } from '../../lib/build/local-source.js';
import { handleMessage } from '../../lib/engine/index.js';
import { MalformedMessageError } from '../../lib/engine/index.js';
import { pokeShard } from '../../lib/engine/index.js';
import type { Delivery, Log, Ports } from '../../lib/engine/index.js';
import { reconcile } from '../../lib/engine/index.js';
import { chaosGlobal } from './dags/_chaos.js';
import { CHAOS_CONFIG, CYCLE_MS, DelayTimer, DuplicatingQueue, seeded, type ChildEnv, type ChildStats } from './shared.js';

// The harness hands each poke its cycle through a process global (dags/_chaos.ts), which a
// task thread cannot see: chaos tests the engine's HA, so its tries run in process.
// Isolation has its own tests (test/isolation, ADR 0010).
process.env.AIRLESS_ISOLATION = 'none';

const VISIBILITY_MS = 4_000;
const CONCURRENCY = 16;

function env(name: keyof ChildEnv): string {
  const v = process.env[name];
  if (!v) throw new Error(`chaos node: ${name} is not set`);
  return v;
}

const stderrLog: Log = {
  info: () => {},
  warn: (msg, fields) => process.stderr.write(`WARN ${msg} ${JSON.stringify(fields ?? {})}\n`),
  error: (msg, fields) => process.stderr.write(`ERROR ${msg} ${JSON.stringify(fields ?? {})}\n`),
};

async function main(): Promise<void> {
  const processId = env('CHAOS_PROCESS_ID');
  const clients = makeClients({ endpoints: { dynamodb: env('CHAOS_DDB_ENDPOINT'), sqs: env('CHAOS_SQS_ENDPOINT') }, maxAttempts: 6 });
  const metrics = new CountingMetrics();
  const store = new DynamoStore({ client: clients.dynamodb, tablePrefix: env('CHAOS_TABLE_PREFIX'), metrics });
  const sqs = new SqsQueue({ client: clients.sqs, queueUrl: env('CHAOS_QUEUE_URL') });
  const queue = new DuplicatingQueue(sqs, Number(env('CHAOS_DUP_PROBABILITY')), seeded(Number(env('CHAOS_SEED'))));
  const clock = new SystemClock();
  const ports: Ports = {
    store, queue, clock, metrics,
    timer: new DelayTimer(queue, () => clock.now()),
    bundles: new LocalBundleSource(env('CHAOS_BUNDLE_ROOT')),
    log: stderrLog,
    config: CHAOS_CONFIG,
    workerId: processId,
  };
  let handled = 0;
  let failedMessages = 0;
  let stopping = false;

  const statsFile = join(env('CHAOS_STATS_DIR'), `${processId}.json`);
  const writeStats = () => {
    const stats: ChildStats = {
      processId, pid: process.pid, at: Date.now(), handled, failedMessages, duplicateSends: queue.duplicates,
      counters: metrics.snapshot(), sqsRequests: sqs.usage.requests, dynamoRequests: store.usage.requests,
    };
    // Written then renamed: the parent never reads half a file, even after a SIGKILL.
    writeFileSync(`${statsFile}.tmp`, JSON.stringify(stats));
    renameSync(`${statsFile}.tmp`, statsFile);
  };
  const statsTimer = setInterval(writeStats, 500);

  const inflight = new Set<Promise<void>>();
  const handle = async (d: Delivery): Promise<void> => {
    try {
      await handleMessage(ports, d.message);
      await sqs.ack(d);
      handled++;
    } catch (err) {
      failedMessages++;
      // Left in flight: SQS redelivers it after the visibility timeout, as Lambda would.
      if (!(err instanceof MalformedMessageError)) stderrLog.error('message failed', { error: String((err as Error)?.stack ?? err) });
    }
  };
  const pump = async () => {
    while (!stopping) {
      const free = CONCURRENCY - inflight.size;
      const got = free > 0 ? await sqs.receive(Math.min(10, free), VISIBILITY_MS).catch(() => []) : [];
      for (const d of got) {
        const job = handle(d).finally(() => inflight.delete(job));
        inflight.add(job);
      }
      if (got.length === 0) await Promise.race([sleep(50), ...inflight]);
    }
  };
  const reconcileLoop = async () => {
    while (!stopping) {
      await reconcile(ports, { schedules: false }).catch((err) => stderrLog.error('reconcile failed', { error: String(err) }));
      await sleep(CYCLE_MS);
    }
  };
  const pokeLoop = async () => {
    while (!stopping) {
      const cycle = Math.floor(Date.now() / CYCLE_MS);
      chaosGlobal().cycle = cycle;
      for (let s = 0; s < CHAOS_CONFIG.shards; s++) {
        await pokeShard(ports, s, { shards: CHAOS_CONFIG.shards, cycle }).catch((err) => stderrLog.error('poke failed', { error: String(err) }));
      }
      // Next pass in the next cycle: a cycle number is never reused by this process.
      await sleep((cycle + 1) * CYCLE_MS - Date.now() + 20);
    }
  };

  const loops = Promise.all([pump(), reconcileLoop(), pokeLoop()]);
  process.once('SIGTERM', () => { stopping = true; });
  await loops;
  await Promise.allSettled([...inflight]);
  clearInterval(statsTimer);
  writeStats();
  clients.dynamodb.destroy();
  clients.sqs.destroy();
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, ms)));
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`chaos node crashed: ${String((err as Error)?.stack ?? err)}\n`);
    process.exit(1);
  },
);
