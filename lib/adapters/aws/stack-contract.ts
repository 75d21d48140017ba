/**
 * The contract between the stack and the code that runs against it: the environment
 * the functions get (names of the `AIRLESS_*` variables), the outputs the CLI and the
 * rehearsal read, and how tables are named. The infrastructure (lib/infra) writes
 * these names, the AWS wiring, the CLI and the rehearsal read them: all import them
 * from here, so a name is spelled once (docs/adr/0004-infrastructure.md).
 *
 * The tables come from the store's own schema (./dynamo-schema.ts) so that the CDK
 * tables, `createTables()` for DynamoDB Local and the store adapter never disagree.
 */
import { DEFAULT_CONFIG, InvalidInputError } from '../../engine/index.js';
import { maxMapLengthFrom } from '../map-env.js';
import { TABLES, type TableDef, type TableId, type TableNames } from './dynamo-schema.js';

export type { IndexDef, KeyAttr, TableDef, TableId } from './dynamo-schema.js';

/** A table to create: its schema id (`tasks`) and definition. */
export interface TableDefinition {
  id: TableId;
  def: TableDef;
}

/**
 * Every table of the schema, in schema order.
 *
 * @example
 * for (const { id, def } of tableDefinitions) console.log(id, def.gsis.map((i) => i.indexName));
 */
export const tableDefinitions: readonly TableDefinition[] = (Object.keys(TABLES) as TableId[]).map((id) => ({
  id,
  def: TABLES[id],
}));

/**
 * Name of the environment variable that carries a table's name to the Lambda functions.
 *
 * @example
 * tableEnvName('tasks'); // 'AIRLESS_TABLE_TASKS'
 */
export function tableEnvName(id: string): string {
  return `AIRLESS_TABLE_${id.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}`;
}

/**
 * Name of the stack output that carries a table's name to the CLI.
 *
 * @example
 * tableOutputName('tasks'); // 'TableTasks'
 */
export function tableOutputName(id: string): string {
  return `Table${id.charAt(0).toUpperCase()}${id.slice(1)}`;
}

/**
 * Table names read from `name(id)` for each table of the schema (environment variables
 * or stack outputs); tables whose name is absent are listed in `missing`.
 *
 * @example
 * const { names, missing } = tableNamesFrom((id) => process.env[tableEnvName(id)]);
 */
export function tableNamesFrom(name: (id: TableId) => string | undefined): { names: Partial<TableNames>; missing: TableId[] } {
  const names: Partial<TableNames> = {};
  const missing: TableId[] = [];
  for (const { id } of tableDefinitions) {
    const value = name(id);
    if (value) names[id] = value;
    else missing.push(id);
  }
  return { names, missing };
}

/**
 * The variables the stack sets on every function besides one per table
 * ({@link tableEnvName}), by the {@link AwsEnv} field each fills.
 *
 * @example
 * environment[FUNCTION_ENV.queueUrl] = readyQueue.queue.queueUrl; // AIRLESS_QUEUE_URL
 */
export const FUNCTION_ENV = {
  queueUrl: 'AIRLESS_QUEUE_URL',
  queueArn: 'AIRLESS_QUEUE_ARN',
  bucket: 'AIRLESS_BUCKET',
  shards: 'AIRLESS_SHARDS',
  workerTimeoutMs: 'AIRLESS_WORKER_TIMEOUT_MS',
  runRetentionMs: 'AIRLESS_RUN_RETENTION_MS',
  timerGroup: 'AIRLESS_SCHEDULER_GROUP',
  dagScheduleGroup: 'AIRLESS_DAG_SCHEDULE_GROUP',
  schedulerRoleArn: 'AIRLESS_SCHEDULER_ROLE_ARN',
  schedulerDlqArn: 'AIRLESS_SCHEDULER_DLQ_ARN',
  systemScheduleGroup: 'AIRLESS_SYSTEM_SCHEDULE_GROUP',
  variablesPrefix: 'AIRLESS_VARIABLES_PREFIX',
  connectionsPrefix: 'AIRLESS_CONNECTIONS_PREFIX',
} as const satisfies Partial<Record<keyof AwsEnv, string>>;

/** Local setups (DynamoDB Local, LocalStack) name their tables prefix + suffix instead; the stack never sets it. */
export const TABLE_PREFIX_ENV = 'AIRLESS_TABLE_PREFIX';

