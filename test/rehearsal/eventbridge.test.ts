/**
 * EventBridge wired into a running rehearsal, from a template: an object written to a bucket
 * with EventBridge notifications becomes "Object Created" on the default bus; an ECS task's
 * state changes reach a function through a rule (an asynchronous invoke allowed by its
 * permission); that function's results go to its EventInvokeConfig destination, a custom bus,
 * with its role; a rule there sends them to a queue. The template is written by hand (no
 * synth): the pieces are what CDK writes for `eventBridgeEnabled`, `events.Rule`, and Lambda
 * destinations.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ECSClient, RunTaskCommand } from '@aws-sdk/client-ecs';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { matchesPattern, waitPattern } from '../../lib/engine/index.js';
import { awsJobDrivers } from '../../lib/operators/index.js';
import type { BusEvent } from '../../lib/rehearsal/gateway/index.js';
import { startRehearsal, type Rehearsal } from '../../lib/rehearsal/rehearsal.js';

const getAtt = (id: string, attr = 'Arn') => ({ 'Fn::GetAtt': [id, attr] });
const fromRule = (queue: string, ...rules: string[]) => ({
  Type: 'AWS::SQS::QueuePolicy',
  Properties: { Queues: [{ Ref: queue }], PolicyDocument: { Version: '2012-10-17', Statement: rules.map((r) => ({ Effect: 'Allow', Principal: { Service: 'events.amazonaws.com' }, Action: 'sqs:SendMessage', Resource: getAtt(queue), Condition: { ArnEquals: { 'aws:SourceArn': getAtt(r) } } })) } },
});

const TEMPLATE = {
  Resources: {
    Sink: { Type: 'AWS::SQS::Queue', Properties: {} },
    HandlerDlq: { Type: 'AWS::SQS::Queue', Properties: {} },
    SinkPolicy: fromRule('Sink', 'S3Rule', 'ResultsRule'),
    Bus: { Type: 'AWS::Events::EventBus', Properties: { Name: 'airless-bus' } },
    Data: { Type: 'AWS::S3::Bucket', Properties: {} },
    DataNotifications: { Type: 'Custom::S3BucketNotifications', Properties: { BucketName: { Ref: 'Data' }, NotificationConfiguration: { EventBridgeConfiguration: {} }, Managed: true } },
    HandlerRole: { Type: 'AWS::IAM::Role', Properties: { AssumeRolePolicyDocument: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }] } } },
    HandlerPolicy: { Type: 'AWS::IAM::Policy', Properties: { PolicyName: 'HandlerPolicy', Roles: [{ Ref: 'HandlerRole' }], PolicyDocument: { Version: '2012-10-17', Statement: [
      { Effect: 'Allow', Action: 'events:PutEvents', Resource: getAtt('Bus') },
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: getAtt('HandlerDlq') },
      { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: 'arn:aws:logs:us-east-1:000000000000:log-group:/aws/lambda/EvTest-Handler:*' },
    ] } } },
    Handler: {
      Type: 'AWS::Lambda::Function', Metadata: { 'aws:asset:path': 'asset.handler' },
      Properties: { Runtime: 'nodejs24.x', Handler: 'index.handler', Role: getAtt('HandlerRole'), Timeout: 10, DeadLetterConfig: { TargetArn: getAtt('HandlerDlq') } },
    },
    HandlerFromJobs: { Type: 'AWS::Lambda::Permission', Properties: { Action: 'lambda:InvokeFunction', FunctionName: getAtt('Handler'), Principal: 'events.amazonaws.com', SourceArn: getAtt('JobsRule') } },
    HandlerResults: { Type: 'AWS::Lambda::EventInvokeConfig', Properties: { FunctionName: { Ref: 'Handler' }, Qualifier: '$LATEST', MaximumRetryAttempts: 0, DestinationConfig: { OnSuccess: { Destination: getAtt('Bus') } } } },
    JobsRule: { Type: 'AWS::Events::Rule', Properties: { State: 'ENABLED', EventPattern: { source: ['aws.ecs'], 'detail-type': ['ECS Task State Change'], detail: { lastStatus: ['STOPPED'] } }, Targets: [{ Id: 'Target0', Arn: getAtt('Handler') }] } },
    S3Rule: { Type: 'AWS::Events::Rule', Properties: { State: 'ENABLED', EventPattern: { source: ['aws.s3'], 'detail-type': ['Object Created'], detail: { object: { key: [{ prefix: 'in/' }] } } }, Targets: [{ Id: 'Target0', Arn: getAtt('Sink'), InputPath: '$.detail' }] } },
    ResultsRule: { Type: 'AWS::Events::Rule', Properties: { State: 'ENABLED', EventBusName: { Ref: 'Bus' }, EventPattern: { source: ['lambda'] }, Targets: [{ Id: 'Target0', Arn: getAtt('Sink') }] } },
    Cluster: { Type: 'AWS::ECS::Cluster', Properties: { ClusterName: 'jobs' } },
    Etl: { Type: 'AWS::ECS::TaskDefinition', Properties: { Family: 'etl', RequiresCompatibilities: ['FARGATE'], Cpu: '256', Memory: '512', ContainerDefinitions: [{ Name: 'app', Image: 'etl:1', Essential: true }] } },
  },
};

const HANDLER = `export const handler = async (event) => {
  if (event.fail) throw new Error('cannot handle ' + event.fail);
  return { seen: event['detail-type'], exit: event.detail?.containers?.[0]?.exitCode };
};\n`;

describe.skipIf(!inject('dynamodbEndpoint'))('EventBridge in a running rehearsal', () => {
  let dir = '';
  let r: Rehearsal;
  const clients: { destroy(): void }[] = [];
  const client = <T extends { destroy(): void }>(make: (o: object) => T): T => {
    const c = make({ endpoint: r.endpoint, region: 'us-east-1', maxAttempts: 1, forcePathStyle: true, credentials: { accessKeyId: 'AKIACLI', secretAccessKey: 'x' } });
    clients.push(c);
    return c;
  };
  const sink = async () => {
    const q = r.resources.queues.find((x) => x.logicalId === 'Sink')!;
    const out = await r.direct.sqs.send(new ReceiveMessageCommand({ QueueUrl: q.localUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    for (const m of out.Messages ?? []) await r.direct.sqs.send(new DeleteMessageCommand({ QueueUrl: q.localUrl, ReceiptHandle: m.ReceiptHandle }));
    return (out.Messages ?? []).map((m) => JSON.parse(m.Body!));
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'airless-eventbridge-'));
    const cdkOut = join(dir, 'cdk.out');
    mkdirSync(join(cdkOut, 'asset.handler'), { recursive: true });
    writeFileSync(join(cdkOut, 'asset.handler', 'index.mjs'), HANDLER);
    writeFileSync(join(cdkOut, 'EvTest.template.json'), JSON.stringify(TEMPLATE));
    r = await startRehearsal({ stateDir: join(dir, 'state'), cdkOut, stackName: 'EvTest', timeWarp: true, startAt: Date.parse('2026-01-01T00:00:00Z'), dynamodbEndpoint: inject('dynamodbEndpoint') });
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await r?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an object written to a bucket with EventBridge on is "Object Created" on the default bus, routed by its rule', async () => {
    const s3 = client((o) => new S3Client({ ...o, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }));
    const bucket = r.template.physicalName('Data');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'in/day=2026-01-01/part-0.csv', Body: 'a,b\n1,2\n' }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'other/x.csv', Body: 'x' }));
    let got: Record<string, any>[] = [];
    await r.until(async () => (got = [...got, ...(await sink())]).length >= 1 && r.idle(), 'the Object Created event in the sink queue', 20_000);
    expect(got).toEqual([{
      version: '0', bucket: { name: bucket }, object: { key: 'in/day=2026-01-01/part-0.csv', size: 8, etag: expect.stringMatching(/^[0-9a-f]{32}$/), sequencer: expect.stringMatching(/^[0-9A-F]{18}$/) },
      'request-id': expect.any(String), requester: '000000000000', 'source-ip-address': '127.0.0.1', reason: 'PutObject',
    }]);
    expect(r.gateway.events.events.filter((e) => e.event.source === 'aws.s3').map((e) => e.event.resources)).toEqual([[`arn:aws:s3:::${bucket}`], [`arn:aws:s3:::${bucket}`]]);
  });

  it('an ECS task\'s STOPPED event invokes the function through its rule; its result goes to its destination bus with its role, and on to a queue', async () => {
    r.gateway.jobs.behave({ service: 'ecs', name: 'etl' }, { durationMs: 30 * 60_000, exitCode: 0 });
    const ecs = client((o) => new ECSClient(o));
    // Read before the call: the task starts while RunTask is answered, so a reading after it
    // could come up to the answer's latency late (it once fell 0.9 s short of 30 minutes).
    const start = r.clock.now();
    const task = (await ecs.send(new RunTaskCommand({ cluster: 'jobs', taskDefinition: 'etl' }))).tasks![0]!;
    let got: Record<string, any>[] = [];
    await r.until(async () => (got = [...got, ...(await sink())]).length >= 1 && r.idle(), 'the function\'s result in the sink queue', 30_000);
    expect(r.clock.now() - start).toBeGreaterThanOrEqual(30 * 60_000);
    const handler = r.functions.get('Handler')!;
    expect(handler.invocations).toBe(1);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({
      source: 'lambda', 'detail-type': 'Lambda Function Invocation Result - Success', resources: [`${handler.spec.arn}:$LATEST`, r.gateway.events.busArn('airless-bus')],
      detail: {
        version: '1.0', requestContext: { condition: 'Success', approximateInvokeCount: 1, functionArn: `${handler.spec.arn}:$LATEST` },
        requestPayload: { source: 'aws.ecs', 'detail-type': 'ECS Task State Change', detail: { taskArn: task.taskArn, lastStatus: 'STOPPED' } },
        responsePayload: { seen: 'ECS Task State Change', exit: 0 },
      },
    });
    const allowed = (principal: string, action: string) => r.gateway.decisions.filter((d) => d.principal === principal && d.action === action && d.allowed).map((d) => d.resource);
    expect(allowed('events.amazonaws.com', 'lambda:InvokeFunction')).toEqual([handler.spec.arn]);
    expect(allowed('Handler', 'events:PutEvents')).toEqual([r.gateway.events.busArn('airless-bus')]);
    expect(r.accessDenied()).toEqual([]);
  });

  it('lambdaInvoke\'s driver: the Invoke\'s request id is the one the destination record carries, so its wait matches', async () => {
    const drivers = awsJobDrivers({ endpoint: r.endpoint, credentials: { accessKeyId: 'AKIACLI', secretAccessKey: 'x' }, maxAttempts: 1 });
    const d = drivers.lambda_invoke!;
    const sub = await d.submit({ FunctionName: r.template.physicalName('Handler'), Payload: { 'detail-type': 'direct' } }, { dagId: 'd', runId: 'r', taskId: 'score', tryNumber: 1, name: 'd-score-1' });
    let matched: BusEvent | undefined;
    await r.until(() => (matched = r.gateway.events.events.map((e) => e.event).find((e) => matchesPattern(waitPattern(sub.wait), e))) !== undefined, 'the destination event', 20_000);
    expect(d.fromEvent(sub.ref, matched as never)).toMatchObject({ state: 'succeeded', value: expect.objectContaining({ requestId: sub.ref.id }) });
    await r.until(async () => (await sink()).length >= 1 && r.idle(), 'the sink to drain', 20_000);
  });

  it('an asynchronous event that fails every try goes to the function\'s dead-letter queue, sent with its role, with Lambda\'s attributes', async () => {
    const drivers = awsJobDrivers({ endpoint: r.endpoint, credentials: { accessKeyId: 'AKIACLI', secretAccessKey: 'x' }, maxAttempts: 1 });
    const sub = await drivers.lambda_invoke!.submit({ FunctionName: r.template.physicalName('Handler'), Payload: { fail: 'order 7' } }, { dagId: 'd', runId: 'r', taskId: 'bad', tryNumber: 1, name: 'd-bad-1' });
    const q = r.resources.queues.find((x) => x.logicalId === 'HandlerDlq')!;
    let got: { Body?: string; MessageAttributes?: Record<string, { StringValue?: string }> }[] = [];
    await r.until(async () => (got = (await r.direct.sqs.send(new ReceiveMessageCommand({ QueueUrl: q.localUrl, MessageAttributeNames: ['All'], WaitTimeSeconds: 0 }))).Messages ?? []).length > 0, 'the dead letter', 20_000);
    expect(JSON.parse(got[0]!.Body!)).toEqual({ fail: 'order 7' });
    expect(Object.fromEntries(Object.entries(got[0]!.MessageAttributes!).map(([k, v]) => [k, v.StringValue]))).toEqual({ RequestID: sub.ref.id, ErrorCode: '200', ErrorMessage: 'cannot handle order 7' });
    expect(r.gateway.decisions.some((d) => d.principal === 'Handler' && d.action === 'sqs:SendMessage' && d.allowed)).toBe(true);
    await r.until(() => r.idle(), 'idle', 20_000);
  });
});

