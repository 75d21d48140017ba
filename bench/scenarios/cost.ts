/**
 * Scenario 3, cost: what one task instance costs, priced at list prices (prices.ts).
 *
 * The task path is measured as it ships (lambda-cost.ts): the worker bundled as `cdk synth`
 * bundles it, fed SQS batches as Lambda's event source does, every request counted on the
 * wire, every invocation timed and billed as Lambda compute. Here, in process: one sensor
 * wait (the poker's path) and the fixed floor of reconcile and the pokers, counted by the
 * real adapters (DynamoStore on DynamoDB Local, SqsQueue on local-aws-sqs in process).
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
import { dag, defineSensor } from '../../lib/sdk/index.js';
import { InlineBundleSource } from '../../lib/runtime/inline-bundles.js';
import { PerfClock } from '../clock.js';
import { PRICES, STEP_FUNCTIONS_TRANSITIONS_PER_TASK, HOURS_PER_MONTH, usd } from '../prices.js';
import { lambdaCostBench, priceLambdaRow, type LambdaCostResult, type LambdaCostRow, type WirePerTask } from './lambda-cost.js';

/** Cycles the bench sensor answers "not yet" before its target appears. */
const SENSOR_MISSES = 3;
/** Messages one worker invocation takes from SQS under load (the event source's batch size). */
export const LAMBDA_BATCH = 10;

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

/** Per task instance on the worker's path (lambda-cost.ts). */
export type PerTask = WirePerTask;

/** A measured row: the runs, their totals on the wire, per task and priced. */
export interface CostRow {
  runs: number;
  tasks: number;
  total: LambdaCostRow['total'];
  perTask: PerTask;
  usdPerMillionTasks: number;
}

export interface CostResult {
  /** 10 runs of a 10-task chain at once, worker batches of 10. */
  chain: { runs: number; tasks: number; total: LambdaCostRow['total'] };
  perTask: PerTask;
  /** One chain on a quiet queue: every message is its own Lambda batch. */
  perTaskIdle: PerTask;
  /** 10-task chains, Lambda compute included. */
  usdPerMillionTasks: number;
  usdPerMillionTasksIdle: number;
  /** 10 runs of a 100-task chain at once: the run's own writes spread over more tasks. */
  longChain: CostRow;
  /** 10-task chains whose tasks have a 1-minute execution timeout: a worker Lambda runs each next task itself (eager follow). */
  eagerChain: CostRow;
  /** One run of 1,000 independent tasks (maxActiveTasks above its width), worker batches of 10. */
  fanOut1000: CostRow;
  breakdownUsdPerMillion: { dynamoWrites: number; dynamoReads: number; sqs: number; lambdaRequests: number; lambdaCompute: number; scheduler: number };
  /** The worker's configuration the compute is billed on, and its cold start (not in the per-task figures). */
  compute: { memoryMb: number; architecture: string; gbSecondsPerTask: number; workerMsPerTask: number; coldStartMs: number };
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

function computeOf(l: LambdaCostResult): CostResult['compute'] {
  const p = l.chainsUnderLoad.perTask;
  return { memoryMb: l.memoryMb, architecture: l.architecture, gbSecondsPerTask: p.gbSeconds, workerMsPerTask: p.workerMs, coldStartMs: l.coldStartMs };
}

const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
const r2 = (x: number) => Math.round(x * 100) / 100;

/**
 * @example
 * const cost = await costBench(dynamodbClient, endpoint);
 * cost.usdPerMillionTasks; // orchestration dollars per million task instances
 */
export async function costBench(dynamodb: DynamoDBClient, endpoint: string, progress?: (line: string) => void): Promise<CostResult> {
  const lambda = await lambdaCostBench(endpoint, progress);
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
    const sensorDag = dag('cost_sensor', {}, ({ sensor }) => {
      sensor('wait', { type: flag, pokeContext: { key: 'landing/{{ ds }}' } }, { pokeInterval: '60s' });
    });
    const bundles = new InlineBundleSource([sensorDag]);
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
    // Drains the queue as workers would (the sensor's success message).
    const drain = async () => {
      for (;;) {
        const got = await sqs.receive(10, 30_000);
        if (got.length === 0) return;
        for (const d of got) {
          await handleMessage(ports, d.message);
          await sqs.ack(d);
        }
      }
    };

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

    const load = lambda.chainsUnderLoad.perTask;
    const breakdown = priceLambdaRow(load);
    const row = (r: LambdaCostRow): CostRow => ({ runs: r.runs, tasks: r.tasks, total: r.total, perTask: r.perTask, usdPerMillionTasks: r2(sum(priceLambdaRow(r.perTask))) });
    const minutes = HOURS_PER_MONTH * 60;
    // Per minute: one Scheduler invocation and one Lambda request per schedule (tick, each poker shard).
    const perInvocation = usd('schedulerInvocation', 1) + usd('lambdaRequest', 1);
    const reconcileUsd = minutes * (perInvocation + usd('dynamoWrite', idleReconcile.wcu) + usd('dynamoRead', idleReconcile.rcu));
    const pokersUsd = minutes * (DEFAULT_CONFIG.shards * perInvocation + usd('dynamoWrite', idlePoke.wcu) + usd('dynamoRead', idlePoke.rcu));
    const missedCycleUsd = usd('dynamoWrite', perMiss.wcu / (SENSOR_MISSES - 1)) + usd('dynamoRead', perMiss.rcu / (SENSOR_MISSES - 1));
    const sfn = (n: number) => usd('stepFunctionsTransition', n * 1e6);
    return {
      chain: { runs: lambda.chainsUnderLoad.runs, tasks: lambda.chainsUnderLoad.tasks, total: lambda.chainsUnderLoad.total },
      perTask: load,
      perTaskIdle: lambda.chainIdle.perTask,
      usdPerMillionTasks: r2(sum(breakdown)),
      usdPerMillionTasksIdle: r2(sum(priceLambdaRow(lambda.chainIdle.perTask))),
      eagerChain: row(lambda.eagerChainsUnderLoad),
      longChain: row(lambda.longChainsUnderLoad),
      fanOut1000: row(lambda.fanOut1000),
      compute: computeOf(lambda),
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
