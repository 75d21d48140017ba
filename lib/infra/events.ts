/**
 * The events path's resources: the Airless event bus (where users' own systems put events;
 * output `EventBusName`), one rule on the account's default bus for the end events of the
 * AWS jobs the operators start, one rule on the Airless bus for everything put there, both
 * targeting the events function, with retries and a dead-letter queue. The default-bus
 * rule routes only terminal states, and only of the resources `jobs` names when it names
 * them, so a busy account's other ECS tasks or Glue jobs do not invoke the function.
 */
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { JobsProps } from './jobs.js';

export interface EventsProps {
  /** What DAGs may start: narrows the default-bus rule to these resources' events. @default every job of the account */
  readonly jobs?: JobsProps;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

/** The terminal states of each job source, and the detail field naming the resource `jobs` lists. */
function jobEndPatterns(stack: Stack, jobs: JobsProps = {}): Record<string, unknown>[] {
  const arn = (service: string, resource: string, name: string, sep = '/') =>
    name.startsWith('arn:') ? name : `arn:${stack.partition}:${service}:${stack.region}:${stack.account}:${resource}${sep}${name}`;
  const only = (field: string, values: string[] | undefined) => (values?.length ? { [field]: values } : {});
  return [
    { source: ['aws.ecs'], 'detail-type': ['ECS Task State Change'], detail: { lastStatus: ['STOPPED'], ...only('clusterArn', jobs.ecs?.clusters.map((c) => arn('ecs', 'cluster', c))) } },
    { source: ['aws.batch'], 'detail-type': ['Batch Job State Change'], detail: { status: ['SUCCEEDED', 'FAILED'], ...only('jobQueue', jobs.batch?.jobQueues.map((q) => arn('batch', 'job-queue', q))) } },
    { source: ['aws.glue'], 'detail-type': ['Glue Job State Change'], detail: { state: ['SUCCEEDED', 'FAILED', 'TIMEOUT', 'STOPPED', 'ERROR'], ...only('jobName', jobs.glue?.jobs) } },
    { source: ['aws.states'], 'detail-type': ['Step Functions Execution Status Change'], detail: { status: ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'], ...only('stateMachineArn', jobs.stepFunctions?.stateMachines.map((m) => arn('states', 'stateMachine', m, ':'))) } },
    { source: ['aws.athena'], 'detail-type': ['Athena Query State Change'], detail: { currentState: ['SUCCEEDED', 'FAILED', 'CANCELLED'], ...only('workgroupName', jobs.athena?.workGroups) } },
    { source: ['aws.emr-serverless'], 'detail-type': ['EMR Serverless Job Run State Change'], detail: { state: ['SUCCESS', 'FAILED', 'CANCELLED'], ...only('applicationId', jobs.emrServerless?.applications.map((a) => a.split('/').pop()!)) } },
  ];
}

/**
 * @example
 * const ev = new Events(this, 'Events', { jobs: { glue: { jobs: ['orders_etl'] } } });
 * // ... the functions, the events function among them, with ev.deadLetterQueue ...
 * ev.routeTo(fns.events);
 */
export class Events extends Construct {
  /** Where your systems put their events (`aws events put-events --entries '[{"EventBusName": …}]'`). */
  public readonly bus: events.EventBus;
  /** Events the rules could not deliver to the function, and events the function failed on after its retries. */
  public readonly deadLetterQueue: sqs.Queue;
  /** The default bus's rule for the jobs' end events (set by {@link routeTo}). */
  public jobEnds?: events.CfnRule;
  /** The Airless bus's rule (set by {@link routeTo}). */
  public ownEvents?: events.Rule;

  constructor(scope: Construct, id: string, private readonly props: EventsProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.bus = new events.EventBus(this, 'Bus', { description: 'Airless: events tasks wait for (ctx.defer({ event }), waitForEvent)' });
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED, retentionPeriod: Duration.days(14), removalPolicy,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself a dead-letter queue: of the event rules\' targets and of the events function\'s asynchronous invocations. '
        + 'cdk-nag only recognises queues named in another queue\'s RedrivePolicy.',
    });
  }

  /**
   * Routes both rules to the events function, and sends the Lambda results of the functions
   * `jobs.lambda` names to the Airless bus.
   */
  routeTo(fn: lambda.IFunction): void {
    const stack = Stack.of(this);
    const target = new targets.LambdaFunction(fn, { deadLetterQueue: this.deadLetterQueue, retryAttempts: 8, maxEventAge: Duration.hours(24) });
    // One rule for every job source: an L1 rule, since CDK's typed patterns have no top-level $or.
    const rule = new events.Rule(this, 'JobEnds', {
      description: 'Airless: the end events of the AWS jobs operators start',
      eventPattern: { source: ['aws.ecs'] },
      targets: [target],
    });
    this.jobEnds = rule.node.defaultChild as events.CfnRule;
    this.jobEnds.eventPattern = { $or: jobEndPatterns(stack, this.props.jobs) };
    this.ownEvents = new events.Rule(this, 'OwnEvents', {
      eventBus: this.bus,
      description: 'Airless: every event put on the Airless bus',
      eventPattern: { account: [stack.account] },
      targets: [new targets.LambdaFunction(fn, { deadLetterQueue: this.deadLetterQueue, retryAttempts: 8, maxEventAge: Duration.hours(24) })],
    });
    const lambdaJobs = this.props.jobs?.lambda;
    if (!lambdaJobs || lambdaJobs.configureDestinations === false) return;
    const destination = { destination: this.bus.eventBusArn };
    lambdaJobs.functions.forEach((f, i) => {
      const name = typeof f === 'string' ? f : f.functionName;
      new lambda.CfnEventInvokeConfig(this, `Results${i}`, {
        functionName: name, qualifier: '$LATEST',
        destinationConfig: { onSuccess: destination, onFailure: destination },
      });
      // Lambda sends a destination record with the invoked function's own role.
      if (typeof f !== 'string') this.bus.grantPutEventsTo(f);
    });
  }
}