/**
 * Every `AIRLESS_*` variable the stack gives each function: {@link FUNCTION_ENV} and one per table.
 *
 * @example
 * functionEnvNames().includes('AIRLESS_TABLE_TASKS'); // true
 */
export function functionEnvNames(): string[] {
  return [...Object.values(FUNCTION_ENV), ...tableDefinitions.map(({ id }) => tableEnvName(id))];
}

/** Where variables (SSM Parameter Store) and connections (Secrets Manager) live unless the stack says otherwise. */
export const DEFAULT_VARIABLES_PREFIX = '/airless/variables/';
export const DEFAULT_CONNECTIONS_PREFIX = 'airless/connections/';
/** The stack's defaults that a reader falls back to when a variable or output is absent. */
export const STACK_DEFAULTS = { shards: 8, workerTimeoutMs: 300_000 } as const;

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
  const get = (k: keyof typeof FUNCTION_ENV) => e[FUNCTION_ENV[k]];
  // The stack names each table in AIRLESS_TABLE_<ID> (CloudFormation-generated names);
  // AIRLESS_TABLE_PREFIX serves local setups whose tables are prefix + suffix.
  const tables = tableNamesFrom((id) => e[tableEnvName(id)]);
  return {
    tableNames: tables.names,
    tablePrefix: tables.missing.length ? need(TABLE_PREFIX_ENV, tableEnvName(tables.missing[0])) : (e[TABLE_PREFIX_ENV] ?? ''),
    queueUrl: need(FUNCTION_ENV.queueUrl),
    queueArn: need(FUNCTION_ENV.queueArn),
    bucket: need(FUNCTION_ENV.bucket),
    shards: Number(get('shards') ?? STACK_DEFAULTS.shards),
    timerGroup: get('timerGroup') ?? 'airless-timers',
    dagScheduleGroup: get('dagScheduleGroup') ?? 'airless-dags',
    schedulerRoleArn: get('schedulerRoleArn') ?? '',
    schedulerDlqArn: get('schedulerDlqArn') ?? '',
    workerTimeoutMs: Number(get('workerTimeoutMs') ?? STACK_DEFAULTS.workerTimeoutMs),
    runRetentionMs: Number(get('runRetentionMs') ?? DEFAULT_CONFIG.runRetentionMs),
    maxMapLength: maxMapLengthFrom(e),
    variablesPrefix: get('variablesPrefix') ?? DEFAULT_VARIABLES_PREFIX,
    connectionsPrefix: get('connectionsPrefix') ?? DEFAULT_CONNECTIONS_PREFIX,
    systemScheduleGroup: get('systemScheduleGroup') || undefined,
  };
}

/**
 * The stack's outputs by what they carry (lib/infra/stack.ts writes each; the CLI and the
 * rehearsal read them), besides one per table ({@link tableOutputName}). Stacks deployed
 * before some existed lack them: readers derive the value (queue ARNs from URLs, log
 * groups from the stack's resources) or use the functions' defaults.
 */
export const STACK_OUTPUTS = {
  bucket: 'BucketName',
  queueUrl: 'QueueUrl',
  dlqUrl: 'DeadLetterQueueUrl',
  schedulerDlqUrl: 'SchedulerDeadLetterQueueUrl',
  timerGroup: 'SchedulerGroup',
  dagScheduleGroup: 'DagScheduleGroup',
  // optional
  queueArn: 'QueueArn',
  schedulerRoleArn: 'SchedulerRoleArn',
  schedulerDlqArn: 'SchedulerDeadLetterQueueArn',
  workerLogGroup: 'WorkerLogGroupName',
  pokerLogGroup: 'PokerLogGroupName',
  tickLogGroup: 'TickLogGroupName',
  shards: 'Shards',
  workerTimeoutMs: 'WorkerTimeoutMs',
  systemScheduleGroup: 'SystemScheduleGroup',
  variablesPrefix: 'VariablesPrefix',
  connectionsPrefix: 'ConnectionsPrefix',
  eventBusName: 'EventBusName',
  alarmTopicArn: 'AlarmTopicArn',
  /** Only when the stack has a dashboard. */
  dashboardUrl: 'DashboardUrl',
} as const;

