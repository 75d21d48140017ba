/**
 * `airless backfill --stack` end to end, offline: the CLI reads the stack's outputs
 * (CloudFormation mocked) and writes through the real DynamoDB adapter (DynamoDB Local);
 * the real Lambda handlers (functions/worker.ts, functions/tick.ts) then run the
 * backfill from SQS (local-aws-sqs), its next run started by the message its previous
 * run's end sent. The dry run reads the stack's store: the history's tries give a Lambda
 * duration estimate.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { CreateScheduleCommand, ListSchedulesCommand } from '@aws-sdk/client-scheduler';
import type { S3Event } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lambdaPorts } from '../../lib/adapters/aws/lambda.js';
import { uploadBundle } from '../../lib/adapters/aws/s3-bundles.js';
import type { AwsPorts } from '../../lib/adapters/aws/wiring.js';
import { buildBundle } from '../../lib/build/index.js';
import { runCli } from '../../lib/cli/main.js';
import { backfillRuns } from '../../lib/engine/index.js';
import { deliverBatch, lambdaContext } from './support/sqs-lambda.js';
import { startLocalAws, type LocalAws } from './support/local-aws.js';

const endpoint = inject('dynamodbEndpoint');
const DAGS = fileURLToPath(new URL('../fixtures/backfill-dags', import.meta.url));
const cf = mockClient(CloudFormationClient);

describe.skipIf(!endpoint)('airless backfill --stack (CLI on DynamoDB Local, Lambda handlers from SQS)', () => {
  let aws: LocalAws;
  let ports: AwsPorts;
  let savedEnv: NodeJS.ProcessEnv;
  /** `airless backfill --dag bf_daily --from 2025-12-01 --to 2025-12-03 [flags]` against the stack. */
  const cli = async (flags: string[]) => {
    const r = await runCli(['backfill', '--dag', 'bf_daily', '--from', '2025-12-01', '--to', '2025-12-03', ...flags], {
      clients: { ...aws.clients, cloudformation: new CloudFormationClient({ region: 'us-east-1' }), logs: new CloudWatchLogsClient({ region: 'us-east-1' }), region: 'us-east-1' },
      env: {},
    });
    expect(r.stderr).toEqual([]);
    return { code: r.code, last: r.stdout[r.stdout.length - 1] ?? '' };
  };

  beforeAll(async () => {
    savedEnv = { ...process.env };
    aws = await startLocalAws({ dynamodbEndpoint: endpoint, maxReceiveCount: 3, prefix: `bfs${process.pid}-` });
    Object.assign(process.env, aws.env);
    const scheduler = mockClient(aws.clients.scheduler);
    scheduler.on(ListSchedulesCommand).resolves({ Schedules: [] });
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:::schedule/x' });
    ports = lambdaPorts({ clients: aws.clients, reset: true });
    cf.on(DescribeStacksCommand).resolves({
      Stacks: [{
        StackName: 'Airless', StackStatus: 'CREATE_COMPLETE', CreationTime: new Date(),
        Outputs: Object.entries({
          BucketName: aws.bucket, QueueUrl: aws.queueUrl, SchedulerGroup: 'Airless-timers', DagScheduleGroup: 'Airless-dags',
          TablePrefix: aws.env.AIRLESS_TABLE_PREFIX, QueueArn: aws.env.AIRLESS_QUEUE_ARN,
        }).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
      }],
    });
    const built = await buildBundle({ dir: DAGS, outDir: join(aws.work, 'build') });
    const up = await uploadBundle(aws.clients.s3, aws.bucket, { bundlePath: built.bundlePath, manifestPath: built.manifestPath });
    const { handler } = await import('../../functions/register-bundle.js');
    const event = { Records: [{ s3: { bucket: { name: aws.bucket }, object: { key: up.manifestKey } } }] } as unknown as S3Event;
    await handler(event, lambdaContext('register-bundle'));
  });

  afterAll(async () => {
    cf.restore();
    process.env = savedEnv;
    await aws?.stop();
  });

  it('dry run, then the backfill: the stack engine runs it one run at a time to its end', async () => {
    const dry = await cli(['--dry-run', '--json']);
    expect(dry.code).toBe(0);
    const plan = JSON.parse(dry.last);
    expect(plan.runs.map((r: { logicalDate: string }) => r.logicalDate)).toEqual(['2025-12-01T00:00:00.000Z', '2025-12-02T00:00:00.000Z', '2025-12-03T00:00:00.000Z']);
    expect(plan.estimate).toMatchObject({ tasks: 6, durationFrom: null, lambdaGbSeconds: null });

    const created = await cli(['--max-active-runs', '1']);
    expect(created.code).toBe(0);
    expect(created.last).toBe('backfill 1 of bf_daily: running, 1/3 dates handled (1 created, 0 reprocessed, 0 skipped), 1 running, at most 1 at once');

    const worker = await import('../../functions/worker.js');
    const tick = await import('../../functions/tick.js');
    let batches = 0;
    for (let i = 0; i < 100; i++) {
      const out = await deliverBatch(aws.clients.sqs, aws.queueUrl, aws.env.AIRLESS_QUEUE_ARN, worker.handler);
      if (out) { batches++; expect(out.failed).toEqual([]); continue; }
      if ((await ports.store.getBackfill(1))?.completedAt !== undefined) break;
      await tick.handler(undefined as never, lambdaContext('tick'));
    }
    const b = (await ports.store.getBackfill(1))!;
    expect(b).toMatchObject({ handled: 3, created: 3, active: 0 });
    expect(b.completedAt).toBeDefined();
    expect(batches).toBeGreaterThanOrEqual(3);
    const runs = await backfillRuns(ports, b);
    expect(runs.map((r) => [r.runId, r.runType, r.state])).toEqual([1, 2, 3].map((d) => [`backfill__2025-12-0${d}T00:00:00.000Z`, 'backfill', 'success']));
    // One at a time: each run started after the one before it ended.
    for (let i = 1; i < runs.length; i++) expect(runs[i].startedAt!).toBeGreaterThanOrEqual(runs[i - 1].endedAt!);
    expect(await ports.store.listOpenBackfills()).toEqual([]);

    const again = JSON.parse((await cli(['--dry-run', '--json', '--reprocess', 'completed'])).last);
    expect(again.runs.map((r: { action: string; runId: string }) => [r.action, r.runId])).toEqual(runs.map((r) => ['reprocess', r.runId]));
    expect(again.estimate.durationFrom).toEqual({ runs: 3, tries: 6, memoryMb: 1024 });
    expect(again.estimate.lambdaGbSeconds).toBeGreaterThanOrEqual(0);
  }, 60_000);
});
