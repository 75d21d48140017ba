/**
 * The events path in the template, and the jobs' least privilege: the Airless bus and its
 * output, the default-bus rule (terminal states of the job sources, narrowed to the
 * resources `jobs` names), both rules targeting the events function with retries and a
 * dead-letter queue, the worker's and poker's exact job grants, iam:PassRole conditioned on
 * the service, and Lambda results routed to the bus.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Airless } from '../../lib/infra/airless.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AirlessStack } from '../../lib/infra/stack.js';
import { logicalId, NO_BUNDLING, resourcesOf, statementsOfRole, synthAirless } from './synth.js';

const JOBS = {
  ecs: { clusters: ['ml'], taskDefinitions: ['train', 'score:4'], passRoles: ['train-task', 'arn:aws:iam::123456789012:role/ecs-exec'] },
  batch: { jobQueues: ['cpu'], jobDefinitions: ['score'] },
  glue: { jobs: ['orders_etl'] },
  stepFunctions: { stateMachines: ['publish'] },
  athena: { workGroups: ['reports'], resultBuckets: ['athena-results'], dataBuckets: ['lake'], databases: ['sales'] },
  emrServerless: { applications: ['00abc'], executionRoles: ['spark-exec'] },
  lambda: { functions: ['resize-images'] },
};
const ENV = { env: { account: '123456789012', region: 'eu-west-1' } };
const A = 'arn:aws:ecs:eu-west-1:123456789012';

let stack: AirlessStack;
let template: Template;
const id = (c: { node: { defaultChild?: unknown } }) => logicalId(stack, c);
/** A resolved value: the partition is `aws`, the stack's own resources `<LogicalId>`. */
const flat = (v: any): string => {
  if (typeof v === 'string') return v;
  if (v?.Ref === 'AWS::Partition') return 'aws';
  if (v?.['Fn::GetAtt']) return `<${v['Fn::GetAtt'][0]}>`;
  if (v?.Ref) return `<${v.Ref}>`;
  if (v?.['Fn::Join']) return v['Fn::Join'][1].map(flat).join(v['Fn::Join'][0]);
  return JSON.stringify(v);
};
/** Allow statements on resources outside the stack (the jobs'), as `action resource [condition]` lines. */
const lines = (statements: any[]) => statements.flatMap((s) => {
  const cond = s.Condition ? ` ${JSON.stringify(s.Condition, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) && (v['Fn::Join'] || v.Ref) ? flat(v) : v))}` : '';
  return [s.Action].flat().flatMap((a: string) => [s.Resource].flat().map(flat).filter((r) => !r.includes('<')).map((r) => `${a} ${r}${cond}`));
}).filter((l) => !/^(ssm|secretsmanager|scheduler):/.test(l)).sort();

describe('events path, default stack', () => {
  beforeAll(() => ({ stack, template } = synthAirless({}, ENV)));

  it('has the Airless bus, named in the EventBusName output', () => {
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.hasOutput('EventBusName', { Value: { Ref: id(stack.airless.events.bus) } });
  });

  it('routes the terminal end events of every job source on the default bus, and everything on the Airless bus, to the events function', () => {
    const rules = Object.values(resourcesOf(template, 'AWS::Events::Rule')).map((r) => r.Properties);
    expect(rules).toHaveLength(2);
    const jobEnds = rules.find((r) => !r.EventBusName)!;
    const sources = jobEnds.EventPattern.$or.map((p: any) => `${p.source[0]} ${p['detail-type'][0]}`);
    expect(sources).toEqual([
      'aws.ecs ECS Task State Change', 'aws.batch Batch Job State Change', 'aws.glue Glue Job State Change',
      'aws.states Step Functions Execution Status Change', 'aws.athena Athena Query State Change', 'aws.emr-serverless EMR Serverless Job Run State Change',
    ]);
    expect(jobEnds.EventPattern.$or[0].detail).toEqual({ lastStatus: ['STOPPED'] });
    const own = rules.find((r) => r.EventBusName)!;
    expect(own.EventPattern).toEqual({ account: ['123456789012'] });
    const fn = { 'Fn::GetAtt': [id(stack.airless.functions.events), 'Arn'] };
    for (const r of rules) {
      expect(r.Targets).toEqual([expect.objectContaining({
        Arn: fn, RetryPolicy: { MaximumEventAgeInSeconds: 86400, MaximumRetryAttempts: 8 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [id(stack.airless.events.deadLetterQueue), 'Arn'] } },
      })]);
    }
    const invokes = Object.values(resourcesOf(template, 'AWS::Lambda::Permission')).map((r) => r.Properties).filter((p) => p.Principal === 'events.amazonaws.com');
    expect(invokes.map((p) => [flat(p.FunctionName), flat(p.SourceArn)])).toEqual([
      [`<${id(stack.airless.functions.events)}>`, `<${stack.getLogicalId(stack.airless.events.jobEnds!)}>`],
      [`<${id(stack.airless.functions.events)}>`, `<${id(stack.airless.events.ownEvents!)}>`],
    ]);
  });

  it('gives the events function two asynchronous retries and the dead-letter queue, and only the table access the events path uses', () => {
    const events = template.toJSON().Resources[id(stack.airless.functions.events)];
    expect(events.Properties.DeadLetterConfig).toEqual({ TargetArn: { 'Fn::GetAtt': [id(stack.airless.events.deadLetterQueue), 'Arn'] } });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: id(stack.airless.functions.events) }, MaximumRetryAttempts: 2 });
    const role = logicalId(stack, stack.airless.functions.events.role as never);
    const actions = statementsOfRole(template, role).flatMap((s) => [s.Action].flat()).sort();
    expect(actions.filter((a) => a.startsWith('dynamodb:'))).toEqual([
      'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:UpdateItem', 'dynamodb:UpdateItem',
    ]);
    expect(actions).toContain('sqs:SendMessage');
    expect(actions.some((a) => /^(ecs|batch|glue|states|athena|emr-serverless|lambda|iam):/.test(a))).toBe(false);
  });

  it('grants no job service to any role without jobs', () => {
    for (const fn of [stack.airless.functions.worker, stack.airless.functions.poker]) {
      const role = logicalId(stack, fn.role as never);
      expect(lines(statementsOfRole(template, role))).toEqual([]);
    }
  });
});

