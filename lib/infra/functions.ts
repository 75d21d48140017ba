import { grantSecrets, type SecretsGrantProps } from './secrets-grants.js';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InvalidInputError } from '../engine/index.js';
import { FUNCTION_ENV, STACK_DEFAULTS } from '../adapters/aws/stack-contract.js';
import { grantEventSource, grantSend, grantTables, TABLE_ACCESS } from './grants.js';
import type { BundleBucket } from './bundle-bucket.js';
import type { ReadyQueue } from './ready-queue.js';
import type { Schedules } from './schedules.js';
import type { StateTables } from './state-tables.js';

/** Repository root (or `dist/` of the installed package): the handler entries live here. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Sources in the repository, compiled JavaScript in the installed package. */
const ENTRY_EXT = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
/** In the repository its lock file; installed, NodejsFunction finds the user's project from the working directory. */
const REPO_LOCK = existsSync(`${PROJECT_ROOT}package-lock.json`) ? `${PROJECT_ROOT}package-lock.json` : undefined;

export interface FunctionsProps extends SecretsGrantProps {
  readonly state: StateTables;
  readonly readyQueue: ReadyQueue;
  readonly bundles: BundleBucket;
  readonly schedules: Schedules;
  /** @default 8 */
  readonly shards?: number;
  /** @default 1024 */
  readonly workerMemoryMb?: number;
  /** At most 15 minutes (the Lambda limit). @default Duration.minutes(5) */
  readonly workerTimeout?: Duration;
  /** SQS event source maximum concurrency (2..1000). @default 50 */
  readonly workerMaxConcurrency?: number;
  /** Messages per worker invocation (1..10). @default 10 */
  readonly workerBatchSize?: number;
  /** Finished runs expire this long after they end. @default Duration.days(90) */
  readonly runRetention?: Duration;
  /** Extra permissions for task and sensor code: worker and poker only. @default none */
  readonly taskPolicies?: iam.PolicyStatement[];
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** Of the log groups. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Where the events function's failed asynchronous invocations go (the Events construct's queue). @default none */
  readonly eventsDeadLetterQueue?: sqs.IQueue;
}

/**
 * How every function is bundled: one minified ESM file for Node 24 with source maps;
 * `@aws-sdk/*` comes from the Lambda runtime.
 *
 * @example
 * new NodejsFunction(this, 'F', { entry, runtime: lambda.Runtime.NODEJS_24_X, bundling: BUNDLING });
 */
export const BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  target: 'node24',
  mainFields: ['module', 'main'],
  minify: true,
  // Minified but with class and function names kept: error names (`BundleError`...) reach the logs.
  keepNames: true,
  sourceMap: true,
  sourcesContent: false,
  // CommonJS dependencies bundled into ESM still call require().
  banner: "import { createRequire as __airlessCreateRequire } from 'node:module'; const require = __airlessCreateRequire(import.meta.url);",
  externalModules: ['@aws-sdk/*'],
};

/** The worker's size and architecture unless the props say otherwise: what the bench bills compute on. */
export const WORKER_DEFAULTS = { memoryMb: 1024, architecture: 'arm64' } as const;

function checkInt(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidInputError(`${name} must be an integer in ${min}..${max}, got ${value}`);
  }
  return value;
}

/**
 * The four Lambda functions (Node 24, arm64, ESM bundles built by the local esbuild),
 * each with its own role holding only what it uses, and its own log group.
 *
 * @example
 * const fns = new Functions(this, 'Functions', { state, readyQueue, bundles, schedules });
 * fns.worker.addEnvironment('EXTRA', '1');
 */
