/**
 * Scenario 3, cost: the requests one task instance costs on the Lambda path, counted by
 * the real adapters (DynamoStore on DynamoDB Local, SqsQueue on local-aws-sqs in process)
 * for a 10-task chain and for one sensor wait, then priced at list prices (prices.ts).
 *
 * Lambda's SQS event source is modelled, not run: under load it receives 10 messages per
 * ReceiveMessage and deletes them with one DeleteMessageBatch (both billed), and one worker
 * invocation handles the batch of 10. Reconcile does not run during the chain: it is a
 * fixed per-minute cost, reported apart with the pokers' schedules.
 */
import type { AddressInfo } from 'node:net';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { createTables, deleteTables } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { SqsQueue } from '../../lib/adapters/aws/sqs-queue.js';
import { MemoryLog, MemoryMetrics } from '../../lib/adapters/memory/observe.js';
import { handleMessage } from '../../lib/engine/index.js';
import { DEFAULT_CONFIG, type Ports, type Queue, type QueueMessage, type Timer } from '../../lib/engine/index.js';
import { pokeShard } from '../../lib/engine/index.js';
import { reconcile } from '../../lib/engine/index.js';
import { registerManifest, triggerRun } from '../../lib/engine/index.js';
import { chain, dag, defineSensor } from '../../lib/sdk/index.js';
import { InlineBundleSource } from '../../lib/runtime/inline-bundles.js';
import { PerfClock } from '../clock.js';
import { PRICES, STEP_FUNCTIONS_TRANSITIONS_PER_TASK, HOURS_PER_MONTH, usd } from '../prices.js';

/** Messages one worker invocation takes from SQS under load (the event source's batch size). */
export const LAMBDA_BATCH = 10;
const CHAIN_TASKS = 10;
const LONG_CHAIN_TASKS = 100;
/** Cycles the bench sensor answers "not yet" before its target appears. */
const SENSOR_MISSES = 3;

export interface Usage {
  wcu: number;
  rcu: number;
  dynamoRequests: number;
  /** Messages put on the ready queue. */
  messages: number;
  /** SendMessage(Batch) requests actually made. */
  sendRequests: number;
  schedulerCalls: number;
}

export interface PerTask {
  wcu: number;
  rcu: number;
  /** Sends as made, plus one receive and one delete per batch of 10 messages (Lambda under load). */
  sqsRequests: number;
  schedulerCalls: number;
  /** Worker invocations: messages / 10 under load (1 per message when idle). */
  invocations: number;
}

export interface CostResult {
  chain: { tasks: number; total: Usage };
  perTask: PerTask;
  /** The same, when the queue is so quiet that every message is its own Lambda batch. */
  perTaskIdle: PerTask;
  usdPerMillionTasks: number;
  usdPerMillionTasksIdle: number;
  /** The same under load for a 100-task chain: the run's own writes spread over more tasks. */
  longChain: { tasks: number; total: Usage; perTask: PerTask; usdPerMillionTasks: number };
  /** The 10-task chain whose tasks have a 1-minute execution timeout: a worker Lambda runs each next task itself (eager follow). */
  eagerChain: { tasks: number; total: Usage; perTask: PerTask; usdPerMillionTasks: number };
  breakdownUsdPerMillion: { dynamoWrites: number; dynamoReads: number; sqs: number; lambdaRequests: number; scheduler: number };
  stepFunctionsUsdPerMillionTasks: number;
  stepFunctionsUsdPerMillionTasksRange: [number, number];
  /** One sensor from registration to success, after `misses` "not yet" cycles. */
  sensorWait: { misses: number; total: Usage; perMissedCycle: Pick<Usage, 'wcu' | 'rcu'>; usd: number; usdPerMissedCycle: number };
  /** Idle costs per month whatever the load: reconcile every minute, one poker per shard every minute. */
  fixedMonthly: { reconcileUsd: number; pokersUsd: number; totalUsd: number; idleReconcile: Pick<Usage, 'wcu' | 'rcu'> };
  mwaaSmallUsdPerMonth: number;
}

