/**
 * Builds the engine's ports on AWS from the functions' environment (set by the CDK
 * stack, see docs/adr/0004-infrastructure.md). Handlers call this once per container.
 * The environment's names and `readAwsEnv` are the stack contract's (./stack-contract.ts).
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_CONFIG, type Clock, type Log, type Metrics, type Ports } from '../../engine/index.js';
import { SystemClock } from '../clock.js';
import { builtinSensors } from '../../sensors/index.js';
import { makeClients, type AwsClients } from './clients.js';
import { DynamoStore } from './dynamo-store.js';
import type { AwsEnv } from './stack-contract.js';
import { S3BlobStore } from './s3-blob.js';
import { S3BundleSource } from './s3-bundles.js';
import { ScheduleSync } from './schedule-sync.js';
import { SchedulerTimer } from './scheduler-timer.js';
import { SchedulerPokerSchedules } from './poker-schedules.js';
import { SqsQueue } from './sqs-queue.js';
import { AwsSecrets } from './secrets-aws.js';
import { AwsNotifier } from '../callbacks-notify.js';
import { awsJobDrivers } from '../../operators/index.js';
import type { JobDrivers } from '../../engine/index.js';

export type { AwsEnv } from './stack-contract.js';

export interface AwsPorts extends Ports {
  env: AwsEnv;
  scheduleSync: ScheduleSync;
  clients: AwsClients;
  queue: SqsQueue;
  store: DynamoStore;
  secrets: AwsSecrets;
}

/**
 * @example
 * const ports = awsPorts(readAwsEnv(process.env), { metrics, log });
 */
export function awsPorts(
  env: AwsEnv,
  opts: { clients?: AwsClients; metrics: Metrics; log: Log; clock?: Clock; workerId?: string; cacheDir?: string; /** The operators' job services (default: the AWS SDK's, made on first use). */ jobs?: JobDrivers },
): AwsPorts {
  const clients = opts.clients ?? makeClients();
  const clock = opts.clock ?? new SystemClock();
  const { metrics } = opts;
  const blobs = new S3BlobStore({ s3: clients.s3, bucket: env.bucket, metrics });
  const store = new DynamoStore({ client: clients.dynamodb, tablePrefix: env.tablePrefix, tableNames: env.tableNames, metrics, blobs });
  const queue = new SqsQueue({ client: clients.sqs, queueUrl: env.queueUrl, metrics });
  const timer = new SchedulerTimer({
    scheduler: clients.scheduler, queue, groupName: env.timerGroup, targetQueueArn: env.queueArn,
    roleArn: env.schedulerRoleArn, dlqArn: env.schedulerDlqArn, clock, metrics,
  });
  const scheduleSync = new ScheduleSync({
    scheduler: clients.scheduler, groupName: env.dagScheduleGroup, targetQueueArn: env.queueArn,
    roleArn: env.schedulerRoleArn, dlqArn: env.schedulerDlqArn, metrics,
  });
  return {
    env, store, queue, timer, clock, metrics, log: opts.log, clients, scheduleSync,
    bundles: new S3BundleSource({ s3: clients.s3, bucket: env.bucket, cacheDir: opts.cacheDir, metrics }),
    config: {
      ...DEFAULT_CONFIG,
      shards: env.shards,
      defaultLeaseMs: env.workerTimeoutMs,
      runRetentionMs: env.runRetentionMs,
      maxMapLength: env.maxMapLength,
    },
    sensors: builtinSensors({ s3: clients.s3 }),
    secrets: new AwsSecrets({
      // The clients' endpoints and credentials: a CLI pointed at a rehearsal or LocalStack reads there too.
      ssm: clients.ssm, secretsManager: clients.secretsManager,
      variablesPrefix: env.variablesPrefix, connectionsPrefix: env.connectionsPrefix,
    }),
    notifier: new AwsNotifier(),
    workerId: opts.workerId ?? randomUUID().slice(0, 8),
    ...(env.systemScheduleGroup ? { pokerSchedules: new SchedulerPokerSchedules({ scheduler: clients.scheduler, groupName: env.systemScheduleGroup, metrics }) } : {}),
    jobs: opts.jobs ?? awsJobDrivers(),
  };
}
