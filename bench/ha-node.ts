/**
 * One engine process of the HA benchmark: a worker pump on the shared SQS queue and the
 * shared DynamoDB tables. It prints `ready` once warmed up, works until SIGTERM, then
 * prints one JSON line of {@link HaNodeStats} and exits.
 *
 * Started by scenarios/ha.ts as `node --import tsx bench/ha-node.ts` with HA_* variables.
 */
import { makeClients } from '../lib/adapters/aws/clients.js';
import { DynamoStore } from '../lib/adapters/aws/dynamo-store.js';
import { CountingMetrics } from '../lib/adapters/aws/metrics.js';
import { SqsQueue } from '../lib/adapters/aws/sqs-queue.js';
import { MemoryLog } from '../lib/adapters/memory/observe.js';
import { handleMessage } from '../lib/engine/index.js';
import { DEFAULT_CONFIG, type Delivery, type Ports } from '../lib/engine/index.js';
import { LOCAL_AWS } from '../lib/runtime/dynamodb-local.js';
import { InlineBundleSource } from '../lib/runtime/inline-bundles.js';
import { PerfClock } from './clock.js';
import { linearDag } from './dags.js';

export interface HaNodeStats {
  processId: string;
  handled: number;
  failedMessages: number;
  lostRaces: number;
  /** `dagId/runId/taskId` of every task body this process ran. */
  executed: string[];
}

/** Messages in flight per process, as a Lambda container runs a batch concurrently. */
const CONCURRENCY = 16;

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`ha node: ${name} is not set`);
  return v;
}

async function main(): Promise<void> {
  const processId = env('HA_PROCESS_ID');
  // DynamoDB Local keeps one database per access key: use the parent's.
  const clients = makeClients({
    endpoints: { dynamodb: env('HA_DDB_ENDPOINT'), sqs: env('HA_SQS_ENDPOINT') }, credentials: LOCAL_AWS.credentials, maxAttempts: 6,
  });
  const metrics = new CountingMetrics();
  const executed: string[] = [];
  const dag = linearDag(env('HA_DAG_ID'), Number(env('HA_DAG_TASKS')), (ctx) => {
    executed.push(`${ctx.dagId}/${ctx.runId}/${ctx.taskId}`);
  });
  const sqs = new SqsQueue({ client: clients.sqs, queueUrl: env('HA_QUEUE_URL') });
  const clock = new PerfClock();
  const ports: Ports = {
    store: new DynamoStore({ client: clients.dynamodb, tablePrefix: env('HA_TABLE_PREFIX'), metrics }),
    queue: sqs,
    timer: { schedule: async () => { throw new Error('the HA bench schedules no timers'); } },
    clock, metrics, bundles: new InlineBundleSource([dag]), log: new MemoryLog(undefined, 100),
    config: DEFAULT_CONFIG, workerId: processId,
  };
  let handled = 0;
  let failedMessages = 0;
  let stopping = false;
  const inflight = new Set<Promise<void>>();
  const handle = async (d: Delivery) => {
    try {
      await handleMessage(ports, d.message);
      await sqs.ack(d);
      handled++;
    } catch (err) {
      failedMessages++;
      process.stderr.write(`ha node ${processId}: ${String((err as Error)?.stack ?? err)}\n`);
    }
  };
  process.once('SIGTERM', () => { stopping = true; });
  // Warm up the SDK clients before the clock starts.
  await sqs.receive(1, 0);
  process.stdout.write('ready\n');
  while (!stopping) {
    const free = CONCURRENCY - inflight.size;
    const got = free > 0 ? await sqs.receive(Math.min(10, free), 30_000) : [];
    for (const d of got) {
      const job = handle(d).finally(() => inflight.delete(job));
      inflight.add(job);
    }
    if (got.length === 0) await Promise.race([new Promise((r) => setTimeout(r, 5)), ...inflight]);
  }
  await Promise.allSettled([...inflight]);
  const stats: HaNodeStats = {
    processId, handled, failedMessages, executed,
    lostRaces: metrics.get('store.lost_race'),
  };
  process.stdout.write(`${JSON.stringify(stats)}\n`);
  clients.dynamodb.destroy();
  clients.sqs.destroy();
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`ha node crashed: ${String((err as Error)?.stack ?? err)}\n`);
    process.exit(1);
  },
);
