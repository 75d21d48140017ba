/**
 * Cost per task instance on the hot path: one 10-task chain run in one process on
 * DynamoDB Local and local-aws-sqs, counting DynamoDB capacity units and requests
 * (DynamoStore.usage), SQS requests (SqsQueue.usage) and timer calls. No reconcile runs
 * during the chain (it is the safety net); one idle reconcile pass is measured apart.
 *
 * `npx tsx test/chaos/cost.ts [--dynamodb-endpoint URL] [--json]`
 */
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { makeClients } from '../../lib/adapters/aws/clients.js';
import { createTables } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { CountingMetrics } from '../../lib/adapters/aws/metrics.js';
import { SqsQueue } from '../../lib/adapters/aws/sqs-queue.js';
import { SystemClock } from '../../lib/adapters/clock.js';
import { handleMessage } from '../../lib/engine/index.js';
import type { Ports } from '../../lib/engine/index.js';
import { reconcile } from '../../lib/engine/index.js';
import { registerManifest, triggerRun } from '../../lib/engine/index.js';
import { isRunTerminal } from '../../lib/engine/index.js';
import { chain, dag } from '../../lib/sdk/index.js';
import { InlineBundleSource } from '../../lib/runtime/inline-bundles.js';
import { startDynamoDbLocal } from '../../lib/runtime/dynamodb-local.js';
import { CHAOS_CONFIG, DelayTimer } from './shared.js';

export interface CostReport {
  tasks: number;
  perTask: { wcu: number; rcu: number; dynamoRequests: number; sqsRequests: number; timerCalls: number };
  /** The whole run, triggering included. */
  total: { wcu: number; rcu: number; dynamoRequests: number; sqsRequests: number; emptyReceives: number; timerCalls: number };
  idleReconcile: { wcu: number; rcu: number; dynamoRequests: number };
}

const TASKS = 10;
const round = (x: number) => Math.round(x * 100) / 100;

/**
 * @example
 * const r = await measureChainCost(); r.perTask.wcu; // write units per task instance
 */
export async function measureChainCost(opts: { dynamodbEndpoint?: string } = {}): Promise<CostReport> {
  const ddb = opts.dynamodbEndpoint ? undefined : await startDynamoDbLocal();
  const sqsServer = await createSqsServer({ port: 0, emulateQueueCreationLifecycle: false });
  const sqsEndpoint = `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`;
  const clients = makeClients({ endpoints: { dynamodb: opts.dynamodbEndpoint ?? ddb!.endpoint, sqs: sqsEndpoint } });
  try {
    const prefix = `cost-${Date.now().toString(36)}-`;
    await createTables(clients.dynamodb, prefix);
    const { QueueUrl } = await clients.sqs.send(new CreateQueueCommand({ QueueName: 'cost-ready' }));
    const chainDag = dag('cost_chain', { defaultArgs: { retries: 1 } }, ({ task }) => {
      chain(...Array.from({ length: TASKS }, (_, i) => task(`t${i}`, async () => i)));
    });
    const bundles = new InlineBundleSource([chainDag]);
    const store = new DynamoStore({ client: clients.dynamodb, tablePrefix: prefix });
    const queue = new SqsQueue({ client: clients.sqs, queueUrl: QueueUrl! });
    const clock = new SystemClock();
    const timer = new DelayTimer(queue, () => clock.now());
    const ports: Ports = {
      store, queue, timer, clock, bundles, metrics: new CountingMetrics(),
      log: { info: () => {}, warn: () => {}, error: (m, f) => console.error(m, f) },
      config: CHAOS_CONFIG, workerId: 'cost',
    };
    await registerManifest(ports, bundles.version, await bundles.manifest(bundles.version));
    const before = { ...store.usage };
    const sqsBefore = queue.usage.requests;
    const run = await triggerRun(ports, 'cost_chain', { runId: 'cost-1' });
    // The probe's own completion polls go through a store of their own, so they are not counted.
    const probe = new DynamoStore({ client: clients.dynamodb, tablePrefix: prefix });
    let emptyReceives = 0;
    for (let spins = 0; spins < 10_000; spins++) {
      const got = await queue.receive(10, 30_000);
      if (got.length === 0) {
        emptyReceives++;
        const r = await probe.getRun(run.dagId, run.runId);
        if (r && isRunTerminal(r.state)) break;
        continue;
      }
      for (const d of got) {
        await handleMessage(ports, d.message);
        await queue.ack(d);
      }
    }
    const used = {
      wcu: store.usage.wcu - before.wcu,
      rcu: store.usage.rcu - before.rcu,
      dynamoRequests: store.usage.requests - before.requests,
    };
    const sqsRequests = queue.usage.requests - sqsBefore - emptyReceives;
    const idleBefore = { ...store.usage };
    await reconcile(ports, { schedules: false });
    const idleReconcile = {
      wcu: round(store.usage.wcu - idleBefore.wcu), rcu: round(store.usage.rcu - idleBefore.rcu),
      dynamoRequests: store.usage.requests - idleBefore.requests,
    };
    return {
      tasks: TASKS,
      perTask: {
        wcu: round(used.wcu / TASKS), rcu: round(used.rcu / TASKS), dynamoRequests: round(used.dynamoRequests / TASKS),
        sqsRequests: round(sqsRequests / TASKS), timerCalls: round(timer.calls / TASKS),
      },
      total: { ...used, wcu: round(used.wcu), rcu: round(used.rcu), sqsRequests, emptyReceives, timerCalls: timer.calls },
      idleReconcile,
    };
  } finally {
    clients.dynamodb.destroy();
    clients.sqs.destroy();
    await new Promise((r) => sqsServer.close(r));
    await ddb?.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { values } = parseArgs({ options: { 'dynamodb-endpoint': { type: 'string' }, json: { type: 'boolean' } } });
  const r = await measureChainCost({ dynamodbEndpoint: values['dynamodb-endpoint'] });
  console.log(values.json ? JSON.stringify(r) : JSON.stringify(r, null, 2));
}
