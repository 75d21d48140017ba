/**
 * The deployed-stack path end to end, offline: the real Lambda handlers (functions/*.ts)
 * invoked in process against DynamoDB Local, local-aws-sqs and s3rver, with EventBridge
 * Scheduler mocked at the request level. Bundle upload -> S3 notification ->
 * register-bundle -> trigger -> worker batches from SQS (fast follow, a retry on an SQS
 * delay) -> run success, with a poison message in the first batch that ends in the DLQ.
 * Time: retry delays and visibility timeouts pass on fake timers, never for real.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { CreateScheduleCommand, ListSchedulesCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { S3Event } from 'aws-lambda';
import { mockClient, type AwsClientStub } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { lambdaPorts } from '../../lib/adapters/aws/lambda.js';
import { registrationKey, type RegisterResult } from '../../lib/adapters/aws/register.js';
import { uploadBundle } from '../../lib/adapters/aws/s3-bundles.js';
import type { AwsPorts } from '../../lib/adapters/aws/wiring.js';
import { buildBundle } from '../../lib/build/index.js';
import { triggerRun } from '../../lib/engine/index.js';
import type { DagRun } from '../../lib/engine/index.js';
import { deliverBatch, lambdaContext } from './support/sqs-lambda.js';
import { startLocalAws, type LocalAws } from './support/local-aws.js';

const endpoint = inject('dynamodbEndpoint');
if (!endpoint) console.warn('[airless] DynamoDB Local is not running (no Java or jar): skipping the handler e2e test');

const EXAMPLES = fileURLToPath(new URL('../../examples/dags', import.meta.url));
const MAX_RECEIVE_COUNT = 2;
const VISIBILITY_S = 5;

describe.skipIf(!endpoint)('Lambda handlers end to end (DynamoDB Local, local-aws-sqs, s3rver, mocked Scheduler)', () => {
  let aws: LocalAws;
  let scheduler: AwsClientStub<SchedulerClient>;
  let ports: AwsPorts;
  let savedEnv: NodeJS.ProcessEnv;
  let version = '';
  let run: DagRun;
  const figures = { messages: 0, batches: 0, workerInvocations: 0, tickInvocations: 0, registerInvocations: 0, virtualSeconds: 0 };

  beforeAll(async () => {
    savedEnv = { ...process.env };
    aws = await startLocalAws({ dynamodbEndpoint: endpoint, maxReceiveCount: MAX_RECEIVE_COUNT });
    Object.assign(process.env, aws.env);
    scheduler = mockClient(aws.clients.scheduler);
    scheduler.on(ListSchedulesCommand).resolves({ Schedules: [] });
    scheduler.on(CreateScheduleCommand).callsFake((input: { Name: string }) => ({ ScheduleArn: `arn:aws:scheduler:::schedule/${input.Name}` }));
    ports = lambdaPorts({ clients: aws.clients, reset: true });
  });

  afterAll(async () => {
    vi.useRealTimers();
    scheduler?.restore();
    process.env = savedEnv;
    await aws?.stop();
    console.log(`[airless] handler e2e figures: ${JSON.stringify({
      ...figures,
      dynamodb: ports?.store.usage,
      sqs: ports?.queue.usage,
      schedulerCalls: scheduler?.calls().length,
    })}`);
  });

  it('register-bundle registers the uploaded example bundle and creates one schedule per scheduled DAG', async () => {
    const built = await buildBundle({ dir: EXAMPLES, outDir: join(aws.work, 'build') });
    const up = await uploadBundle(aws.clients.s3, aws.bucket, { bundlePath: built.bundlePath, manifestPath: built.manifestPath });
    version = up.version;

    const { handler } = await import('../../functions/register-bundle.js');
    const event = { Records: [{ s3: { bucket: { name: aws.bucket }, object: { key: encodeURIComponent(up.manifestKey).replace(/%2F/g, '/') } } }] } as unknown as S3Event;
    const [result] = (await handler(event, lambdaContext('register-bundle'))) as RegisterResult[];
    figures.registerInvocations++;

    const now = Date.now();
    const scheduled = built.manifest.dags.filter((d) => d.schedule && !(d.endDate && Date.parse(d.endDate) <= now)).map((d) => d.dagId).sort();
    expect(result).toMatchObject({ version, ok: true, updated: [], removed: [] });
    expect(result.added!.sort()).toEqual(built.manifest.dags.map((d) => d.dagId).sort());
    expect(result.schedules!.created.sort()).toEqual(scheduled);
    expect(scheduled).toContain('etl_daily');
    expect(scheduled).not.toContain('fan_out_in');

    const dags = await ports.store.listDags();
    expect(dags.map((d) => [d.dagId, d.bundleVersion, d.paused]).sort()).toEqual(
      built.manifest.dags.map((d) => [d.dagId, version, false]).sort(),
    );
    const stored = await aws.clients.s3.send(new GetObjectCommand({ Bucket: aws.bucket, Key: registrationKey(version) }));
    expect(JSON.parse(await stored.Body!.transformToString())).toEqual(result);

    // S3 delivers at least once: a duplicate is answered from registration.json and registers nothing again.
    const creates = scheduler.commandCalls(CreateScheduleCommand).length;
    const [again] = (await handler(event, lambdaContext('register-bundle'))) as RegisterResult[];
    expect(again).toEqual(result);
    expect(scheduler.commandCalls(CreateScheduleCommand)).toHaveLength(creates);
    expect((await ports.store.listDags()).map((d) => d.updatedAt)).toEqual(dags.map((d) => d.updatedAt));

    expect(scheduler).toHaveReceivedCommandWith(ListSchedulesCommand, { GroupName: 'Airless-dags' });
    expect(scheduler).toHaveReceivedCommandTimes(CreateScheduleCommand, scheduled.length);
    const etl = scheduler.commandCalls(CreateScheduleCommand).map((c) => c.args[0].input).find((i) => i.Name === 'etl_daily');
    expect(etl).toEqual({
      Name: 'etl_daily',
      Description: expect.stringMatching(/^airless dag etl_daily config:[0-9a-f]{16}$/),
      GroupName: 'Airless-dags',
      ScheduleExpression: 'cron(0 2 * * ? *)',
      ScheduleExpressionTimezone: 'Europe/Berlin',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      Target: {
        Arn: aws.env.AIRLESS_QUEUE_ARN,
        RoleArn: aws.env.AIRLESS_SCHEDULER_ROLE_ARN,
        Input: '{"kind":"schedule","dagId":"etl_daily","tickAt":0}',
        DeadLetterConfig: { Arn: aws.env.AIRLESS_SCHEDULER_DLQ_ARN },
        RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 86_400 },
      },
    });
  });

  it('runs etl_daily to success through worker batches; a poison message fails alone and ends in the DLQ', async () => {
    expect(version).not.toBe('');
    // From here retry delays and visibility timeouts pass on fake timers (local-aws-sqs
    // runs them on setTimeout; the engine reads Date.now through the system clock).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'], shouldAdvanceTime: true });
    const worker = await import('../../functions/worker.js');
    const tick = await import('../../functions/tick.js');

    run = await triggerRun(ports, 'etl_daily', { conf: {} });
    expect(run.state).toBe('running');
    const poison = ['not json at all', '{"kind":"task","dagId":"etl_daily"}'];
    for (const body of poison) await aws.clients.sqs.send(new SendMessageCommand({ QueueUrl: aws.queueUrl, MessageBody: body }));

    const failures: string[][] = [];
    let first: Awaited<ReturnType<typeof deliverBatch>>;
    for (let i = 0; i < 200; i++) {
      const out = await deliverBatch(aws.clients.sqs, aws.queueUrl, aws.env.AIRLESS_QUEUE_ARN, worker.handler, { visibilitySeconds: VISIBILITY_S });
      if (out) {
        first ??= out;
        figures.batches++;
        figures.workerInvocations++;
        figures.messages += out.received;
        if (out.failedBodies.length) failures.push(out.failedBodies.sort());
        continue;
      }
      const current = await ports.store.getRun('etl_daily', run.runId);
      if (current?.state === 'success' && (await inFlight(aws, aws.queueUrl)) === 0) break;
      await tick.handler(undefined as never, lambdaContext('tick'));
      figures.tickInvocations++;
      // Nothing visible: let the SQS delay of the retry (30-60 s) or a visibility timeout pass.
      vi.advanceTimersByTime(VISIBILITY_S * 1000 + 100);
      figures.virtualSeconds += VISIBILITY_S;
    }

    // The first batch held extract's message and both poison messages: only the poison failed.
    expect(first!.received).toBe(3);
    expect(first!.failedBodies.sort()).toEqual([...poison].sort());
    expect(failures).toHaveLength(MAX_RECEIVE_COUNT);
    for (const f of failures) expect(f).toEqual([...poison].sort());

    const done = await ports.store.getRun('etl_daily', run.runId);
    expect(done?.state).toBe('success');
    const tasks = Object.fromEntries((await ports.store.listTasks('etl_daily', run.runId)).map((t) => [t.taskId, [t.state, t.tryNumber]]));
    expect(tasks).toEqual({
      extract: ['success', 2], transform: ['success', 1], audit: ['success', 1], load: ['success', 1],
      pick: ['success', 1], delta: ['success', 1], full: ['skipped', 0],
    });
    expect(await ports.store.getXcom({ dagId: 'etl_daily', runId: run.runId, taskId: 'transform', key: 'return_value' })).toBe(84);

    const dead = await aws.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: aws.dlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    expect((dead.Messages ?? []).map((m) => m.Body).sort()).toEqual([...poison].sort());
    // The retry of extract rode on an SQS delay: no one-time schedule was needed.
    expect(scheduler.commandCalls(CreateScheduleCommand).filter((c) => c.args[0].input.GroupName === 'Airless-timers')).toHaveLength(0);
    expect(ports.store.usage.requests).toBeGreaterThan(0);
    expect(ports.queue.usage.sent).toBeGreaterThanOrEqual(7);
  });
});

async function inFlight(aws: LocalAws, url: string): Promise<number> {
  const a = await aws.clients.sqs.send(new GetQueueAttributesCommand({
    QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
  }));
  const n = (k: string) => Number(a.Attributes?.[k as keyof typeof a.Attributes] ?? 0);
  return n('ApproximateNumberOfMessages') + n('ApproximateNumberOfMessagesNotVisible') + n('ApproximateNumberOfMessagesDelayed');
}
