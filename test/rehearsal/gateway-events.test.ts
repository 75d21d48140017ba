/**
 * EventBridge in the rehearsal gateway, through the real `@aws-sdk/client-eventbridge`:
 * PutEvents authorized per entry (bus, `events:source`, `events:detail-type`), entries refused
 * as EventBridge refuses them, rules matched with EventBridge's patterns, delivery to Lambda and
 * SQS targets authorized by their resource policies with the rule as `aws:SourceArn`, input
 * transformed, retries and the dead-letter queue, and the at-least-once hooks.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryError, startGateway, type Delivery, type EventDeadLetter, type Gateway, type PolicyDocument, type Principal } from '../../lib/rehearsal/gateway/index.js';

const ACCOUNT = '000000000000';
const scope = { region: 'us-east-1', accountId: ACCOUNT };
const busArn = (name: string) => `arn:aws:events:us-east-1:${ACCOUNT}:event-bus/${name}`;
const fnArn = `arn:aws:lambda:us-east-1:${ACCOUNT}:function:events-path`;
const queueArn = `arn:aws:sqs:us-east-1:${ACCOUNT}:events-queue`;
const dlqArn = `arn:aws:sqs:us-east-1:${ACCOUNT}:events-dlq`;
const ruleArn = (bus: string, rule: string) => `arn:aws:events:us-east-1:${ACCOUNT}:rule/${bus === 'default' ? '' : `${bus}/`}${rule}`;

// A worker that may put events on the Airless bus only, with sources starting "app.".
const worker: Principal = {
  accessKeyId: 'AKIAWORKER', name: 'Worker', roleArn: `arn:aws:iam::${ACCOUNT}:role/Worker`,
  policies: [{ name: 'Events', document: { Version: '2012-10-17', Statement: [
    { Sid: 'Put', Effect: 'Allow', Action: 'events:PutEvents', Resource: busArn('airless'), Condition: { 'ForAllValues:StringLike': { 'events:source': 'app.*' } } },
  ] } }],
};
const fromRule = (rule: string): PolicyDocument => ({ Version: '2012-10-17', Statement: [{
  Sid: 'FromRule', Effect: 'Allow', Principal: { Service: 'events.amazonaws.com' }, Action: ['lambda:InvokeFunction', 'sqs:SendMessage'], Resource: '*',
  Condition: { ArnEquals: { 'aws:SourceArn': rule } },
}] });

describe('rehearsal gateway: EventBridge', () => {
  let gw: Gateway;
  let now = Date.parse('2026-01-01T00:00:00Z');
  let cli: EventBridgeClient;
  let asWorker: EventBridgeClient;
  const delivered: Delivery[] = [];
  const letters: EventDeadLetter[] = [];
  let failNext: Error[] = [];

  beforeAll(async () => {
    gw = await startGateway({
      ...scope, upstream: { dynamodb: 'http://127.0.0.1:1', sqs: 'http://127.0.0.1:1', s3: 'http://127.0.0.1:1' },
      resourcePolicies: {
        [fnArn]: fromRule(ruleArn('default', 'jobs')), [queueArn]: fromRule(ruleArn('airless', 'mine')), [dlqArn]: fromRule(ruleArn('default', 'jobs')),
        // A bus whose policy refuses what the caller's own policy allows.
        [busArn('locked')]: { Version: '2012-10-17', Statement: [{ Sid: 'NoApp', Effect: 'Deny', Principal: '*', Action: 'events:PutEvents', Resource: busArn('locked'), Condition: { 'ForAnyValue:StringLike': { 'events:source': 'app.*' } } }] },
      },
      principals: [worker], clock: () => now,
    });
    gw.events.createBus('airless');
    gw.events.createBus('locked');
    gw.events.putRule({ Name: 'jobs', EventPattern: { source: ['aws.ecs', 'aws.batch'], detail: { lastStatus: ['STOPPED'] } }, Targets: [{ Id: 'fn', Arn: fnArn, DeadLetterConfig: { Arn: dlqArn }, RetryPolicy: { MaximumRetryAttempts: 2 } }] });
    gw.events.putRule({ Name: 'mine', EventBusName: 'airless', EventPattern: { source: [{ prefix: 'app.' }] }, Targets: [
      { Id: 'q', Arn: queueArn, InputTransformer: { InputPathsMap: { who: '$.detail.who', n: '$.detail.n' }, InputTemplate: '{"greeting":"hello <who>","n":<n>,"rule":"<aws.events.rule-name>"}' } },
      { Id: 'path', Arn: queueArn, InputPath: '$.detail' },
    ] });
    gw.events.setSink({
      deliver: async (d) => {
        const e = failNext.shift();
        if (e) throw e;
        delivered.push(d);
      },
      deadLetter: async (l) => void letters.push(l),
    });
    const client = (key: string) => new EventBridgeClient({ endpoint: gw.url, region: 'us-east-1', maxAttempts: 1, credentials: { accessKeyId: key, secretAccessKey: 'x' } });
    cli = client('AKIACLI');
    asWorker = client(worker.accessKeyId);
  });
  afterAll(async () => {
    cli?.destroy();
    asWorker?.destroy();
    await gw?.close();
  });
  beforeEach(() => {
    delivered.length = 0;
    letters.length = 0;
    failNext = [];
  });

  it('PutEvents: authorized per entry on its bus with events:source; the rule transforms the input for each target', async () => {
    const out = await asWorker.send(new PutEventsCommand({ Entries: [{ EventBusName: 'airless', Source: 'app.orders', DetailType: 'Order Placed', Detail: JSON.stringify({ who: 'ann', n: 3 }) }] }));
    expect(out).toMatchObject({ FailedEntryCount: 0 });
    const id = out.Entries![0]!.EventId!;
    await gw.events.runDue(now);
    expect(delivered.map((d) => [d.target.Id, JSON.parse(d.payload)])).toEqual([
      ['q', { greeting: 'hello ann', n: 3, rule: 'mine' }],
      ['path', { who: 'ann', n: 3 }],
    ]);
    expect(delivered[0]!.event).toMatchObject({ id, version: '0', source: 'app.orders', 'detail-type': 'Order Placed', account: ACCOUNT, region: 'us-east-1', time: '2026-01-01T00:00:00Z' });
    const decision = gw.decisions.find((d) => d.action === 'events:PutEvents' && d.principal === 'Worker')!;
    expect(decision).toMatchObject({ allowed: true, resource: busArn('airless'), context: expect.objectContaining({ 'events:source': ['app.orders'], 'events:detail-type': ['Order Placed'] }) });
    expect(gw.decisions.some((d) => d.principal === 'events.amazonaws.com' && d.action === 'sqs:SendMessage' && d.resource === queueArn && d.allowed)).toBe(true);

    await expect(asWorker.send(new PutEventsCommand({ Entries: [{ Source: 'app.orders', DetailType: 'x', Detail: '{}' }] }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    await expect(asWorker.send(new PutEventsCommand({ Entries: [{ EventBusName: 'airless', Source: 'other', DetailType: 'x', Detail: '{}' }] }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });

  it('the bus\'s resource policy is evaluated beside the caller\'s: its explicit deny wins', async () => {
    await expect(cli.send(new PutEventsCommand({ Entries: [{ EventBusName: 'locked', Source: 'app.orders', DetailType: 'x', Detail: '{}' }] }))).rejects.toMatchObject({
      name: 'AccessDeniedException', message: expect.stringContaining('explicit deny in a resource-based policy'),
    });
    expect(await cli.send(new PutEventsCommand({ Entries: [{ EventBusName: 'locked', Source: 'ops.audit', DetailType: 'x', Detail: '{}' }] }))).toMatchObject({ FailedEntryCount: 0 });
  });

  it('refuses entries as EventBridge does, one by one: aws.* sources, malformed detail, a missing field, an unknown bus', async () => {
    const out = await cli.send(new PutEventsCommand({ Entries: [
      { Source: 'aws.ecs', DetailType: 'ECS Task State Change', Detail: '{"lastStatus":"STOPPED"}' },
      { Source: 'app.x', DetailType: 'x', Detail: 'not json' },
      { Source: 'app.x', Detail: '{}' },
      { EventBusName: 'nope', Source: 'app.x', DetailType: 'x', Detail: '{}' },
      { EventBusName: busArn('airless'), Source: 'app.x', DetailType: 'ok', Detail: '{"who":"bo","n":1}' },
    ] }));
    expect(out.FailedEntryCount).toBe(4);
    expect(out.Entries!.map((e) => e.ErrorCode ?? 'ok')).toEqual(['NotAuthorizedForSourceException', 'MalformedDetail', 'InvalidArgument', 'ResourceNotFoundException', 'ok']);
    await gw.events.runDue(now);
    expect(delivered).toHaveLength(2);
  });

  it('an AWS service event reaches a Lambda target authorized by its permission (aws:SourceArn = the rule); others are not routed', async () => {
    gw.events.publish({ source: 'aws.ecs', detailType: 'ECS Task State Change', detail: { lastStatus: 'RUNNING' }, resources: ['arn:task'] });
    gw.events.publish({ source: 'aws.ecs', detailType: 'ECS Task State Change', detail: { lastStatus: 'STOPPED' }, resources: ['arn:task'] });
    await gw.events.runDue(now);
    expect(delivered.map((d) => (d.event.detail as { lastStatus: string }).lastStatus)).toEqual(['STOPPED']);
    expect(JSON.parse(delivered[0]!.payload)).toEqual(delivered[0]!.event);
    const d = gw.decisions.filter((x) => x.principal === 'events.amazonaws.com' && x.action === 'lambda:InvokeFunction').at(-1)!;
    expect(d).toMatchObject({ allowed: true, resource: fnArn, context: expect.objectContaining({ 'aws:SourceArn': ruleArn('default', 'jobs') }) });
  });

  it('retries a retryable failure with back-off, then dead-letters with AWS\'s attributes', async () => {
    const throttled = () => Object.assign(new Error('Rate Exceeded.'), { name: 'TooManyRequestsException', retryable: true });
    failNext = [throttled(), throttled(), throttled()];
    const e = gw.events.publish({ source: 'aws.batch', detailType: 'Batch Job State Change', detail: { lastStatus: 'STOPPED' } });
    await gw.events.runDue(now);
    expect(gw.events.nextDue()).toBe(now + 1_000);
    now += 1_000;
    await gw.events.runDue(now);
    expect(gw.events.nextDue()).toBe(now + 2_000);
    now += 2_000;
    await gw.events.runDue(now);
    expect(gw.events.nextDue()).toBeUndefined();
    expect(delivered).toEqual([]);
    expect(letters).toHaveLength(1);
    expect(JSON.parse(letters[0]!.body)).toEqual(e);
    expect(letters[0]!.attributes).toEqual({
      RULE_ARN: ruleArn('default', 'jobs'), TARGET_ARN: fnArn, ERROR_CODE: 'TooManyRequestsException', ERROR_MESSAGE: 'Rate Exceeded.', RETRY_ATTEMPTS: '2', EXHAUSTED_RETRY_CONDITION: 'MaximumRetryAttempts',
    });
    expect(gw.decisions.some((d) => d.principal === 'events.amazonaws.com' && d.action === 'sqs:SendMessage' && d.resource === dlqArn && d.allowed)).toBe(true);
  });

  it('sends what cannot be retried (a denied or missing target) to the dead-letter queue at once', async () => {
    failNext = [new DeliveryError('ResourceNotFoundException', 'Function not found', false)];
    gw.events.publish({ source: 'aws.ecs', detailType: 'ECS Task State Change', detail: { lastStatus: 'STOPPED' } });
    await gw.events.runDue(now);
    expect(letters.map((l) => l.attributes)).toEqual([expect.not.objectContaining({ EXHAUSTED_RETRY_CONDITION: expect.anything() })]);
    expect(letters[0]!.attributes).toMatchObject({ ERROR_CODE: 'ResourceNotFoundException', RETRY_ATTEMPTS: '0' });
  });

  it('at least once: duplicate delivers an event twice, drop loses it (the safety net\'s case)', async () => {
    gw.events.duplicate((e) => (e.detail as { n?: number }).n === 7);
    gw.events.drop((e) => (e.detail as { n?: number }).n === 8);
    await cli.send(new PutEventsCommand({ Entries: [7, 8, 9].map((n) => ({ EventBusName: 'airless', Source: 'app.x', DetailType: 'x', Detail: JSON.stringify({ who: 'z', n }) })) }));
    await gw.events.runDue(now);
    const ns = delivered.filter((d) => d.target.Id === 'path').map((d) => JSON.parse(d.payload).n);
    expect(ns).toEqual([7, 7, 9]);
    expect(gw.events.dropped.map((x) => (x.event.detail as { n: number }).n)).toEqual([8]);
  });

  it('refuses a rule whose pattern EventBridge would refuse, naming the field', () => {
    expect(() => gw.events.putRule({ Name: 'bad', EventPattern: { detail: { n: [{ numeric: ['>', 'x'] }] } } })).toThrow(/detail\.n: "numeric" takes/);
  });
});
