import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { Airless, type AirlessProps } from './airless.js';
import { DEFAULT_CONNECTIONS_PREFIX, DEFAULT_VARIABLES_PREFIX, STACK_DEFAULTS, STACK_OUTPUTS, tableOutputName } from '../adapters/aws/stack-contract.js';

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
    const name = STACK_OUTPUTS;
    output(name.bucket, a.bundles.bucket.bucketName, 'Bundle bucket (airless push)');
    // The tables are named by CloudFormation: the CLI reads each name from its output.
    for (const [tableId, table] of Object.entries(a.state.tables)) {
      output(tableOutputName(tableId), table.tableName, `DynamoDB table ${tableId}`);
    }
    output(name.queueUrl, a.readyQueue.queue.queueUrl, 'Ready queue');
    output(name.dlqUrl, a.readyQueue.deadLetterQueue.queueUrl, 'Poison messages of the ready queue');
    output(name.schedulerDlqUrl, a.readyQueue.schedulerDeadLetterQueue.queueUrl, 'Undeliverable schedules');
    if (a.monitoring.dashboardUrl) output(name.dashboardUrl, a.monitoring.dashboardUrl, 'CloudWatch dashboard');
    output(name.timerGroup, a.schedules.timerGroupName, 'Schedule group of one-time timers');
    output(name.dagScheduleGroup, a.schedules.dagGroupName, 'Schedule group of DAG schedules');
    output(name.systemScheduleGroup, a.schedules.systemGroupName, 'Schedule group of the tick and the poker schedules (switched with the sensors)');
    output(name.alarmTopicArn, a.monitoring.alarmTopic.topicArn, 'Alarm notifications');
    // What the CLI needs to act as a function would (envFromOutputs in the stack contract).
    output(name.queueArn, a.readyQueue.queue.queueArn, 'Ready queue ARN (timer targets)');
    output(name.schedulerRoleArn, a.schedules.targetRole.roleArn, 'Role EventBridge Scheduler uses to send to the ready queue');
    output(name.schedulerDlqArn, a.readyQueue.schedulerDeadLetterQueue.queueArn, 'Undeliverable schedules (ARN)');
    output(name.workerLogGroup, a.functions.logGroups.worker.logGroupName, 'Worker logs (airless logs)');
    output(name.pokerLogGroup, a.functions.logGroups.poker.logGroupName, 'Poker logs (airless logs of a sensor)');
    output(name.tickLogGroup, a.functions.logGroups.tick.logGroupName, 'Tick logs (airless logs: timeouts, lost workers)');
    output(name.shards, String(props.airless?.shards ?? STACK_DEFAULTS.shards), 'Poker shards');
    output(name.workerTimeoutMs, String((props.airless?.workerTimeout?.toMilliseconds() ?? STACK_DEFAULTS.workerTimeoutMs)), 'Worker function timeout');
    output(name.variablesPrefix, props.airless?.variablesPrefix ?? DEFAULT_VARIABLES_PREFIX, 'SSM Parameter Store prefix of variables (airless variables --stack)');
    output(name.eventBusName, a.events.bus.eventBusName, 'Event bus your systems put events on for tasks waiting for them (ctx.defer({ event }), waitForEvent)');
    output(name.connectionsPrefix, props.airless?.connectionsPrefix ?? DEFAULT_CONNECTIONS_PREFIX, 'Secrets Manager prefix of connections (airless connections --stack)');
  }
}
