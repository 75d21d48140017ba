import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { InvalidInputError } from '../engine/index.js';
import { BundleBucket } from './bundle-bucket.js';
import { Functions } from './functions.js';
import { Monitoring } from './monitoring.js';
import { ReadyQueue } from './ready-queue.js';
import { Schedules } from './schedules.js';
import { StateTables } from './state-tables.js';
import { AssetSources, type AssetSourcesProps } from './asset-sources.js';
import { Events } from './events.js';
import { grantJobs, type JobsProps } from './jobs.js';

export interface AirlessProps {
  /**
   * Poker shards: one poker invocation per shard per minute.
   * @default 8
   */
  readonly shards?: number;
  /** @default 1024 */
  readonly workerMemoryMb?: number;
  /**
   * Worker function timeout, at most 15 minutes. The ready queue's visibility timeout is six times this.
   * @default Duration.minutes(5)
   */
  readonly workerTimeout?: Duration;
  /**
   * Maximum concurrent worker invocations from the SQS event source (2..1000).
   * @default 50
   */
  readonly workerMaxConcurrency?: number;
  /**
   * Messages per worker invocation (1..10).
   * @default 10
   */
  readonly workerBatchSize?: number;
  /**
   * Finished runs expire (DynamoDB TTL) this long after they end.
   * @default Duration.days(90)
   */
  readonly runRetention?: Duration;
  /**
   * Email subscribed to the alarm topic. Ignored when `alarmTopic` is given.
   * @default no subscription
   */
  readonly alarmEmail?: string;
  /**
   * An existing topic for alarms, instead of the one created here.
   * @default a new KMS-encrypted, SSL-only topic
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * Extra IAM statements for task and sensor code (what your DAGs touch). Worker and poker only.
   * @default none
   */
  readonly taskPolicies?: iam.PolicyStatement[];
  /** SSM Parameter Store prefix of Airflow variables (read-only grant on exactly it). @default '/airless/variables/' */
  readonly variablesPrefix?: string;
  /** Secrets Manager prefix of Airflow connections (read-only grant on exactly it). @default 'airless/connections/' */
  readonly connectionsPrefix?: string;
  /** SNS topics `notify.sns` callbacks may publish to (sns:Publish on these only). @default none */
  readonly notificationTopicArns?: string[];
  /**
   * Of the tables, queues, buckets, log groups and key. RETAIN also turns on table
   * deletion protection; DESTROY empties the buckets on deletion (for test stacks).
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /**
   * S3 buckets, EventBridge patterns and SQS queues whose events feed assets (the DAGs'
   * `watch.s3/eventBridge/sqs` watchers say which asset): rules and event source mappings
   * to an asset-events function, created only when given. docs/assets.md.
   * @default none
   */
  readonly assetSources?: AssetSourcesProps;
  /**
   * What the operators may start (clusters and task definitions, job queues, Glue jobs,
   * state machines, Athena workgroups and buckets, EMR Serverless applications, functions)
   * and the roles their jobs may be given: the worker gets exactly those submit and stop
   * grants, the poker the describes (lib/infra/jobs.ts, docs/jobs.md).
   * @default none: an operator's submit is refused by IAM, and its try says so
   */
  readonly jobs?: JobsProps;
}

/**
 * Airless on AWS: state tables, ready queue, bundle bucket, the four functions, the
 * schedules and the monitoring, each its own construct.
 *
 * @example
 * const app = new App();
 * const stack = new Stack(app, 'Airless');
 * new Airless(stack, 'Airless', { shards: 16, alarmEmail: 'ops@example.com' });
 */
export class Airless extends Construct {
  public readonly state: StateTables;
  public readonly readyQueue: ReadyQueue;
  public readonly bundles: BundleBucket;
  public readonly schedules: Schedules;
  public readonly functions: Functions;
  public readonly monitoring: Monitoring;
  /** External sources of asset events, when `assetSources` is given. */
  public readonly assetSources?: AssetSources;
  /** The Airless event bus and the rules that route events to the events function. */
  public readonly events: Events;

  constructor(scope: Construct, id: string, props: AirlessProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    if (removalPolicy !== RemovalPolicy.RETAIN && removalPolicy !== RemovalPolicy.DESTROY) {
      throw new InvalidInputError(`removalPolicy must be RETAIN or DESTROY, got ${removalPolicy}`);
    }
    const workerTimeout = props.workerTimeout ?? Duration.minutes(5);
    if (workerTimeout.toSeconds() > 900) {
      throw new InvalidInputError(`workerTimeout must be at most 15 minutes, got ${workerTimeout.toHumanString()}`);
    }
    const shards = props.shards ?? 8;

    this.state = new StateTables(this, 'State', { removalPolicy });
    this.readyQueue = new ReadyQueue(this, 'ReadyQueue', { workerTimeout, removalPolicy });
    this.bundles = new BundleBucket(this, 'Bundles', { removalPolicy, runRetention: props.runRetention });
    this.schedules = new Schedules(this, 'Schedules', { readyQueue: this.readyQueue });
    this.events = new Events(this, 'Events', { jobs: props.jobs, removalPolicy });
    this.functions = new Functions(this, 'Functions', {
      state: this.state,
      readyQueue: this.readyQueue,
      bundles: this.bundles,
      schedules: this.schedules,
      shards,
      workerMemoryMb: props.workerMemoryMb,
      workerTimeout,
      workerMaxConcurrency: props.workerMaxConcurrency,
      workerBatchSize: props.workerBatchSize,
      runRetention: props.runRetention,
      variablesPrefix: props.variablesPrefix,
      connectionsPrefix: props.connectionsPrefix,
      notificationTopicArns: props.notificationTopicArns,
      taskPolicies: props.taskPolicies,
      logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy,
      eventsDeadLetterQueue: this.events.deadLetterQueue,
    });
    this.events.routeTo(this.functions.events);
    grantJobs(this, props.jobs, { worker: this.functions.worker, poker: this.functions.poker });
    this.bundles.onManifest(this.functions.registerBundle);
    this.schedules.addSystemSchedules({ tick: this.functions.tick, poker: this.functions.poker, shards });
    if (props.assetSources) {
      this.assetSources = new AssetSources(this, 'AssetSources', {
        sources: props.assetSources, functions: this.functions, state: this.state, readyQueue: this.readyQueue, airlessBus: this.events.bus,
      });
    }
    this.monitoring = new Monitoring(this, 'Monitoring', {
      functions: {
        tick: this.functions.tick,
        worker: this.functions.worker,
        poker: this.functions.poker,
        registerBundle: this.functions.registerBundle,
        events: this.functions.events,
      },
      readyQueue: this.readyQueue.queue,
      deadLetterQueues: {
        ready: this.readyQueue.deadLetterQueue,
        scheduler: this.readyQueue.schedulerDeadLetterQueue,
        events: this.events.deadLetterQueue,
      },
      tables: this.state.all,
      alarmTopic: props.alarmTopic,
      alarmEmail: props.alarmEmail,
      removalPolicy,
    });
  }
}
