import { Aws, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subs from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC_NAMESPACE, METRIC_NAMES, type MetricName } from '../adapters/aws/metric-names.js';

/** The custom metrics (lib/adapters/aws/metric-names.ts: the one list the functions publish). */
export { METRIC_NAMESPACE, METRIC_NAMES, type MetricName };

export interface MonitoringProps {
  /** Functions by display name (`tick`, `worker`...): graphed on the dashboard, alarmed as below. */
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  /**
   * Of {@link functions}, those whose errors alarm (by display name): $0.10 a month each.
   * @default every function
   */
  readonly errorAlarms?: readonly string[];
  /**
   * Of {@link functions}, those whose throttles alarm (by display name).
   * @default every function
   */
  readonly throttleAlarms?: readonly string[];
  readonly readyQueue: sqs.IQueue;
  /** Dead-letter queues by display name; each gets a depth alarm. */
  readonly deadLetterQueues: Readonly<Record<string, sqs.IQueue>>;
  readonly tables: readonly dynamodb.ITable[];
  /**
   * Topic for alarm and OK notifications. When absent, an encrypted SSL-only topic is created.
   * @default a new topic
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * Email address subscribed to the created topic (ignored with `alarmTopic`).
   * @default no subscription
   */
  readonly alarmEmail?: string;
  /**
   * Alarm when the oldest ready message is older than this. Above the 15-minute SQS
   * delay the timers use, so that a delayed message alone never trips it.
   * @default Duration.minutes(30)
   */
  readonly oldestMessageAgeThreshold?: Duration;
  /**
   * @default `${stackName}-${region}` (dashboards are global to the account)
   */
  readonly dashboardName?: string;
  /** Of the created topic's KMS key. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Encrypt the created topic with a customer managed KMS key made here ($1 a month), whose
   * policy lets CloudWatch use it. Without it the topic is not encrypted at rest: CloudWatch
   * cannot publish to a topic under the AWS managed `aws/sns` key, whose policy cannot be
   * changed. Alarm notifications carry alarm names and metric values, no task data.
   * @default false
   */
  readonly customerManagedKey?: boolean;
  /**
   * Create the CloudWatch dashboard ($3 a month at list price; within the free tier's three
   * dashboards of up to 50 metrics it costs nothing, and this one graphs at most 50).
   * @default false
   */
  readonly dashboard?: boolean;
}

/** Most metrics the dashboard may graph: the CloudWatch free tier's limit per dashboard. */
export const DASHBOARD_MAX_METRICS = 50;

/**
 * A custom Airless metric.
 * @example
 * airlessMetric('TaskFailed', 'Sum');
 */
export function airlessMetric(name: MetricName, statistic = 'Sum', label?: string): cw.Metric {
  return new cw.Metric({
    namespace: METRIC_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: 'airless' },
    statistic,
    period: Duration.minutes(1),
    label,
  });
}

/**
 * The CloudWatch dashboard and alarms, and the SNS topic they notify.
 *
 * @example
 * new Monitoring(this, 'Monitoring', {
 *   functions: { worker }, readyQueue: queue, deadLetterQueues: { ready: dlq }, tables: [table],
 *   alarmEmail: 'ops@example.com',
 * });
 */
