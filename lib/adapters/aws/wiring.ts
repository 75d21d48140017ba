/**
 * Builds the engine's ports on AWS from the functions' environment (set by the CDK
 * stack, see docs/adr/0004-infrastructure.md). Handlers call this once per container.
 */
import { maxMapLengthFrom } from '../map-env.js';
import { randomUUID } from 'node:crypto';
import { DEFAULT_CONFIG, type Clock, type Log, type Metrics, type Ports } from '../../engine/index.js';
import { InvalidInputError } from '../../engine/index.js';
import { SystemClock } from '../clock.js';
import { builtinSensors } from '../../sensors/index.js';
import { makeClients, type AwsClients } from './clients.js';
import type { TableNames } from './dynamo-schema.js';
import { DynamoStore } from './dynamo-store.js';
import { tableEnvName, tableNamesFrom } from './stack-contract.js';
import { S3BlobStore } from './s3-blob.js';
import { S3BundleSource } from './s3-bundles.js';
import { ScheduleSync } from './schedule-sync.js';
import { SchedulerTimer } from './scheduler-timer.js';
import { SchedulerPokerSchedules } from './poker-schedules.js';
import { SqsQueue } from './sqs-queue.js';
import { AwsSecrets, DEFAULT_CONNECTIONS_PREFIX, DEFAULT_VARIABLES_PREFIX } from './secrets-aws.js';
import { AwsNotifier } from '../callbacks-notify.js';
import { awsJobDrivers } from '../../operators/index.js';
import type { JobDrivers } from '../../engine/index.js';

export interface AwsEnv {
  /** Table names by schema id; a table not named here is `tablePrefix` + its suffix. */
  tableNames: Partial<TableNames>;
  tablePrefix: string;
  queueUrl: string;
  queueArn: string;
  bucket: string;
  shards: number;
  timerGroup: string;
  dagScheduleGroup: string;
  schedulerRoleArn: string;
  schedulerDlqArn: string;
  workerTimeoutMs: number;
  runRetentionMs: number;
  maxMapLength?: number;
  /** SSM Parameter Store prefix of variables, Secrets Manager prefix of connections. */
  variablesPrefix: string;
  connectionsPrefix: string;
  /** The group of the tick and poker schedules; with it the poker schedules are switched with the sensors. */
  systemScheduleGroup?: string;
}

/**
 * Reads the environment the stack sets; a missing variable is named in the error.
 *
 * @example
 * const env = readAwsEnv(process.env);
 */
export function readAwsEnv(e: Record<string, string | undefined>): AwsEnv {
  const need = (k: string, alternative?: string): string => {
    const v = e[k];
    const name = alternative ? `${alternative} (or ${k})` : k;
    if (!v) throw new InvalidInputError(`environment variable ${name} is not set (is this function deployed by the Airless stack?)`);
    return v;
  };
  // The stack names each table in AIRLESS_TABLE_<ID> (CloudFormation-generated names);
  // AIRLESS_TABLE_PREFIX serves local setups whose tables are prefix + suffix.
  const tables = tableNamesFrom((id) => e[tableEnvName(id)]);
  return {
    tableNames: tables.names,
    tablePrefix: tables.missing.length ? need('AIRLESS_TABLE_PREFIX', tableEnvName(tables.missing[0])) : (e.AIRLESS_TABLE_PREFIX ?? ''),
    queueUrl: need('AIRLESS_QUEUE_URL'),
    queueArn: need('AIRLESS_QUEUE_ARN'),
    bucket: need('AIRLESS_BUCKET'),
    shards: Number(e.AIRLESS_SHARDS ?? 8),
    timerGroup: e.AIRLESS_SCHEDULER_GROUP ?? 'airless-timers',
    dagScheduleGroup: e.AIRLESS_DAG_SCHEDULE_GROUP ?? 'airless-dags',
    schedulerRoleArn: e.AIRLESS_SCHEDULER_ROLE_ARN ?? '',
    schedulerDlqArn: e.AIRLESS_SCHEDULER_DLQ_ARN ?? '',
    workerTimeoutMs: Number(e.AIRLESS_WORKER_TIMEOUT_MS ?? 300_000),
    runRetentionMs: Number(e.AIRLESS_RUN_RETENTION_MS ?? DEFAULT_CONFIG.runRetentionMs),
    maxMapLength: maxMapLengthFrom(e),
    variablesPrefix: e.AIRLESS_VARIABLES_PREFIX ?? DEFAULT_VARIABLES_PREFIX,
    connectionsPrefix: e.AIRLESS_CONNECTIONS_PREFIX ?? DEFAULT_CONNECTIONS_PREFIX,
    systemScheduleGroup: e.AIRLESS_SYSTEM_SCHEDULE_GROUP || undefined,
  };
}

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