/** The real clock moved forward by `shiftMs`, so poke cycles a minute apart take no wall time. */
export class ShiftedClock extends PerfClock {
  shiftMs = 0;
  override now(): number {
    return super.now() + this.shiftMs;
  }
}

/** Counts what passes through the queue and the timer on top of the real SqsQueue. */
export class CountingQueue implements Queue {
  messages = 0;
  sendRequests = 0;
  constructor(readonly sqs: SqsQueue) {}
  async send(messages: readonly QueueMessage[], opts?: { delayMs?: number }): Promise<void> {
    const before = this.sqs.usage.requests;
    await this.sqs.send(messages, opts);
    this.sendRequests += this.sqs.usage.requests - before;
    this.messages += messages.length;
  }
}

/** A timer that counts its calls (EventBridge Scheduler requests) and delivers through an SQS delay. */
export class CountingTimer implements Timer {
  calls = 0;
  constructor(private readonly queue: Queue, private readonly now: () => number) {}
  async schedule(_id: string, at: number, message: QueueMessage): Promise<void> {
    this.calls++;
    await this.queue.send([message], { delayMs: Math.min(900_000, Math.max(0, at - this.now())) });
  }
  async cancel(): Promise<void> {
    this.calls++;
  }
}

const r4 = (x: number) => Math.round(x * 1e4) / 1e4;

export function perTask(u: Usage, tasks: number, batch: number): PerTask {
  const batches = Math.ceil(u.messages / batch);
  return {
    wcu: r4(u.wcu / tasks),
    rcu: r4(u.rcu / tasks),
    sqsRequests: r4((u.sendRequests + 2 * batches) / tasks),
    schedulerCalls: r4(u.schedulerCalls / tasks),
    invocations: r4(batches / tasks),
  };
}

export function priceMillion(t: PerTask) {
  const m = 1e6;
  return {
    dynamoWrites: usd('dynamoWrite', t.wcu * m),
    dynamoReads: usd('dynamoRead', t.rcu * m),
    sqs: usd('sqsRequest', t.sqsRequests * m),
    lambdaRequests: usd('lambdaRequest', t.invocations * m),
    // Conservative: the Scheduler free tier (14 million a month) is not subtracted.
    scheduler: usd('schedulerInvocation', t.schedulerCalls * m),
  };
}
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
const r2 = (x: number) => Math.round(x * 100) / 100;

/**
 * @example
 * const cost = await costBench(dynamodbClient);
 * cost.usdPerMillionTasks; // orchestration dollars per million task instances
 */
