/**
 * What the `data` scenario stands in for in a user's account, declared beside the Airless
 * stack in the scenarios' app (app.ts): a bucket with EventBridge notifications on, a queue
 * other systems send to, and the asset sources that route them to Airless (the way a user
 * adds `AssetSources` to a stack of their own). Nothing here is part of the product.
 */
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Airless } from '../../infra/airless.js';
import { AssetSources } from '../../infra/asset-sources.js';

import { DATA_SCAFFOLD } from './data-names.js';

export { DATA_SCAFFOLD };

/**
 * @example
 * new DataScaffold(stack, 'RehearsalData', stack.airless);
 */
export class DataScaffold extends Construct {
  public readonly sources: AssetSources;

  constructor(scope: Construct, id: string, airless: Airless) {
    super(scope, id);
    const lake = new s3.Bucket(this, 'Lake', {
      bucketName: DATA_SCAFFOLD.bucket, eventBridgeEnabled: true, enforceSSL: true, encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL, removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(lake).acknowledge({ id: 'AwsSolutions-S1', reason: 'A rehearsal stand-in for a user\'s data bucket; never deployed.' });
    const orders = new sqs.Queue(this, 'Orders', { queueName: DATA_SCAFFOLD.queue, enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED, removalPolicy: RemovalPolicy.DESTROY });
    Validations.of(orders).acknowledge({ id: 'AwsSolutions-SQS3', reason: 'A rehearsal stand-in for a user\'s queue; never deployed.' });
    this.sources = new AssetSources(this, 'Sources', {
      sources: {
        buckets: [{ bucket: lake, prefix: DATA_SCAFFOLD.prefix }],
        eventPatterns: [{ pattern: { source: [DATA_SCAFFOLD.eventSource] } }],
        queues: [orders],
      },
      functions: airless.functions, state: airless.state, readyQueue: airless.readyQueue, airlessBus: airless.events.bus,
    });
  }
}