/** The outputs that make a stack an Airless stack (what `airless push` and the functions need). */
export const REQUIRED_OUTPUTS = ['bucket', 'queueUrl', 'timerGroup', 'dagScheduleGroup'] as const;
/** Stacks deployed before the tables were unnamed also output the names' common prefix. */
const LEGACY_TABLE_PREFIX = 'TablePrefix';

/** A problem with the user's setup (credentials, region, stack name, a stack that is not Airless's): exit code 2. */
export class AwsConfigError extends InvalidInputError {}

/**
 * `arn:aws:sqs:<region>:<account>:<name>` from a queue URL (AWS, `sqs.<region>.*` LocalStack hosts, or `host/<account>/<name>`).
 *
 * @example
 * queueArnFromUrl('https://sqs.eu-west-1.amazonaws.com/123456789012/ready'); // 'arn:aws:sqs:eu-west-1:123456789012:ready'
 */
export function queueArnFromUrl(url: string, fallbackRegion = 'us-east-1'): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch (cause) {
    throw new InvalidInputError(`not a queue URL: ${url}`, { cause });
  }
  const [account, name] = u.pathname.split('/').filter(Boolean);
  if (!account || !name) throw new InvalidInputError(`not a queue URL (expected .../<account>/<name>): ${url}`);
  const host = /^(?:sqs\.)?([a-z]{2}(?:-gov|-iso[a-z]*)?-[a-z]+-\d)\./.exec(u.hostname);
  const partition = u.hostname.endsWith('.amazonaws.com.cn') ? 'aws-cn' : 'aws';
  return `arn:${partition}:sqs:${host?.[1] ?? fallbackRegion}:${account}:${name}`;
}

/**
 * The functions' environment ({@link AwsEnv}) from stack outputs; a missing required
 * output is named in the error.
 *
 * @example
 * const env = envFromOutputs(await stackOutputs(cf, 'Airless'), { stackName: 'Airless' });
 * @throws AwsConfigError when a required output is missing.
 */
export function envFromOutputs(o: Record<string, string>, opts: { stackName: string; region?: string }): AwsEnv {
  // One output per table (`TableTasks`...): CloudFormation names the tables.
  const tables = tableNamesFrom((id) => o[tableOutputName(id)]);
  const tableOutputsMissing = o[LEGACY_TABLE_PREFIX] ? [] : tables.missing.map(tableOutputName);
  const missing = [...REQUIRED_OUTPUTS.map((k) => STACK_OUTPUTS[k]).filter((k) => !o[k]), ...tableOutputsMissing];
  if (missing.length) {
    throw new AwsConfigError(`stack ${opts.stackName} has no output ${missing.join(', ')}; is it an Airless stack? (redeploy with \`npx cdk deploy\`)`);
  }
  const get = (k: keyof typeof STACK_OUTPUTS) => o[STACK_OUTPUTS[k]];
  const num = (k: keyof typeof STACK_OUTPUTS, d: number) => (get(k) !== undefined && Number.isFinite(Number(get(k))) ? Number(get(k)) : d);
  const schedulerDlqUrl = get('schedulerDlqUrl');
  return {
    tableNames: tables.names,
    tablePrefix: o[LEGACY_TABLE_PREFIX] ?? '',
    queueUrl: get('queueUrl'),
    queueArn: get('queueArn') ?? queueArnFromUrl(get('queueUrl'), opts.region),
    bucket: get('bucket'),
    shards: num('shards', STACK_DEFAULTS.shards),
    timerGroup: get('timerGroup'),
    dagScheduleGroup: get('dagScheduleGroup'),
    schedulerRoleArn: get('schedulerRoleArn') ?? '',
    schedulerDlqArn: get('schedulerDlqArn') ?? (schedulerDlqUrl ? queueArnFromUrl(schedulerDlqUrl, opts.region) : ''),
    workerTimeoutMs: num('workerTimeoutMs', STACK_DEFAULTS.workerTimeoutMs),
    runRetentionMs: DEFAULT_CONFIG.runRetentionMs,
    variablesPrefix: get('variablesPrefix') ?? DEFAULT_VARIABLES_PREFIX,
    connectionsPrefix: get('connectionsPrefix') ?? DEFAULT_CONNECTIONS_PREFIX,
    systemScheduleGroup: get('systemScheduleGroup'),
  };
}