export async function costBench(dynamodb: DynamoDBClient): Promise<CostResult> {
  const sqsServer = await createSqsServer({ port: 0, emulateQueueCreationLifecycle: false });
  const sqsClient = new SQSClient({
    endpoint: `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`,
    region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const prefix = `bench-cost-${Date.now().toString(36)}-`;
  try {
    await createTables(dynamodb, prefix);
    const { QueueUrl } = await sqsClient.send(new CreateQueueCommand({ QueueName: 'bench-cost' }));
    let targetThere = false;
    const flag = defineSensor('bench_flag', async () => targetThere);
    const chainDag = dag('cost_chain', {}, ({ task }) => {
      chain(...Array.from({ length: CHAIN_TASKS }, (_, i) => task(`t${i}`, async () => undefined)));
    });
    const eagerDag = dag('cost_chain_eager', { defaultArgs: { executionTimeout: '1m' } }, ({ task }) => {
      chain(...Array.from({ length: CHAIN_TASKS }, (_, i) => task(`t${i}`, async () => undefined)));
    });
    const longDag = dag('cost_chain_100', {}, ({ task }) => {
      chain(...Array.from({ length: LONG_CHAIN_TASKS }, (_, i) => task(`t${i}`, async () => undefined)));
    });
    const sensorDag = dag('cost_sensor', {}, ({ sensor }) => {
      sensor('wait', { type: flag, pokeContext: { key: 'landing/{{ ds }}' } }, { pokeInterval: '60s' });
    });
    const bundles = new InlineBundleSource([chainDag, eagerDag, longDag, sensorDag]);
    const store = new DynamoStore({ client: dynamodb, tablePrefix: prefix });
    const sqs = new SqsQueue({ client: sqsClient, queueUrl: QueueUrl! });
    const queue = new CountingQueue(sqs);
    const clock = new ShiftedClock();
    const timer = new CountingTimer(queue, () => clock.now());
    const ports: Ports = {
      store, queue, timer, clock, bundles, metrics: new MemoryMetrics(), log: new MemoryLog(undefined, 100),
      config: DEFAULT_CONFIG, workerId: 'bench-cost',
      // Each message is handled as by a fresh 5-minute worker Lambda: a task may be run
      // eagerly after another only when its execution timeout fits in the time left.
      remainingMs: () => 5 * 60_000,
    };
    await registerManifest(ports, bundles.version, await bundles.manifest(bundles.version));
    const snap = (): Usage => ({
      wcu: store.usage.wcu, rcu: store.usage.rcu, dynamoRequests: store.usage.requests,
      messages: queue.messages, sendRequests: queue.sendRequests, schedulerCalls: timer.calls,
    });
    const diff = (a: Usage, b: Usage): Usage => ({
      wcu: r4(b.wcu - a.wcu), rcu: r4(b.rcu - a.rcu), dynamoRequests: b.dynamoRequests - a.dynamoRequests,
      messages: b.messages - a.messages, sendRequests: b.sendRequests - a.sendRequests, schedulerCalls: b.schedulerCalls - a.schedulerCalls,
    });
    // Drains the queue as workers would; the deletes are Lambda's, modelled in perTask().
    const drain = async () => {
      for (;;) {
        const got = await sqs.receive(LAMBDA_BATCH, 30_000);
        if (got.length === 0) return;
        for (const d of got) {
          await handleMessage(ports, d.message);
          await sqs.ack(d);
        }
      }
    };

    const c0 = snap();
    await triggerRun(ports, 'cost_chain', { runId: 'chain-1' });
    await drain();
    const chainUsage = diff(c0, snap());
    const chainRun = await store.getRun('cost_chain', 'chain-1');
    if (chainRun?.state !== 'success') throw new Error(`cost chain ended ${chainRun?.state}`);

    const e0 = snap();
    await triggerRun(ports, 'cost_chain_eager', { runId: 'chain-eager' });
    await drain();
    const eagerUsage = diff(e0, snap());
    if ((await store.getRun('cost_chain_eager', 'chain-eager'))?.state !== 'success') throw new Error('cost eager chain did not succeed');

    const l0 = snap();
    await triggerRun(ports, 'cost_chain_100', { runId: 'chain-100' });
    await drain();
    const longUsage = diff(l0, snap());
    if ((await store.getRun('cost_chain_100', 'chain-100'))?.state !== 'success') throw new Error('cost 100-task chain did not succeed');

    const s0 = snap();
    await triggerRun(ports, 'cost_sensor', { runId: 'sensor-1' });
    await drain();
    const pokeCycle = async () => {
      const cycle = Math.floor(clock.now() / 60_000);
      for (let s = 0; s < DEFAULT_CONFIG.shards; s++) await pokeShard(ports, s, { shards: DEFAULT_CONFIG.shards, cycle });
      // The next cycle: the poke interval is a minute, so the waiter is due again.
      clock.shiftMs += 60_000;
    };
    await pokeCycle();
    const m0 = snap();
    for (let i = 1; i < SENSOR_MISSES; i++) await pokeCycle();
    const perMiss = diff(m0, snap());
    targetThere = true;
    await pokeCycle();
    await drain();
    const sensorUsage = diff(s0, snap());
    const sensorRun = await store.getRun('cost_sensor', 'sensor-1');
    if (sensorRun?.state !== 'success') throw new Error(`cost sensor run ended ${sensorRun?.state}`);

    // Idle floor: one reconcile pass with nothing to do, and one empty poke cycle.
    const i0 = snap();
    await reconcile(ports, { schedules: true });
    const idleReconcile = diff(i0, snap());
    const p0 = snap();
    await pokeCycle();
    const idlePoke = diff(p0, snap());

    const load = perTask(chainUsage, CHAIN_TASKS, LAMBDA_BATCH);
    const idle = perTask(chainUsage, CHAIN_TASKS, 1);
    const breakdown = priceMillion(load);
    const minutes = HOURS_PER_MONTH * 60;
    // Per minute: one Scheduler invocation and one Lambda request per schedule (tick, each poker shard).
    const perInvocation = usd('schedulerInvocation', 1) + usd('lambdaRequest', 1);
    const reconcileUsd = minutes * (perInvocation + usd('dynamoWrite', idleReconcile.wcu) + usd('dynamoRead', idleReconcile.rcu));
    const pokersUsd = minutes * (DEFAULT_CONFIG.shards * perInvocation + usd('dynamoWrite', idlePoke.wcu) + usd('dynamoRead', idlePoke.rcu));
    const missedCycleUsd = usd('dynamoWrite', perMiss.wcu / (SENSOR_MISSES - 1)) + usd('dynamoRead', perMiss.rcu / (SENSOR_MISSES - 1));
    const sfn = (n: number) => usd('stepFunctionsTransition', n * 1e6);
    return {
      chain: { tasks: CHAIN_TASKS, total: chainUsage },
      perTask: load,
      perTaskIdle: idle,
      usdPerMillionTasks: r2(sum(breakdown)),
      usdPerMillionTasksIdle: r2(sum(priceMillion(idle))),
      eagerChain: (() => {
        const per = perTask(eagerUsage, CHAIN_TASKS, LAMBDA_BATCH);
        return { tasks: CHAIN_TASKS, total: eagerUsage, perTask: per, usdPerMillionTasks: r2(sum(priceMillion(per))) };
      })(),
      longChain: (() => {
        const per = perTask(longUsage, LONG_CHAIN_TASKS, LAMBDA_BATCH);
        return { tasks: LONG_CHAIN_TASKS, total: longUsage, perTask: per, usdPerMillionTasks: r2(sum(priceMillion(per))) };
      })(),
      breakdownUsdPerMillion: Object.fromEntries(Object.entries(breakdown).map(([k, v]) => [k, r2(v)])) as CostResult['breakdownUsdPerMillion'],
      stepFunctionsUsdPerMillionTasks: r2(sfn((STEP_FUNCTIONS_TRANSITIONS_PER_TASK.low + STEP_FUNCTIONS_TRANSITIONS_PER_TASK.high) / 2)),
      stepFunctionsUsdPerMillionTasksRange: [r2(sfn(STEP_FUNCTIONS_TRANSITIONS_PER_TASK.low)), r2(sfn(STEP_FUNCTIONS_TRANSITIONS_PER_TASK.high))],
      sensorWait: {
        misses: SENSOR_MISSES,
        total: sensorUsage,
        perMissedCycle: { wcu: r4(perMiss.wcu / (SENSOR_MISSES - 1)), rcu: r4(perMiss.rcu / (SENSOR_MISSES - 1)) },
        usd: usd('dynamoWrite', sensorUsage.wcu) + usd('dynamoRead', sensorUsage.rcu) + usd('sqsRequest', sensorUsage.sendRequests + 2 * sensorUsage.messages),
        usdPerMissedCycle: missedCycleUsd,
      },
      fixedMonthly: {
        reconcileUsd: r2(reconcileUsd), pokersUsd: r2(pokersUsd), totalUsd: r2(reconcileUsd + pokersUsd),
        idleReconcile: { wcu: idleReconcile.wcu, rcu: idleReconcile.rcu },
      },
      mwaaSmallUsdPerMonth: r2(PRICES.mwaaSmallHour.usd * HOURS_PER_MONTH),
    };
  } finally {
    await deleteTables(dynamodb, prefix).catch(() => undefined);
    sqsClient.destroy();
    await new Promise((r) => sqsServer.close(r));
  }
}
