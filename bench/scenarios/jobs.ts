/**
 * Issue 20, cost of a job: the requests one operator task costs from submit to its end,
 * counted by the real adapters (DynamoStore on DynamoDB Local, SqsQueue on local-aws-sqs),
 * with a counting stand-in for the job service (no AWS call is billed for RunTask or
 * DescribeTasks; they are counted). Three parts:
 * - submit: the worker claims the try, submits the job, defers on its end event;
 * - waiting, per hour: nothing runs for the job; the poker's safety net describes it once
 *   per interval (15 minutes) when no event came, so an hour costs 4 describes and their row
 *   writes, measured as the difference from the same poker cycles with no job waiting;
 * - resume: the end event reaches the events function, the task resumes in a worker and
 *   succeeds with its XCom.
 * A job that runs for hours costs the submit and the resume once, plus the safety net's
 * writes per hour.
 */
import type { AddressInfo } from 'node:net';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { createTables, deleteTables } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { SqsQueue } from '../../lib/adapters/aws/sqs-queue.js';
import { MemoryLog, MemoryMetrics } from '../../lib/adapters/memory/observe.js';
import { DEFAULT_CONFIG, handleEvent, handleMessage, pokeShard, registerManifest, triggerRun, type JobDriver, type Ports } from '../../lib/engine/index.js';
import { JOB_SERVICES } from '../../lib/operators/index.js';
import { dag, ecsRunTask } from '../../lib/sdk/index.js';
import { InlineBundleSource } from '../../lib/runtime/inline-bundles.js';
import { usd } from '../prices.js';
import { CountingQueue, CountingTimer, LAMBDA_BATCH, ShiftedClock, type Usage } from './cost.js';

/** One phase's requests: DynamoDB units, SQS requests, Lambda invocations, job service calls. */
export interface JobPhase {
  wcu: number;
  rcu: number;
  sqsRequests: number;
  invocations: number;
  serviceCalls: number;
  usd: number;
}

export interface JobsResult {
  /** For comparison: a one-task run of a plain task (its run's creation and end are in submit and resume too). */
  plainTask: JobPhase;
  submit: JobPhase;
  /** Per hour of a job with no end event yet (the safety net's describes, at the default 15 minutes). */
  waitingPerHour: JobPhase;
  resume: JobPhase;
  /** Dollars per million jobs that run one minute, and that run ten hours. */
  usdPerMillionJobs: { oneMinute: number; tenHours: number };
}

const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
const r2 = (x: number) => Math.round(x * 100) / 100;

/**
 * @example
 * const jobs = await jobsBench(dynamodbClient);
 * jobs.usdPerMillionJobs.tenHours;
 */