export class Monitoring extends Construct {
  /** The dashboard, when {@link MonitoringProps.dashboard} asked for one. */
  public readonly dashboard?: cw.Dashboard;
  /** Where alarms notify. */
  public readonly alarmTopic: sns.ITopic;
  /** The key of the created topic (only with `customerManagedKey`). */
  public readonly topicKey?: kms.Key;
  /** Every alarm, by id. */
  public readonly alarms: Readonly<Record<string, cw.Alarm>>;
  /** Console link of the dashboard, when there is one. */
  public readonly dashboardUrl?: string;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const stack = Stack.of(this);
    if (props.alarmTopic) {
      this.alarmTopic = props.alarmTopic;
    } else {
      // CloudWatch cannot publish to a topic under the AWS managed SNS key: a customer key
      // whose policy lets CloudWatch use it is the only encrypted option, and it is opt-in.
      if (props.customerManagedKey) {
        this.topicKey = new kms.Key(this, 'AlarmTopicKey', {
          enableKeyRotation: true,
          description: 'Encrypts the Airless alarm topic',
          removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
        });
        this.topicKey.addToResourcePolicy(
          new iam.PolicyStatement({
            principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
            actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            resources: ['*'],
            conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
          }),
        );
      }
      const topic = new sns.Topic(this, 'AlarmTopic', { masterKey: this.topicKey, enforceSSL: true });
      if (!this.topicKey) {
        Validations.of(topic).acknowledge({
          id: 'AwsSolutions-SNS2',
          reason:
            'CloudWatch alarms cannot publish to a topic under the AWS managed aws/sns key (its policy cannot grant ' +
            'cloudwatch.amazonaws.com); a customer managed key costs $1 a month, so it is opt-in (customerManagedKey: true). ' +
            'The topic carries alarm names and metric values only, and requires TLS (enforceSSL).',
        });
      }
      // A topic policy replaces SNS's default one: without this statement the SSL-only
      // policy leaves CloudWatch no right to publish, and every alarm would fire silently.
      topic.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'AllowCloudWatchAlarmsOfThisAccount',
          principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
          actions: ['sns:Publish'],
          resources: [topic.topicArn],
          conditions: {
            StringEquals: { 'aws:SourceAccount': stack.account },
            ArnLike: { 'aws:SourceArn': `arn:${stack.partition}:cloudwatch:${stack.region}:${stack.account}:alarm:*` },
          },
        }),
      );
      if (props.alarmEmail) topic.addSubscription(new subs.EmailSubscription(props.alarmEmail));
      this.alarmTopic = topic;
    }

    const alarms: Record<string, cw.Alarm> = {};
    const action = new cwActions.SnsAction(this.alarmTopic);
    const alarm = (alarmId: string, metric: cw.IMetric, threshold: number, description: string) => {
      const a = new cw.Alarm(this, alarmId, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cw.TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      a.addAlarmAction(action);
      a.addOkAction(action);
      alarms[alarmId] = a;
    };

    for (const [name, dlq] of Object.entries(props.deadLetterQueues)) {
      alarm(
        `${pascal(name)}DlqDepth`,
        dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
        1,
        `Messages in the ${name} dead-letter queue: inspect, fix, redrive.`,
      );
    }
    const ageThreshold = props.oldestMessageAgeThreshold ?? Duration.minutes(30);
    alarm(
      'ReadyQueueOldestMessageAge',
      props.readyQueue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: 'Maximum' }),
      ageThreshold.toSeconds(),
      'The ready queue is not drained: workers throttled, failing or at maximum concurrency.',
    );
    const throttled = new Set(props.throttleAlarms ?? Object.keys(props.functions));
    const failing = new Set(props.errorAlarms ?? Object.keys(props.functions));
    for (const [name, fn] of Object.entries(props.functions)) {
      const period = Duration.minutes(5);
      if (failing.has(name)) alarm(`${pascal(name)}Errors`, fn.metricErrors({ period, statistic: 'Sum' }), 1, `The ${name} function failed.`);
      if (throttled.has(name)) alarm(
        `${pascal(name)}Throttles`,
        fn.metricThrottles({ period, statistic: 'Sum' }),
        1,
        `The ${name} function was throttled: raise the account concurrency or lower workerMaxConcurrency.`,
      );
    }
    this.alarms = alarms;

    if (props.dashboard) {
      this.dashboard = new cw.Dashboard(this, 'Dashboard', {
        dashboardName: props.dashboardName ?? `${stack.stackName}-${Aws.REGION}`,
        defaultInterval: Duration.hours(3),
      });
      this.dashboard.addWidgets(...this.engineWidgets(props));
      this.dashboard.addWidgets(...this.queueWidgets(props));
      this.dashboard.addWidgets(...this.lambdaWidgets(props, throttled));
      this.dashboard.addWidgets(...this.tableWidgets(props));
      this.dashboard.addWidgets(
        new cw.AlarmStatusWidget({ title: 'Alarms', alarms: Object.values(alarms), width: 24, height: 4 }),
      );
      this.dashboardUrl =
        `https://${Aws.REGION}.console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}` +
        `#dashboards:name=${this.dashboard.dashboardName}`;
    }
  }

  private engineWidgets(_props: MonitoringProps): cw.IWidget[] {
    const m = airlessMetric;
    return [
      graph('Tasks', [m('TaskSucceeded'), m('TaskFailed'), m('TaskRetried')], [m('TasksDeferred'), m('LostRaces')]),
      graph('Runs and triggers', [m('RunsCreated'), m('RunsSucceeded'), m('RunsFailed')], [m('TriggersFired')]),
      graph('Scheduling lag, ready to started (ms)', [
        m('SchedulingLagMs', 'p90', 'p90'),
        m('SchedulingLagMs', 'Maximum', 'max'),
      ]),
      graph(
        'Sensors: waiting, pokes, sensors per poke',
        // Each shard's poker reports its waiting sensors once a minute: the 1-minute Sum is the total.
        [m('SensorsWaiting', 'Sum', 'sensors waiting'), m('Pokes')],
        [new cw.MathExpression({
          expression: 'IF(pokes > 0, waiting / pokes, 0)',
          usingMetrics: { waiting: m('SensorsWaiting'), pokes: m('Pokes') },
          label: 'sensors per poke (dedup)',
          period: Duration.minutes(1),
        })],
      ),
      graph('Safety net and losses', [m('Recovered'), m('MessagesDropped'), m('CallbacksFailed')]),
    ];
  }

  private queueWidgets(props: MonitoringProps): cw.IWidget[] {
    const period = Duration.minutes(1);
    const q = props.readyQueue;
    return [
      graph(
        'Ready queue depth',
        [
          q.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label: 'visible' }),
          q.metricApproximateNumberOfMessagesNotVisible({ period, statistic: 'Maximum', label: 'in flight' }),
          q.metricApproximateNumberOfMessagesDelayed({ period, statistic: 'Maximum', label: 'delayed' }),
        ],
        [],
        12,
      ),
      graph('Oldest ready message (s)', [q.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' })]),
      graph(
        'Dead-letter queues',
        Object.entries(props.deadLetterQueues).map(([name, dlq]) =>
          dlq.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label: name }),
        ),
      ),
    ];
  }

  private lambdaWidgets(props: MonitoringProps, throttled: ReadonlySet<string>): cw.IWidget[] {
    const period = Duration.minutes(1);
    const fns = Object.entries(props.functions);
    const watched = fns.filter(([n]) => throttled.has(n));
    return [
      graph('Lambda errors', fns.map(([n, f]) => f.metricErrors({ period, statistic: 'Sum', label: n }))),
      graph('Lambda throttles', watched.map(([n, f]) => f.metricThrottles({ period, statistic: 'Sum', label: n }))),
      graph(
        'Lambda duration p90 (ms)',
        watched.map(([n, f]) => f.metricDuration({ period, statistic: 'p90', label: n })),
        [],
        12,
      ),
    ];
  }

  private tableWidgets(props: MonitoringProps): cw.IWidget[] {
    const period = Duration.minutes(1);
    const sum = (t: dynamodb.ITable, name: string, label: string) =>
      t.metric(name, { period, statistic: 'Sum', label: `${label} ${t.node.id}` });
    // On demand, writes are what throttle (a hot partition) and what a task costs (reads are
    // about a twentieth of the bill, docs/performance.md): reads are left out to keep the
    // dashboard within the free tier's 50 metrics with six tables.
    return [
      graph('DynamoDB write throttles', props.tables.map((t) => sum(t, 'WriteThrottleEvents', 'write')), [], 12),
      graph('DynamoDB consumed write capacity', props.tables.map((t) => sum(t, 'ConsumedWriteCapacityUnits', 'write')), [], 12),
    ];
  }
}

function graph(title: string, left: cw.IMetric[], right: cw.IMetric[] = [], width = 6): cw.GraphWidget {
  return new cw.GraphWidget({ title, left, right, width, height: 6 });
}

function pascal(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
