import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import { Construct } from 'constructs';
import { acknowledgeWildcardResource } from './nag.js';

export interface BundleBucketProps {
  /**
   * With DESTROY, both buckets are emptied on stack deletion (autoDeleteObjects).
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * How long an overwritten or deleted object version is kept. Bundles are immutable
   * (new version, new key), so this mostly bounds XCom blobs of expired runs.
   * @default Duration.days(30)
   */
  readonly noncurrentVersionExpiration?: Duration;
  /**
   * How long finished runs are kept (the functions' `runRetention`). Run-scoped offloaded
   * values (`blobs/xcom/`, `blobs/conf/`, `blobs/signal/`) expire {@link BLOB_EXPIRY_MARGIN}
   * after this: the items that point at them expire first (DynamoDB TTL), and a run that
   * lasts up to that margin still finds its conf when it ends.
   * @default Duration.days(90)
   */
  readonly runRetention?: Duration;
  /**
   * How long server access logs are kept.
   * @default Duration.days(90)
   */
  readonly accessLogRetention?: Duration;
}

/** Key prefix of bundle versions: `bundles/<version>/{bundle.mjs,manifest.json}`. */
export const BUNDLES_PREFIX = 'bundles/';
/** Key prefix of offloaded values (large XCom). */
export const BLOBS_PREFIX = 'blobs/';
/**
 * Run-scoped kinds of offloaded value (`blobs/<kind>/...`, lib/adapters/aws/dynamo-store.ts):
 * they expire. `blobs/spec/<dagId>` (a large DAG spec) does not: it lives as long as its DAG
 * is registered and is rewritten in place, one object per DAG id.
 */
export const EXPIRING_BLOB_KINDS = ['xcom', 'conf', 'signal'] as const;
/** Offloaded run values outlive the run retention by this much. */
export const BLOB_EXPIRY_MARGIN = Duration.days(30);
/** register-bundle's verdict beside each manifest (`airless push` waits for it). */
export const REGISTRATION_FILE = 'registration.json';
/** The object whose creation registers a bundle version. */
export const MANIFEST_SUFFIX = 'manifest.json';

const safeBucket = {
  blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
  enforceSSL: true,
  encryption: s3.BucketEncryption.S3_MANAGED,
  objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
} as const;

/**
 * DAG bundles and offloaded values in S3: private, SSL only, S3-managed encryption,
 * versioned, with server access logs in a separate bucket.
 *
 * @example
 * const bundles = new BundleBucket(this, 'Bundles');
 * bundles.onManifest(registerBundle);
 * bundles.grantReadBundles(worker);
 */
