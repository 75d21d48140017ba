/**
 * The worker Lambda handler (functions/worker.ts `run`) with one SQS batch of ten task
 * messages from four runs, on DynamoDB Local, local-aws-sqs and s3rver (bundle from S3).
 * Each misbehaving try fails alone; the healthy ones, and their eager follows, succeed.
 * Real threads must be killed here, so the bound on wall time is generous.
 */
import { ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lambdaPorts } from '../../lib/adapters/aws/lambda.js';
import { uploadBundle } from '../../lib/adapters/aws/s3-bundles.js';
import type { AwsPorts } from '../../lib/adapters/aws/wiring.js';
import { buildBundle } from '../../lib/build/index.js';
import { registerManifest, triggerRun } from '../../lib/engine/index.js';
import { closeIsolationPools } from '../../lib/isolation/isolated-bundle.js';
import { startLocalAws, type LocalAws } from '../e2e/support/local-aws.js';

const endpoint = inject('dynamodbEndpoint');

describe.skipIf(!endpoint)('worker handler, a batch of ten with misbehaving tasks', () => {
  let aws: LocalAws;
  let ports: AwsPorts;
  let savedEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    savedEnv = { ...process.env };
    aws = await startLocalAws({ dynamodbEndpoint: endpoint, maxReceiveCount: 3, prefix: `iso${process.pid}-` });
    Object.assign(process.env, aws.env, { AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '128' });
    ports = lambdaPorts({ clients: aws.clients, reset: true });
  });
  afterAll(async () => {
    process.env = savedEnv;
    await closeIsolationPools();
    await aws?.stop();
  });

  it('fails each misbehaving try alone and runs the rest, eager follows included', async () => {
    const built = await buildBundle({ dir: 'test/fixtures/isolation-dags', outDir: join(aws.work, 'iso-build') });
    const { version } = await uploadBundle(aws.clients.s3, aws.bucket, { bundlePath: built.bundlePath, manifestPath: built.manifestPath });
    await registerManifest(ports, version, built.manifest);
    const runs = [
      await triggerRun(ports, 'misbehaving', { runId: 'bad' }), // 6 root tasks
      await triggerRun(ports, 'neighbour', { runId: 'n1' }), // 1 root, then b by eager follow
      await triggerRun(ports, 'neighbour', { runId: 'n2' }),
      await triggerRun(ports, 'hog', { runId: 'hog' }), // 2 roots
    ];
    const messages: Message[] = [];
    for (let i = 0; i < 20 && messages.length < 10; i++) {
      const res = await aws.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: aws.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 60 }));
      messages.push(...(res.Messages ?? []));
    }
    expect(messages).toHaveLength(10);
    const event = { Records: messages.map((m) => ({ messageId: m.MessageId!, body: m.Body! })) } as unknown as SQSEvent;
    const { run } = await import('../../functions/worker.js');
    const started = performance.now();
    const results = await run(event, { getRemainingTimeInMillis: () => 600_000 });
    const wallMs = performance.now() - started;
    expect(results.batchItemFailures).toEqual([]);

    const state = async (dagId: string, runId: string) =>
      Object.fromEntries((await ports.store.listTasks(dagId, runId)).map((t) => [t.taskId, [t.state, t.error ?? null]]));
    expect(await state('misbehaving', 'bad')).toEqual({
      healthy: ['success', null],
      spin: ['failed', 'execution timeout: the try ran longer than 2s'],
      ignore_abort: ['failed', 'execution timeout: the try ran longer than 2s'],
      exits: ['failed', 'the task ended its thread with process.exit(3)'],
      unhandled: ['failed', expect.stringMatching(/^unhandled rejection in task code: Error: nobody awaits me \(at misbehaving\.ts:17:\d+\)$/)],
      throws: ['failed', expect.stringMatching(/^Error: boom from the DAG file \(at misbehaving\.ts:21:11\)$/)],
    });
    // 128 MB function: half of it per try.
    expect(await state('hog', 'hog')).toEqual({ oom: ['failed', 'the try ran out of memory (limit 64 MB per try)'], fine: ['success', null] });
    for (const r of runs.slice(1, 3)) {
      expect(await state('neighbour', r.runId)).toEqual({ a: ['success', null], b: ['success', null] });
      expect(await ports.store.getXcom({ dagId: 'neighbour', runId: r.runId, taskId: 'b', key: 'return_value' })).toEqual({ got: 1n, rendered: expect.stringMatching(/^\d{4}-\d{2}-\d{2}\/y$/) });
    }
    expect((await ports.store.getXcom({ dagId: 'misbehaving', runId: 'bad', taskId: 'healthy', key: 'return_value' })))
      .toEqual({ ok: true, at: new Date(0), tags: new Set(['a']) });
    expect(wallMs).toBeLessThan(20_000);
  }, 60_000);
});
