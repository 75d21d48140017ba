/**
 * External sources of asset events (docs/assets.md): what AWS must know at deploy time to
 * push events to Airless. S3 buckets (EventBridge notifications on) and EventBridge patterns
 * become rules whose target is the asset-events function; SQS queues become event source
 * mappings of it. Which asset an event feeds, and its dedup key, come from the watchers of
 * the pushed bundle's manifest (`watch.s3`, `watch.eventBridge`, `watch.sqs`), so a new
 * watcher on a declared source needs a push, not a deploy.
 *
 * Nothing here has a standing charge: rules, permissions, mappings and an idle function
 * cost nothing; an SQS mapping's idle polling is paid by its queue's account (docs/assets.md).
 * Failed deliveries go to the existing EventBridge dead-letter queue (alarmed already).
 */
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { InvalidInputError } from '../engine/index.js';
import type { Functions } from './functions.js';
import { grantEventSource, grantSend, grantTables, type DynamoAction } from './grants.js';
import type { ReadyQueue } from './ready-queue.js';
import type { StateTables } from './state-tables.js';
import type { TableId } from '../adapters/aws/stack-contract.js';

/** A bucket whose object-created events may feed assets, optionally only under a key prefix. */
export interface AssetBucketSource {
  readonly bucket: s3.IBucket | string;
  /** Only keys starting with this reach Airless (a watcher may narrow further). @default every key */
  readonly prefix?: string;
}

/** An EventBridge pattern whose events may feed assets. */
export interface AssetEventPatternSource {
  readonly pattern: events.EventPattern;
  /** A bus, or `'airless'` for the Airless bus (where your systems put events). @default the account's default bus (AWS services' events) */
  readonly bus?: events.IEventBus | 'airless';
}

export interface AssetSourcesProps {
  /** Buckets with EventBridge notifications on (`eventBridgeEnabled: true`): their "Object Created" events. @default none */
  readonly buckets?: ReadonlyArray<s3.IBucket | string | AssetBucketSource>;
  /** EventBridge patterns, on the default bus or a bus you pass. @default none */
  readonly eventPatterns?: readonly AssetEventPatternSource[];
  /** SQS queues whose messages feed assets (Airflow's message-queue watcher). @default none */
  readonly queues?: readonly sqs.IQueue[];
  /** Messages per invocation from each queue (1..10). @default 10 */
  readonly batchSize?: number;
}

/** What the asset-events function sends to the state tables: the watchers, events and queues, and the DAG it checks. */
export const ASSET_EVENTS_ACCESS: Partial<Record<TableId, readonly DynamoAction[]>> = {
  // watcher lookup (Query), the registry record and queue (GetItem), the event (PutItem), queueing (a transaction of two UpdateItems).
  assets: ['GetItem', 'PutItem', 'UpdateItem', 'Query'],
  // a consumer's record and its spec: paused or not, and its condition.
  dags: ['GetItem'],
  kv: ['GetItem'],
};

export interface AssetSourcesConstructProps {
  readonly sources: AssetSourcesProps;
  readonly functions: Functions;
  readonly state: StateTables;
  readonly readyQueue: ReadyQueue;
  /** The Airless bus, which `bus: 'airless'` names. */
  readonly airlessBus?: events.IEventBus;
}

const bucketName = (b: s3.IBucket | string) => (typeof b === 'string' ? b : b.bucketName);

/**
 * @example
 * new AssetSources(this, 'AssetSources', { sources: { buckets: [{ bucket: 'lake', prefix: 'raw/' }], queues: [ordersQueue] }, functions, state, readyQueue });
 */
export class AssetSources extends Construct {
  /** Receives the sources' events and records asset events. */
  public readonly function: NodejsFunction;
  public readonly rules: events.Rule[] = [];

  constructor(scope: Construct, id: string, props: AssetSourcesConstructProps) {
    super(scope, id);
    const { sources, functions, state, readyQueue } = props;
    const batchSize = sources.batchSize ?? 10;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10) throw new InvalidInputError(`assetSources.batchSize must be an integer in 1..10, got ${batchSize}`);
    const fn = functions.makeFunction('AssetEvents', 'asset-events', {
      memorySize: 256,
      timeout: Duration.minutes(1),
      description: 'Airless asset events: S3, EventBridge and SQS events feeding assets',
    });
    this.function = fn;
    grantTables(state, fn, ASSET_EVENTS_ACCESS);
    // The runs an event makes due are created by the worker, which holds the grants for that.
    grantSend(fn, readyQueue.queue.queueArn);
    // EventBridge invokes asynchronously: two retries, then the record to the dead-letter queue.
    const dlq = readyQueue.schedulerDeadLetterQueue;
    // A destination of our own: SqsDestination grants GetQueueUrl and GetQueueAttributes too, which Lambda never calls.
    const onFailure: lambda.IDestination = { bind: () => ({ destination: dlq.queueArn }) };
    grantSend(fn, dlq.queueArn);
    fn.configureAsyncInvoke({ retryAttempts: 2, maxEventAge: Duration.hours(6), onFailure });
    const target = () => new targets.LambdaFunction(fn, { deadLetterQueue: dlq, retryAttempts: 185, maxEventAge: Duration.hours(24) });

    (sources.buckets ?? []).forEach((b, i) => {
      const src: AssetBucketSource = typeof b === 'object' && 'bucket' in b ? b : { bucket: b as s3.IBucket | string };
      const detail: Record<string, unknown> = { bucket: { name: [bucketName(src.bucket)] } };
      if (src.prefix) detail.object = { key: [{ prefix: src.prefix }] };
      this.rules.push(new events.Rule(this, `Bucket${i}`, {
        description: `Airless assets: object-created events of ${typeof src.bucket === 'string' ? src.bucket : 'a bucket'}${src.prefix ? ` under ${src.prefix}` : ''}`,
        eventPattern: { source: ['aws.s3'], detailType: ['Object Created'], detail },
        targets: [target()],
      }));
    });
    (sources.eventPatterns ?? []).forEach((p, i) => {
      if (p.bus === 'airless' && !props.airlessBus) throw new InvalidInputError(`assetSources.eventPatterns[${i}]: bus 'airless' needs the Airless construct's bus`);
      const eventBus = p.bus === 'airless' ? props.airlessBus : p.bus;
      this.rules.push(new events.Rule(this, `Pattern${i}`, { description: 'Airless assets: an EventBridge pattern', eventPattern: p.pattern, eventBus, targets: [target()] }));
    });
    (sources.queues ?? []).forEach((q, i) => {
      grantEventSource(fn, q.queueArn);
      q.encryptionMasterKey?.grantDecrypt(fn);
      fn.addEventSourceMapping(`Queue${i}`, { eventSourceArn: q.queueArn, batchSize, reportBatchItemFailures: true });
    });
  }
}