export class BundleBucket extends Construct {
  public readonly bucket: s3.Bucket;
  /** Receives the server access logs of {@link bucket}. */
  public readonly accessLogBucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: BundleBucketProps = {}) {
    super(scope, id);
    // Log delivery through a bucket policy, not the legacy LogDeliveryWrite ACL, so that
    // ACLs stay disabled (BucketOwnerEnforced) on both buckets.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const autoDeleteObjects = removalPolicy === RemovalPolicy.DESTROY;

    this.accessLogBucket = new s3.Bucket(this, 'AccessLogs', {
      ...safeBucket,
      removalPolicy,
      autoDeleteObjects,
      lifecycleRules: [{ expiration: props.accessLogRetention ?? Duration.days(90) }],
    });
    Validations.of(this.accessLogBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the server access log bucket; logging its own access would recurse.',
    });

    const runRetentionDays = Math.ceil((props.runRetention ?? Duration.days(90)).toDays({ integral: false }));
    const blobExpiration = Duration.days(runRetentionDays + BLOB_EXPIRY_MARGIN.toDays());
    this.bucket = new s3.Bucket(this, 'Bucket', {
      ...safeBucket,
      versioned: true,
      removalPolicy,
      autoDeleteObjects,
      serverAccessLogsBucket: this.accessLogBucket,
      serverAccessLogsPrefix: 'bundles-bucket/',
      lifecycleRules: [
        {
          noncurrentVersionExpiration: props.noncurrentVersionExpiration ?? Duration.days(30),
          abortIncompleteMultipartUploadAfter: Duration.days(7),
          // Expiring a current version leaves a delete marker; drop it once nothing is under it.
          expiredObjectDeleteMarker: true,
        },
        // XCom, run conf and signal payloads over ~350 KB: without this they would pile up
        // forever after their runs expire. Expiry counts from the object's creation.
        ...EXPIRING_BLOB_KINDS.map((kind) => ({
          id: `expire-${kind}-blobs`,
          prefix: `${BLOBS_PREFIX}${kind}/`,
          expiration: blobExpiration,
        })),
      ],
    });
  }

  /**
   * Invokes `fn` when a bundle manifest is created (`bundles/*\/manifest.json`).
   * @example
   * bundles.onManifest(registerBundle);
   */
  onManifest(fn: IFunction): void {
    this.bucket.addEventNotification(s3.EventType.OBJECT_CREATED, new s3n.LambdaDestination(fn), {
      prefix: BUNDLES_PREFIX,
      suffix: MANIFEST_SUFFIX,
    });
    // CDK configures bucket notifications through one singleton custom-resource function per stack.
    const handler = Stack.of(this).node.tryFindChild(NOTIFICATIONS_HANDLER_ID);
    if (handler) {
      Validations.of(handler).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          'CDK-owned BucketNotificationsHandler custom resource: its role is created by aws-cdk-lib with the ' +
          'basic execution policy and runs only during deployment to put the notification configuration.',
      });
    }
  }

  /**
   * Read bundle versions (workers, pokers, register-bundle).
   * @example
   * bundles.grantReadBundles(poker);
   */
  grantReadBundles(grantee: iam.IGrantable): void {
    this.grantReadPrefix(grantee, BUNDLES_PREFIX, 'Bundle versions are keyed bundles/<version>/: any version may be pinned by a run.');
  }

  /**
   * Read offloaded values under `blobs/`.
   * @example
   * bundles.grantReadBlobs(worker);
   */
  grantReadBlobs(grantee: iam.IGrantable): void {
    this.grantReadPrefix(grantee, BLOBS_PREFIX, 'Offloaded values are keyed blobs/<dag>/<run>/<task>/...: generated per task try.');
  }

  /**
   * Write offloaded values under `blobs/` only.
   * @example
   * bundles.grantWriteBlobs(worker);
   */
  grantWriteBlobs(grantee: iam.IGrantable): void {
    const objects = this.bucket.arnForObjects(`${BLOBS_PREFIX}*`);
    grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [objects] }));
    acknowledgeWildcardResource(grantee, objects, 'Offloaded values are keyed blobs/<dag>/<run>/<task>/...: generated per task try.');
  }

  /**
   * Write `bundles/<version>/registration.json` only: register-bundle's verdict for `airless push`.
   * @example
   * bundles.grantWriteRegistrations(registerBundle);
   */
  grantWriteRegistrations(grantee: iam.IGrantable): void {
    const objects = this.bucket.arnForObjects(`${BUNDLES_PREFIX}*/${REGISTRATION_FILE}`);
    grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [objects] }));
    acknowledgeWildcardResource(grantee, objects, 'Registration verdicts are keyed bundles/<version>/registration.json: one per pushed version.');
  }

  private grantReadPrefix(grantee: iam.IGrantable, prefix: string, reason: string): void {
    const objects = this.bucket.arnForObjects(`${prefix}*`);
    grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [objects] }));
    // ListBucket turns a missing key into a 404 ("bundle not found") instead of a 403.
    // A prefix condition would not help: GetObject requests carry no s3:prefix key.
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }),
    );
    acknowledgeWildcardResource(grantee, objects, reason);
  }
}

/** Construct id of the stack-wide function aws-cdk-lib creates for bucket notifications. */
const NOTIFICATIONS_HANDLER_ID = 'BucketNotificationsHandler050a0587b7544547bf325f094a3db834';