export class Functions extends Construct {
  /** The reconcile tick, every minute. */
  public readonly tick: NodejsFunction;
  /** Runs task tries from the ready queue. */
  public readonly worker: NodejsFunction;
  /** Pokes the sensors of one shard per invocation. */
  public readonly poker: NodejsFunction;
  /** Registers a bundle version when its manifest lands in S3. */
  public readonly registerBundle: NodejsFunction;
  /** Resumes tasks waiting for the EventBridge events the Events construct's rules deliver. */
  public readonly events: NodejsFunction;
  /** The worker's SQS event source mapping. */
  public readonly workerEventSource: lambda.EventSourceMapping;
  /** Log groups by function. */
  public readonly logGroups: Readonly<Record<'tick' | 'worker' | 'poker' | 'registerBundle' | 'events', logs.LogGroup>>;
  /** Makes one more function the way these are made (own role and log group, the shared environment): AssetSources' function. */
  public readonly makeFunction: (name: string, entry: string, opts: { memorySize: number; timeout: Duration; description: string; retryAttempts?: number }) => NodejsFunction;

  constructor(scope: Construct, id: string, props: FunctionsProps) {
    super(scope, id);
    const shards = checkInt('shards', props.shards ?? STACK_DEFAULTS.shards, 1, 64);
    const workerMemoryMb = checkInt('workerMemoryMb', props.workerMemoryMb ?? WORKER_DEFAULTS.memoryMb, 128, 10_240);
    const workerTimeout = props.workerTimeout ?? Duration.millis(STACK_DEFAULTS.workerTimeoutMs);
    checkInt('workerTimeout (seconds)', workerTimeout.toSeconds(), 1, 900);
    const maxConcurrency = checkInt('workerMaxConcurrency', props.workerMaxConcurrency ?? 50, 2, 1000);
    const batchSize = checkInt('workerBatchSize', props.workerBatchSize ?? 10, 1, 10);
    const runRetention = props.runRetention ?? Duration.days(90);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const { state, readyQueue, bundles, schedules } = props;

    const environment: Record<string, string> = {
      ...state.environment(),
      ...schedules.environment(),
      [FUNCTION_ENV.queueUrl]: readyQueue.queue.queueUrl,
      [FUNCTION_ENV.queueArn]: readyQueue.queue.queueArn,
      [FUNCTION_ENV.bucket]: bundles.bucket.bucketName,
      [FUNCTION_ENV.shards]: String(shards),
      [FUNCTION_ENV.workerTimeoutMs]: String(workerTimeout.toMilliseconds()),
      [FUNCTION_ENV.runRetentionMs]: String(runRetention.toMilliseconds()),
      POWERTOOLS_SERVICE_NAME: 'airless',
      POWERTOOLS_METRICS_NAMESPACE: 'Airless',
      NODE_OPTIONS: '--enable-source-maps',
    };

    const logGroups: Record<string, logs.LogGroup> = {};
    const make = (name: string, entry: string, opts: { memorySize: number; timeout: Duration; description: string; retryAttempts?: number; deadLetterQueue?: sqs.IQueue }) => {
      const logGroup = new logs.LogGroup(this, `${name}Logs`, {
        retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
        removalPolicy,
      });
      // An own role instead of the default one: the default attaches the managed
      // AWSLambdaBasicExecutionRole, which may write to any log group.
      const role = new iam.Role(this, `${name}Role`, {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        description: `Airless ${entry}`,
      });
      logGroup.grantWrite(role);
      logGroups[name.charAt(0).toLowerCase() + name.slice(1)] = logGroup;
      return new NodejsFunction(this, name, {
        entry: `${PROJECT_ROOT}functions/${entry}.${ENTRY_EXT}`,
        projectRoot: REPO_LOCK ? PROJECT_ROOT : undefined,
        depsLockFilePath: REPO_LOCK,
        handler: 'handler',
        runtime: lambda.Runtime.NODEJS_24_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize: opts.memorySize,
        timeout: opts.timeout,
        description: opts.description,
        retryAttempts: opts.retryAttempts,
        deadLetterQueue: opts.deadLetterQueue,
        role,
        logGroup,
        environment,
        bundling: BUNDLING,
      });
    };

    this.makeFunction = make;
    // The tick and the pokers run every minute: a failed invocation is covered by the
    // next one, so asynchronous retries (two by default) would only triple the load.
    this.tick = make('Tick', 'tick', {
      memorySize: 512,
      timeout: Duration.minutes(2),
      description: 'Airless reconcile tick (every minute)',
      retryAttempts: 0,
    });
    this.worker = make('Worker', 'worker', {
      memorySize: workerMemoryMb,
      timeout: workerTimeout,
      description: 'Airless worker: runs task tries from the ready queue',
    });
    this.poker = make('Poker', 'poker', {
      memorySize: 512,
      timeout: Duration.minutes(2),
      description: 'Airless poker: pokes the sensors of one shard',
      retryAttempts: 0,
    });
    this.registerBundle = make('RegisterBundle', 'register-bundle', {
      memorySize: 512,
      timeout: Duration.minutes(2),
      description: 'Airless bundle registration (S3 manifest notification)',
    });
    // Events arrive one per invocation (EventBridge invokes asynchronously): two retries, then the dead-letter queue.
    this.events = make('Events', 'events', {
      memorySize: 512,
      timeout: Duration.minutes(1),
      description: 'Airless events: resumes tasks waiting for EventBridge events',
      retryAttempts: 2,
      deadLetterQueue: props.eventsDeadLetterQueue,
    });
    this.logGroups = logGroups as Functions['logGroups'];

    // Exactly the actions each function's code sends (lib/infra/grants.ts), proven by the
    // rehearsal's least-privilege scenario. register-bundle keeps the DAG registry (dags,
    // and kv for offloaded specs) and sends nothing to the queue: runs are the tick's business.
    grantTables(state, this.tick, TABLE_ACCESS.tick);
    grantTables(state, this.worker, TABLE_ACCESS.worker);
    grantTables(state, this.poker, TABLE_ACCESS.poker);
    grantTables(state, this.registerBundle, TABLE_ACCESS.registerBundle);
    grantTables(state, this.events, TABLE_ACCESS.events);
    grantSend(this.events, readyQueue.queue.queueArn);
    for (const fn of [this.tick, this.worker, this.poker]) {
      grantSend(fn, readyQueue.queue.queueArn);
      schedules.grantTimers(fn);
    }
    schedules.grantDagSchedules(this.registerBundle);
    // Sensors register wherever a task is decided (tick, worker, poker); the poker disables
    // its own schedule; the tick checks them (docs/adr/0024-nothing-at-idle.md).
    for (const fn of [this.tick, this.worker, this.poker]) schedules.grantPokerSwitch(fn);
    // Every function reads manifests (the tick's reconcile reads the pinned spec of each
    // run it advances) and offloaded values (a spec or run conf over 350 KB lives in
    // blobs/); register-bundle writes large specs there and its verdict for `airless push`.
    for (const fn of this.all) {
      bundles.grantReadBundles(fn);
      bundles.grantReadBlobs(fn);
    }
    bundles.grantWriteBlobs(this.worker);
    bundles.grantWriteBlobs(this.registerBundle);
    bundles.grantWriteRegistrations(this.registerBundle);
    // Sensors render {{ var }} / {{ conn }} wherever they start (tick, worker) and poke (poker).
    const secretsEnv = grantSecrets(this, [this.tick, this.worker, this.poker], props);
    // Every function gets the prefixes (one documented environment); only these three may read.
    for (const fn of this.all) for (const [k, v] of Object.entries(secretsEnv)) fn.addEnvironment(k, v);
    for (const statement of props.taskPolicies ?? []) {
      this.worker.addToRolePolicy(statement);
      this.poker.addToRolePolicy(statement);
    }

    // A mapping with its own grant instead of SqsEventSource, whose grantConsumeMessages
    // adds GetQueueUrl and ChangeMessageVisibility that Lambda's poller never calls.
    grantEventSource(this.worker, readyQueue.queue.queueArn);
    this.workerEventSource = this.worker.addEventSourceMapping('ReadyQueue', {
      eventSourceArn: readyQueue.queue.queueArn,
      batchSize,
      reportBatchItemFailures: true,
      maxConcurrency,
    });
  }

  /** The five functions: tick, worker, poker, register-bundle, events. */
  get all(): NodejsFunction[] {
    return [this.tick, this.worker, this.poker, this.registerBundle, this.events];
  }
}