describe('jobs: least privilege in the construct', () => {
  beforeAll(() => ({ stack, template } = synthAirless({ jobs: JOBS }, ENV)));

  it('gives the worker exactly the submit and stop calls on the named resources, and PassRole only to their service', () => {
    const worker = logicalId(stack, stack.airless.functions.worker.role as never);
    expect(lines(statementsOfRole(template, worker))).toEqual([
      'athena:GetQueryExecution arn:aws:athena:eu-west-1:123456789012:workgroup/reports',
      'athena:StartQueryExecution arn:aws:athena:eu-west-1:123456789012:workgroup/reports',
      'athena:StopQueryExecution arn:aws:athena:eu-west-1:123456789012:workgroup/reports',
      `batch:SubmitJob arn:aws:batch:eu-west-1:123456789012:job-definition/score`,
      `batch:SubmitJob arn:aws:batch:eu-west-1:123456789012:job-definition/score:*`,
      `batch:SubmitJob arn:aws:batch:eu-west-1:123456789012:job-queue/cpu`,
      'batch:TerminateJob arn:aws:batch:eu-west-1:123456789012:job/*',
      `ecs:RunTask ${A}:task-definition/score:4 {"ArnEquals":{"ecs:cluster":["${A}:cluster/ml"]}}`,
      `ecs:RunTask ${A}:task-definition/train:* {"ArnEquals":{"ecs:cluster":["${A}:cluster/ml"]}}`,
      `ecs:StopTask ${A}:task/ml/*`,
      'emr-serverless:CancelJobRun arn:aws:emr-serverless:eu-west-1:123456789012:/applications/00abc/jobruns/*',
      'emr-serverless:StartJobRun arn:aws:emr-serverless:eu-west-1:123456789012:/applications/00abc',
      'glue:BatchGetPartition arn:aws:glue:eu-west-1:123456789012:catalog',
      'glue:BatchGetPartition arn:aws:glue:eu-west-1:123456789012:database/sales',
      'glue:BatchGetPartition arn:aws:glue:eu-west-1:123456789012:table/sales/*',
      'glue:BatchStopJobRun arn:aws:glue:eu-west-1:123456789012:job/orders_etl',
      ...['GetDatabase', 'GetPartition', 'GetPartitions', 'GetTable', 'GetTables'].flatMap((a) => [
        `glue:${a} arn:aws:glue:eu-west-1:123456789012:catalog`, `glue:${a} arn:aws:glue:eu-west-1:123456789012:database/sales`, `glue:${a} arn:aws:glue:eu-west-1:123456789012:table/sales/*`,
      ]),
      'glue:StartJobRun arn:aws:glue:eu-west-1:123456789012:job/orders_etl',
      'iam:PassRole arn:aws:iam::123456789012:role/ecs-exec {"StringEquals":{"iam:PassedToService":"ecs-tasks.amazonaws.com"}}',
      'iam:PassRole arn:aws:iam::123456789012:role/spark-exec {"StringEquals":{"iam:PassedToService":"emr-serverless.amazonaws.com"}}',
      'iam:PassRole arn:aws:iam::123456789012:role/train-task {"StringEquals":{"iam:PassedToService":"ecs-tasks.amazonaws.com"}}',
      'lambda:InvokeFunction arn:aws:lambda:eu-west-1:123456789012:function:resize-images',
      'lambda:InvokeFunction arn:aws:lambda:eu-west-1:123456789012:function:resize-images:*',
      's3:AbortMultipartUpload arn:aws:s3:::athena-results/*',
      's3:GetBucketLocation arn:aws:s3:::athena-results',
      's3:GetBucketLocation arn:aws:s3:::lake',
      's3:GetObject arn:aws:s3:::athena-results/*',
      's3:GetObject arn:aws:s3:::lake/*',
      's3:ListBucket arn:aws:s3:::athena-results',
      's3:ListBucket arn:aws:s3:::lake',
      's3:ListBucketMultipartUploads arn:aws:s3:::athena-results',
      's3:ListMultipartUploadParts arn:aws:s3:::athena-results/*',
      's3:PutObject arn:aws:s3:::athena-results/*',
      'states:StartExecution arn:aws:states:eu-west-1:123456789012:stateMachine:publish',
      'states:StopExecution arn:aws:states:eu-west-1:123456789012:execution:publish:*',
    ].sort());
  });

  it('gives the poker exactly the safety net\'s describes', () => {
    const poker = logicalId(stack, stack.airless.functions.poker.role as never);
    expect(lines(statementsOfRole(template, poker))).toEqual([
      'athena:GetQueryExecution arn:aws:athena:eu-west-1:123456789012:workgroup/reports',
      'batch:DescribeJobs *',
      `ecs:DescribeTasks ${A}:task/ml/*`,
      'emr-serverless:GetJobRun arn:aws:emr-serverless:eu-west-1:123456789012:/applications/00abc/jobruns/*',
      'glue:GetJobRun arn:aws:glue:eu-west-1:123456789012:job/orders_etl',
      'states:DescribeExecution arn:aws:states:eu-west-1:123456789012:execution:publish:*',
    ]);
  });

  it('narrows the default-bus rule to the named resources\' events', () => {
    const jobEnds = Object.values(resourcesOf(template, 'AWS::Events::Rule')).map((r) => r.Properties).find((r) => !r.EventBusName)!;
    const details = JSON.parse(JSON.stringify(jobEnds.EventPattern.$or.map((p: any) => p.detail), (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) && (v['Fn::Join'] || v.Ref) ? flat(v) : v)));
    expect(details).toEqual([
      { lastStatus: ['STOPPED'], clusterArn: [`${A}:cluster/ml`] },
      { status: ['SUCCEEDED', 'FAILED'], jobQueue: ['arn:aws:batch:eu-west-1:123456789012:job-queue/cpu'] },
      { state: ['SUCCEEDED', 'FAILED', 'TIMEOUT', 'STOPPED', 'ERROR'], jobName: ['orders_etl'] },
      { status: ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'], stateMachineArn: ['arn:aws:states:eu-west-1:123456789012:stateMachine:publish'] },
      { currentState: ['SUCCEEDED', 'FAILED', 'CANCELLED'], workgroupName: ['reports'] },
      { state: ['SUCCESS', 'FAILED', 'CANCELLED'], applicationId: ['00abc'] },
    ]);
  });

  it('sends the named functions\' asynchronous results to the Airless bus', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: 'resize-images', Qualifier: '$LATEST',
      DestinationConfig: { OnSuccess: { Destination: { 'Fn::GetAtt': [id(stack.airless.events.bus), 'Arn'] } }, OnFailure: { Destination: { 'Fn::GetAtt': [id(stack.airless.events.bus), 'Arn'] } } },
    });
  });

  it('grants a function given as a construct events:PutEvents on the bus for its results', () => {
    const app = new App({ context: NO_BUNDLING });
    const st = new Stack(app, 'Own', ENV);
    const fn = new lambda.Function(st, 'Resize', { runtime: lambda.Runtime.NODEJS_24_X, handler: 'i.h', code: lambda.Code.fromInline('exports.h=1') });
    const a = new Airless(st, 'Airless', { jobs: { lambda: { functions: [fn] } } });
    const t = Template.fromStack(st);
    const role = st.getLogicalId(fn.role!.node.defaultChild as never);
    expect(statementsOfRole(t, role)).toEqual(expect.arrayContaining([
      expect.objectContaining({ Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [st.getLogicalId(a.events.bus.node.defaultChild as never), 'Arn'] } }),
    ]));
    t.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: st.getLogicalId(fn.node.defaultChild as never) }, Qualifier: '$LATEST' });
  });
});
