import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { InvalidInputError } from '../engine/index.js';

export interface ReadyQueueProps {
  /**
   * Timeout of the worker function consuming the queue. The visibility timeout is six
   * times this, as AWS advises for Lambda event sources, so a message is not
   * redelivered while a batch (with its retries) may still be running.
   * @default Duration.minutes(5)
   */
  readonly workerTimeout?: Duration;
  /**
   * Deliveries before a message moves to the dead-letter queue.
   * @default 5
   */
  readonly maxReceiveCount?: number;
  /**
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

const sslAndSse = { enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED } as const;

/**
 * The ready queue (SQS standard) with its dead-letter queue, and a second dead-letter
 * queue for EventBridge Scheduler deliveries that fail. SQS-managed SSE everywhere, so
 * that Scheduler can deliver without a KMS key policy.
 *
 * @example
 * const ready = new ReadyQueue(this, 'Ready', { workerTimeout: Duration.minutes(5) });
 * ready.queue.grantSendMessages(tick);
 */
export class ReadyQueue extends Construct {
  /** Task, fire and schedule messages for the worker. */
  public readonly queue: sqs.Queue;
  /** Messages the worker failed `maxReceiveCount` times (poison messages). */
  public readonly deadLetterQueue: sqs.Queue;
  /** Scheduler targets that could not be delivered (the target's DeadLetterConfig). */
  public readonly schedulerDeadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: ReadyQueueProps = {}) {
    super(scope, id);
    const workerTimeout = props.workerTimeout ?? Duration.minutes(5);
    const maxReceiveCount = props.maxReceiveCount ?? 5;
    if (!Number.isInteger(maxReceiveCount) || maxReceiveCount < 1 || maxReceiveCount > 1000) {
      throw new InvalidInputError(`maxReceiveCount must be an integer in 1..1000, got ${maxReceiveCount}`);
    }
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const dlqRetention = Duration.days(14);

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      ...sslAndSse,
      retentionPeriod: dlqRetention,
      removalPolicy,
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      ...sslAndSse,
      visibilityTimeout: Duration.seconds(workerTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount },
      removalPolicy,
    });
    // Only principals of this account may send: its functions, the Scheduler target role
    // and the operators' CLI. A message from elsewhere never reaches the worker.
    this.queue.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'DenySendersOutsideThisAccount',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['sqs:SendMessage'],
        resources: [this.queue.queueArn],
        conditions: { StringNotEquals: { 'aws:PrincipalAccount': Stack.of(this).account } },
      }),
    );
    this.schedulerDeadLetterQueue = new sqs.Queue(this, 'SchedulerDeadLetterQueue', {
      ...sslAndSse,
      retentionPeriod: dlqRetention,
      removalPolicy,
    });
    Validations.of(this.schedulerDeadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself a dead-letter queue: the DeadLetterConfig of the EventBridge Scheduler targets. ' +
        'cdk-nag only recognises queues named in another queue\'s RedrivePolicy.',
    });
  }
}
