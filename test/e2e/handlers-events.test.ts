/**
 * The events path through the deployed handlers, offline: the example nightly_jobs bundle
 * registered by register-bundle, each job submitted by the worker handler with the real
 * drivers (the job services' SDK clients mocked at the request level: no emulator runs
 * here), each end event (AWS's documented shape) delivered to the events handler, the task
 * resumed by the worker handler; a duplicate delivery, a foreign and a malformed event
 * change nothing. DynamoDB Local, local-aws-sqs and s3rver are real.
 */
import { AthenaClient, GetQueryExecutionCommand, StartQueryExecutionCommand } from '@aws-sdk/client-athena';
import { BatchClient, SubmitJobCommand } from '@aws-sdk/client-batch';
import { ECSClient, RunTaskCommand } from '@aws-sdk/client-ecs';
import { EMRServerlessClient, StartJobRunCommand as EmrStart } from '@aws-sdk/client-emr-serverless';
import { GlueClient, StartJobRunCommand as GlueStart } from '@aws-sdk/client-glue';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { CreateScheduleCommand, ListSchedulesCommand } from '@aws-sdk/client-scheduler';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { S3Event } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lambdaPorts } from '../../lib/adapters/aws/lambda.js';
import { uploadBundle } from '../../lib/adapters/aws/s3-bundles.js';
import type { AwsPorts } from '../../lib/adapters/aws/wiring.js';
import { buildBundle } from '../../lib/build/index.js';
import { triggerRun, type EventTrigger } from '../../lib/engine/index.js';
import { JOB_SERVICES } from '../../lib/operators/index.js';
import { deliverBatch, lambdaContext } from './support/sqs-lambda.js';
import { startLocalAws, type LocalAws } from './support/local-aws.js';

const endpoint = inject('dynamodbEndpoint');
const EXAMPLES = fileURLToPath(new URL('../../examples/dags', import.meta.url));
const ORDER = ['extract', 'features', 'train', 'score', 'publish', 'report', 'notify'];

describe.skipIf(!endpoint)('the events path through the Lambda handlers', () => {
  let aws: LocalAws;
  let ports: AwsPorts;
  let savedEnv: NodeJS.ProcessEnv;
  const ecs = mockClient(ECSClient);
  const batch = mockClient(BatchClient);
  const glue = mockClient(GlueClient);
  const sfn = mockClient(SFNClient);
  const athena = mockClient(AthenaClient);
  const emr = mockClient(EMRServerlessClient);
  const fn = mockClient(LambdaClient);
  const services = [ecs, batch, glue, sfn, athena, emr, fn];

  beforeAll(async () => {
    savedEnv = { ...process.env };
    aws = await startLocalAws({ dynamodbEndpoint: endpoint, maxReceiveCount: 2 });
    // Lambda always sets AWS_REGION: the job services' clients take it from there.
    Object.assign(process.env, aws.env, { AWS_REGION: 'us-east-1' });
    const scheduler = mockClient(aws.clients.scheduler);
    scheduler.on(ListSchedulesCommand).resolves({ Schedules: [] });
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:::schedule/x' });
    ports = lambdaPorts({ clients: aws.clients, reset: true });
    ecs.on(RunTaskCommand).resolves({ tasks: [{ taskArn: 'arn:aws:ecs:us-east-1:123456789012:task/ml/t1', clusterArn: 'arn:aws:ecs:us-east-1:123456789012:cluster/ml' }] });
    batch.on(SubmitJobCommand).resolves({ jobId: 'j-1', jobName: 'score' });
    glue.on(GlueStart).resolves({ JobRunId: 'jr_1' });
    sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn:aws:states:us-east-1:123456789012:execution:publish-scores:e1', startDate: new Date() });
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena.on(GetQueryExecutionCommand).resolves({ QueryExecution: { WorkGroup: 'reports', ResultConfiguration: { OutputLocation: 's3://acme-athena-results/nightly/q-1.csv' } } });
    emr.on(EmrStart).resolves({ applicationId: '00fabc123456789', jobRunId: 'r1', arn: 'arn:emr' });
    fn.on(InvokeCommand).resolves({ StatusCode: 202, $metadata: { requestId: 'req-1' } } as never);

    const built = await buildBundle({ dir: EXAMPLES, outDir: join(aws.work, 'build') });
    const up = await uploadBundle(aws.clients.s3, aws.bucket, { bundlePath: built.bundlePath, manifestPath: built.manifestPath });
    const { handler } = await import('../../functions/register-bundle.js');
    await handler({ Records: [{ s3: { bucket: { name: aws.bucket }, object: { key: up.manifestKey } } }] } as unknown as S3Event, lambdaContext('register-bundle'));
  }, 120_000);

  afterAll(async () => {
    services.forEach((s) => s.restore());
    process.env = savedEnv;
    await aws?.stop();
  });

  it('runs nightly_jobs: each job submitted by the worker, resumed by its end event through the events handler', { timeout: 120_000 }, async () => {
    const worker = await import('../../functions/worker.js');
    const events = await import('../../functions/events.js');
    const run = await triggerRun(ports, 'nightly_jobs', { logicalDate: Date.parse('2026-01-01T02:00:00Z') });
    const drain = async () => {
      while (await deliverBatch(aws.clients.sqs, aws.queueUrl, aws.env.AIRLESS_QUEUE_ARN, worker.handler)) { /* until the queue is empty */ }
    };
    for (const taskId of ORDER) {
      await drain();
      const ti = (await ports.store.getTask({ dagId: 'nightly_jobs', runId: run.runId, taskId }))!;
      expect([taskId, ti.state, ti.error]).toEqual([taskId, 'deferred', undefined]);
      const job = (ti.trigger as EventTrigger).job!;
      const end = JOB_SERVICES[job.type].endEvent(job, {}, Date.now());
      const report = await events.handler(end, lambdaContext('events'));
      expect([taskId, report]).toEqual([taskId, { outcome: 'matched', keys: 1, matched: 1, resumed: 1 }]);
      // EventBridge delivers at least once: the same event again resumes nothing.
      expect(await events.handler(end, lambdaContext('events'))).toMatchObject({ outcome: 'unmatched', resumed: 0 });
    }
    await drain();
    expect((await ports.store.getRun('nightly_jobs', run.runId))!.state).toBe('success');
    expect(await ports.store.getXcom({ dagId: 'nightly_jobs', runId: run.runId, taskId: 'report', key: 'return_value' }))
      .toMatchObject({ queryExecutionId: 'q-1', outputLocation: 's3://acme-athena-results/nightly/q-1.csv' });
    // notify's input was computed in its try from report's XCom, then sent as the Invoke payload.
    const invoke = fn.commandCalls(InvokeCommand)[0].args[0].input;
    expect(JSON.parse(new TextDecoder().decode(invoke.Payload as Uint8Array))).toEqual({ date: '2026-01-01', csv: 's3://acme-athena-results/nightly/q-1.csv' });
    expect(invoke.InvocationType).toBe('Event');
  });

  it('drops a malformed event and counts one nobody waits for, without an error', async () => {
    const events = await import('../../functions/events.js');
    expect(await events.handler({ hello: 'world' }, lambdaContext('events'))).toMatchObject({ outcome: 'dropped', error: 'not an EventBridge event: "source" must be a non-empty string' });
    expect(await events.handler({ source: 'aws.ecs', 'detail-type': 'ECS Task State Change', detail: { taskArn: 'arn:someone-else', lastStatus: 'STOPPED' } }, lambdaContext('events')))
      .toMatchObject({ outcome: 'unmatched', keys: 1 });
  });
});
