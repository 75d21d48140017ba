/**
 * The AWS services of the deployed stack, offline: DynamoDB Local (from the vitest
 * globalSetup), local-aws-sqs and s3rver in this process, and the environment the CDK
 * stack gives the functions. EventBridge Scheduler has no emulator: callers mock it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { makeClients, type AwsClients } from '../../../lib/adapters/aws/clients.js';
import { createTables } from '../../../lib/adapters/aws/dynamo-schema.js';
import { startS3rver } from '../../../lib/rehearsal/s3rver.js';

export interface LocalAws {
  clients: AwsClients;
  endpoints: { dynamodb: string; sqs: string; s3: string };
  /** What the stack sets on every function (lib/infra/functions.ts). */
  env: Record<string, string>;
  queueUrl: string;
  dlqUrl: string;
  bucket: string;
  work: string;
  stop(): Promise<void>;
}

/**
 * Starts local-aws-sqs and s3rver, creates the tables, a ready queue with a DLQ after
 * `maxReceiveCount` receives, and the bundle bucket.
 *
 * @example
 * const aws = await startLocalAws({ dynamodbEndpoint: inject('dynamodbEndpoint'), maxReceiveCount: 2 });
 * Object.assign(process.env, aws.env);
 */
export async function startLocalAws(opts: { dynamodbEndpoint: string; maxReceiveCount: number; prefix?: string }): Promise<LocalAws> {
  const work = await mkdtemp(join(tmpdir(), 'airless-e2e-'));
  const sqsServer: Server = await createSqsServer({ port: 0, emulateQueueCreationLifecycle: false });
  const sqsPort = (sqsServer.address() as AddressInfo).port;
  const bucket = 'airless-e2e-bundles';
  const s3rver = await startS3rver({ directory: join(work, 's3'), buckets: [bucket] });

  const endpoints = { dynamodb: opts.dynamodbEndpoint, sqs: `http://127.0.0.1:${sqsPort}`, s3: s3rver.endpoint };
  // The scheduler endpoint is never reached: the test mocks that client.
  const clients = makeClients({ endpoints: { ...endpoints, scheduler: 'http://127.0.0.1:1' } });
  const prefix = opts.prefix ?? `e2e${process.pid}-`;
  await createTables(clients.dynamodb, prefix);

  const dlq = await clients.sqs.send(new CreateQueueCommand({ QueueName: 'airless-ready-dlq' }));
  const arnOf = async (url: string) =>
    (await clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  const q = await clients.sqs.send(new CreateQueueCommand({
    QueueName: 'airless-ready',
    Attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: await arnOf(dlq.QueueUrl!), maxReceiveCount: opts.maxReceiveCount }) },
  }));
  const queueUrl = q.QueueUrl!;

  const env = {
    AIRLESS_TABLE_PREFIX: prefix,
    AIRLESS_QUEUE_URL: queueUrl,
    AIRLESS_QUEUE_ARN: await arnOf(queueUrl),
    AIRLESS_BUCKET: bucket,
    AIRLESS_SHARDS: '2',
    AIRLESS_SCHEDULER_GROUP: 'Airless-timers',
    AIRLESS_DAG_SCHEDULE_GROUP: 'Airless-dags',
    AIRLESS_SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/airless-scheduler-target',
    AIRLESS_SCHEDULER_DLQ_ARN: 'arn:aws:sqs:us-east-1:000000000000:airless-scheduler-dlq',
    AIRLESS_WORKER_TIMEOUT_MS: '300000',
    AIRLESS_BUNDLE_CACHE: join(work, 'bundle-cache'),
    // Handlers log and publish metrics to stdout in Lambda; keep the test output readable.
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };

  return {
    clients, endpoints, env, queueUrl, dlqUrl: dlq.QueueUrl!, bucket, work,
    async stop() {
      for (const c of Object.values(clients)) c.destroy();
      await new Promise((resolve) => sqsServer.close(resolve));
      await s3rver.close();
      await rm(work, { recursive: true, force: true });
    },
  };
}