export async function jobsBench(dynamodb: DynamoDBClient): Promise<JobsResult> {
  const sqsServer = await createSqsServer({ port: 0, emulateQueueCreationLifecycle: false });
  const sqsClient = new SQSClient({
    endpoint: `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`,
    region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const prefix = `bench-jobs-${Date.now().toString(36)}-`;
  try {
    await createTables(dynamodb, prefix);
    const { QueueUrl } = await sqsClient.send(new CreateQueueCommand({ QueueName: 'bench-jobs' }));
    const d = dag('bench_job', {}, ({ task }) => { task('train', ecsRunTask({ cluster: 'ml', taskDefinition: 'train' })); });
    const plain = dag('bench_plain', {}, ({ task }) => { task('train', async () => ({ ok: true })); });
    const bundles = new InlineBundleSource([d, plain]);
    const store = new DynamoStore({ client: dynamodb, tablePrefix: prefix });
    const sqs = new SqsQueue({ client: sqsClient, queueUrl: QueueUrl! });
    const queue = new CountingQueue(sqs);
    const clock = new ShiftedClock();
    const timer = new CountingTimer(queue, () => clock.now());
    // The ECS service, counted: RunTask gives a task, DescribeTasks says RUNNING.
    const ecs = JOB_SERVICES.ecs_run_task;
    let calls = 0;
    let n = 0;
    const driver: JobDriver = {
      submit: async (input, ctx) => { calls++; return ecs.fake(input as Record<string, unknown>, ctx, ++n, 'us-east-1'); },
      fromEvent: (ref, e) => ecs.fromEvent(ref, e),
      describe: async () => { calls++; return { state: 'running' }; },
      stop: async () => { calls++; },
    };
    const ports: Ports = {
      store, queue, timer, clock, bundles, metrics: new MemoryMetrics(), log: new MemoryLog(undefined, 100),
      config: DEFAULT_CONFIG, workerId: 'bench-jobs', remainingMs: () => 5 * 60_000, jobs: { ecs_run_task: driver },
    };
    await registerManifest(ports, bundles.version, await bundles.manifest(bundles.version));
    const snap = (): Usage & { calls: number } => ({
      wcu: store.usage.wcu, rcu: store.usage.rcu, dynamoRequests: store.usage.requests,
      messages: queue.messages, sendRequests: queue.sendRequests, schedulerCalls: timer.calls, calls,
    });
    const drain = async () => {
      for (;;) {
        const got = await sqs.receive(LAMBDA_BATCH, 30_000);
        if (got.length === 0) return;
        for (const m of got) {
          await handleMessage(ports, m.message);
          await sqs.ack(m);
        }
      }
    };
    /** A phase's requests: Lambda's receive and delete per message batch modelled as cost.ts does. */
    const phase = (a: ReturnType<typeof snap>, b: ReturnType<typeof snap>, extraInvocations: number): JobPhase => {
      const batches = b.messages - a.messages; // a job's messages arrive one at a time: each its own batch
      const p = {
        wcu: r4(b.wcu - a.wcu), rcu: r4(b.rcu - a.rcu), sqsRequests: b.sendRequests - a.sendRequests + 2 * batches,
        invocations: batches + extraInvocations, serviceCalls: b.calls - a.calls,
      };
      return { ...p, usd: usd('dynamoWrite', p.wcu) + usd('dynamoRead', p.rcu) + usd('sqsRequest', p.sqsRequests) + usd('lambdaRequest', p.invocations) };
    };
    const hourOfPokes = async () => {
      for (let m = 0; m < 60; m++) {
        clock.shiftMs += 60_000;
        const cycle = Math.floor(clock.now() / 60_000);
        for (let s = 0; s < DEFAULT_CONFIG.shards; s++) await pokeShard(ports, s, { shards: DEFAULT_CONFIG.shards, cycle });
      }
    };

    // The poker's hour with no job waiting: what every stack pays anyway.
    const idle0 = snap();
    await hourOfPokes();
    const idle = phase(idle0, snap(), 0);

    const p0 = snap();
    await triggerRun(ports, 'bench_plain', { runId: 'plain-1' });
    await drain();
    const plainTask = phase(p0, snap(), 0);

    const s0 = snap();
    await triggerRun(ports, 'bench_job', { runId: 'job-1' });
    await drain();
    const submit = phase(s0, snap(), 0);
    const ti = await store.getTask({ dagId: 'bench_job', runId: 'job-1', taskId: 'train' });
    if (ti?.state !== 'deferred') throw new Error(`the job's task is ${ti?.state}, not deferred`);

    const w0 = snap();
    await hourOfPokes();
    const busy = phase(w0, snap(), 0);
    const waitingPerHour: JobPhase = {
      wcu: r4(busy.wcu - idle.wcu), rcu: r4(busy.rcu - idle.rcu), sqsRequests: busy.sqsRequests - idle.sqsRequests,
      invocations: 0, serviceCalls: busy.serviceCalls - idle.serviceCalls, usd: busy.usd - idle.usd,
    };

    const r0 = snap();
    const job = (await store.getTask({ dagId: 'bench_job', runId: 'job-1', taskId: 'train' }))!;
    const ref = (job.trigger as { job: Parameters<typeof ecs.endEvent>[0] }).job;
    await handleEvent(ports, ecs.endEvent(ref, {}, clock.now()));
    await drain();
    const resume = phase(r0, snap(), 1);
    const run = await store.getRun('bench_job', 'job-1');
    if (run?.state !== 'success') throw new Error(`the job's run ended ${run?.state}`);

    const once = submit.usd + resume.usd;
    return {
      plainTask, submit, waitingPerHour, resume,
      usdPerMillionJobs: { oneMinute: r2(once * 1e6), tenHours: r2((once + 10 * waitingPerHour.usd) * 1e6) },
    };
  } finally {
    await deleteTables(dynamodb, prefix).catch(() => undefined);
    sqsClient.destroy();
    await new Promise((r) => sqsServer.close(r));
  }
}

/** The report's lines. */
export function formatJobs(j: JobsResult): string {
  const row = (name: string, p: JobPhase) =>
    `${name.padEnd(22)} ${String(p.wcu).padStart(6)} ${String(p.rcu).padStart(6)} ${String(p.sqsRequests).padStart(5)} ${String(p.invocations).padStart(7)} ${String(p.serviceCalls).padStart(6)}`;
  return [
    '7. Jobs: requests of one operator task (an ECS task) on DynamoDB Local + local-aws-sqs; service calls counted, not billed',
    `${'phase'.padEnd(22)} ${'WCU'.padStart(6)} ${'RCU'.padStart(6)} ${'SQS'.padStart(5)} ${'Lambda'.padStart(7)} ${'calls'.padStart(6)}`,
    row('a plain task, for scale', j.plainTask),
    row('submit', j.submit),
    row('waiting, per hour', j.waitingPerHour),
    row('resume (end event)', j.resume),
    `per million jobs: $${j.usdPerMillionJobs.oneMinute} for 1-minute jobs, $${j.usdPerMillionJobs.tenHours} for 10-hour jobs`,
  ].join('\n');
}
