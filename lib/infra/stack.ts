import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { Airless, type AirlessProps } from './airless.js';
import { tableOutputName } from '../adapters/aws/stack-contract.js';

export interface AirlessStackProps extends StackProps {
  /** Props of the {@link Airless} construct. @default all defaults */
  readonly airless?: AirlessProps;
}

/**
 * The default deployment: one {@link Airless} construct and the outputs the CLI reads.
 *
 * @example
 * const app = new App();
 * new AirlessStack(app, 'Airless', { airless: { alarmEmail: 'ops@example.com' } });
 */
export class AirlessStack extends Stack {
  public readonly airless: Airless;

  constructor(scope: Construct, id: string, props: AirlessStackProps = {}) {
    super(scope, id, { description: 'Airless: Airflow semantics on Lambda, DynamoDB, SQS and EventBridge Scheduler', ...props });
    this.airless = new Airless(this, 'Airless', props.airless);

    const a = this.airless;
    const output = (id: string, value: string, description: string) =>
      new CfnOutput(this, id, { value, description });
    output('BucketName', a.bundles.bucket.bucketName, 'Bundle bucket (airless push)');
    // The tables are named by CloudFormation: the CLI reads each name from its output.
    for (const [tableId, table] of Object.entries(a.state.tables)) {
      output(tableOutputName(tableId), table.tableName, `DynamoDB table ${tableId}`);
    }
    output('QueueUrl', a.readyQueue.queue.queueUrl, 'Ready queue');
    output('DeadLetterQueueUrl', a.readyQueue.deadLetterQueue.queueUrl, 'Poison messages of the ready queue');
    output('SchedulerDeadLetterQueueUrl', a.readyQueue.schedulerDeadLetterQueue.queueUrl, 'Undeliverable schedules');
    if (a.monitoring.dashboardUrl) output('DashboardUrl', a.monitoring.dashboardUrl, 'CloudWatch dashboard');
    output('SchedulerGroup', a.schedules.timerGroupName, 'Schedule group of one-time timers');
    output('DagScheduleGroup', a.schedules.dagGroupName, 'Schedule group of DAG schedules');
    output('SystemScheduleGroup', a.schedules.systemGroupName, 'Schedule group of the tick and the poker schedules (switched with the sensors)');
    output('AlarmTopicArn', a.monitoring.alarmTopic.topicArn, 'Alarm notifications');
    // What the CLI needs to act as a function would (lib/cli/aws-stack.ts STACK_OUTPUTS).
    output('QueueArn', a.readyQueue.queue.queueArn, 'Ready queue ARN (timer targets)');
    output('SchedulerRoleArn', a.schedules.targetRole.roleArn, 'Role EventBridge Scheduler uses to send to the ready queue');
    output('SchedulerDeadLetterQueueArn', a.readyQueue.schedulerDeadLetterQueue.queueArn, 'Undeliverable schedules (ARN)');
    output('WorkerLogGroupName', a.functions.logGroups.worker.logGroupName, 'Worker logs (airless logs)');
    output('PokerLogGroupName', a.functions.logGroups.poker.logGroupName, 'Poker logs (airless logs of a sensor)');
    output('TickLogGroupName', a.functions.logGroups.tick.logGroupName, 'Tick logs (airless logs: timeouts, lost workers)');
    output('Shards', String(props.airless?.shards ?? 8), 'Poker shards');
    output('WorkerTimeoutMs', String((props.airless?.workerTimeout?.toMilliseconds() ?? 300_000)), 'Worker function timeout');
    output('VariablesPrefix', props.airless?.variablesPrefix ?? '/airless/variables/', 'SSM Parameter Store prefix of variables (airless variables --stack)');
    output('EventBusName', a.events.bus.eventBusName, 'Event bus your systems put events on for tasks waiting for them (ctx.defer({ event }), waitForEvent)');
    output('ConnectionsPrefix', props.airless?.connectionsPrefix ?? 'airless/connections/', 'Secrets Manager prefix of connections (airless connections --stack)');
  }
}
