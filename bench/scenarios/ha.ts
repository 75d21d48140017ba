/**
 * Scenario 4, HA: the same batch of chain runs worked off by one engine process, then by
 * three concurrent ones, all on one set of DynamoDB Local tables and one SQS queue
 * (local-aws-sqs, served from this process). Every task body records its key, so a task
 * that ran twice anywhere is counted as a duplicate execution.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { createTables, deleteTables } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { SqsQueue } from '../../lib/adapters/aws/sqs-queue.js';
import { MemoryLog, MemoryMetrics } from '../../lib/adapters/memory/observe.js';
import { DEFAULT_CONFIG, type Ports } from '../../lib/engine/index.js';
import { registerManifest, triggerRun } from '../../lib/engine/index.js';
import { LOCAL_AWS } from '../../lib/runtime/dynamodb-local.js';
import { InlineBundleSource } from '../../lib/runtime/inline-bundles.js';
import { PerfClock } from '../clock.js';
import { linearDag } from '../dags.js';
import type { HaNodeStats } from '../ha-node.js';

export interface HaRound {
  processes: number;
  tasks: number;
  wallMs: number;
  tasksPerSec: number;
  lostRaces: number;
  duplicates: number;
  failedMessages: number;
}

export interface HaResult {
  oneProcessTasksPerSec: number;
  threeProcessTasksPerSec: number;
  duplicates: number;
  lostRaces: number;
  rounds: HaRound[];
}

const DAG_ID = 'ha_chain';
const DAG_TASKS = 10;
const NODE = fileURLToPath(new URL('../ha-node.ts', import.meta.url));

interface Child {
  proc: ChildProcess;
  ready: Promise<void>;
  stats: Promise<HaNodeStats>;
}

function startChild(env: Record<string, string>): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', NODE], {
    env: { ...process.env, ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let markReady!: () => void;
  const ready = new Promise<void>((r) => (markReady = r));
  const stats = new Promise<HaNodeStats>((resolve, reject) => {
    proc.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.startsWith('ready\n')) markReady();
    });
    proc.once('exit', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(last) as HaNodeStats);
      } catch {
        reject(new Error(`ha node exited with code ${code} and no stats: ${out.slice(-500)}`));
      }
    });
  });
  stats.catch(() => markReady());
  return { proc, ready, stats };
}

async function round(processes: number, runs: number, dynamodb: DynamoDBClient, ddbEndpoint: string): Promise<HaRound> {
  const sqsServer = await createSqsServer({ port: 0, emulateQueueCreationLifecycle: false });
  const sqsEndpoint = `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`;
  const sqsClient = new SQSClient({ endpoint: sqsEndpoint, ...LOCAL_AWS });
  const prefix = `bench-ha${processes}-${Date.now().toString(36)}-`;
  const children: Child[] = [];
  try {
    await createTables(dynamodb, prefix);
    const { QueueUrl } = await sqsClient.send(new CreateQueueCommand({ QueueName: `bench-ha-${processes}` }));
    const bundles = new InlineBundleSource([linearDag(DAG_ID, DAG_TASKS)]);
    const store = new DynamoStore({ client: dynamodb, tablePrefix: prefix });
    const ports: Ports = {
      store, queue: new SqsQueue({ client: sqsClient, queueUrl: QueueUrl! }),
      timer: { schedule: async () => {} },
      clock: new PerfClock(), bundles, metrics: new MemoryMetrics(), log: new MemoryLog(undefined, 100),
      config: DEFAULT_CONFIG, workerId: 'ha-parent',
    };
    await registerManifest(ports, bundles.version, await bundles.manifest(bundles.version));
    for (let i = 0; i < processes; i++) {
      children.push(startChild({
        HA_PROCESS_ID: `p${i}`, HA_DDB_ENDPOINT: ddbEndpoint, HA_SQS_ENDPOINT: sqsEndpoint, HA_QUEUE_URL: QueueUrl!,
        HA_TABLE_PREFIX: prefix, HA_DAG_ID: DAG_ID, HA_DAG_TASKS: String(DAG_TASKS),
      }));
    }
    await Promise.all(children.map((c) => c.ready));
    const start = performance.now();
    for (let i = 0; i < runs; i++) await triggerRun(ports, DAG_ID, { runId: `r${i}` });
    const deadline = start + 60_000 + runs * 1_000;
    while ((await store.listActiveRuns()).length > 0) {
      if (performance.now() > deadline) throw new Error(`HA round with ${processes} processes did not finish its runs in time`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const wallMs = performance.now() - start;
    for (const c of children) c.proc.kill('SIGTERM');
    const stats = await Promise.all(children.map((c) => c.stats));
    const executed = stats.flatMap((s) => s.executed);
    const tasks = runs * DAG_TASKS;
    const distinct = new Set(executed).size;
    if (distinct !== tasks) throw new Error(`HA round with ${processes} processes ran ${distinct} distinct tasks, expected ${tasks}`);
    return {
      processes, tasks, wallMs: Math.round(wallMs), tasksPerSec: Math.round(tasks / (wallMs / 1000)),
      lostRaces: stats.reduce((a, s) => a + s.lostRaces, 0),
      duplicates: executed.length - distinct,
      failedMessages: stats.reduce((a, s) => a + s.failedMessages, 0),
    };
  } finally {
    for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
    await deleteTables(dynamodb, prefix).catch(() => undefined);
    sqsClient.destroy();
    await new Promise((r) => sqsServer.close(r));
  }
}

/**
 * @example
 * const ha = await haBench({ runs: 100, dynamodb: client, ddbEndpoint: endpoint });
 * ha.duplicates; // 0
 */
export async function haBench(opts: { runs: number; dynamodb: DynamoDBClient; ddbEndpoint: string }): Promise<HaResult> {
  const one = await round(1, opts.runs, opts.dynamodb, opts.ddbEndpoint);
  const three = await round(3, opts.runs, opts.dynamodb, opts.ddbEndpoint);
  return {
    oneProcessTasksPerSec: one.tasksPerSec,
    threeProcessTasksPerSec: three.tasksPerSec,
    duplicates: one.duplicates + three.duplicates,
    lostRaces: one.lostRaces + three.lostRaces,
    rounds: [one, three],
  };
}
