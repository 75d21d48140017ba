import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sns from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/engine/index.js';
import { Airless, type AirlessProps } from '../../lib/infra/airless.js';
import type { AirlessStack } from '../../lib/infra/stack.js';
import { NO_BUNDLING, actionsOf, logicalId, resourcesOf, statementsOfRole, synthAirless } from './synth.js';

const taskStatement = new iam.PolicyStatement({
  actions: ['s3:GetObject'],
  resources: ['arn:aws:s3:::customer-data/landing/*'],
});

let stack: AirlessStack;
let template: Template;

beforeAll(() => {
  ({ stack, template } = synthAirless({
    shards: 3,
    workerMemoryMb: 2048,
    workerTimeout: Duration.minutes(10),
    workerMaxConcurrency: 100,
    workerBatchSize: 5,
    runRetention: Duration.days(7),
    removalPolicy: RemovalPolicy.DESTROY,
    alarmEmail: 'ops@example.com',
    taskPolicies: [taskStatement],
  }));
});

describe('Airless props', () => {
  it('sizes the worker and its event source from the props', () => {
    const fns = resourcesOf(template, 'AWS::Lambda::Function');
    const worker = fns[logicalId(stack, stack.airless.functions.worker)].Properties;
    expect(worker.MemorySize).toBe(2048);
    expect(worker.Timeout).toBe(600);
    expect(worker.Environment.Variables).toMatchObject({
      AIRLESS_SHARDS: '3',
      AIRLESS_WORKER_TIMEOUT_MS: '600000',
      AIRLESS_RUN_RETENTION_MS: String(7 * 86_400_000),
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 5,
      ScalingConfig: { MaximumConcurrency: 100 },
    });
    const queue = resourcesOf(template, 'AWS::SQS::Queue')[logicalId(stack, stack.airless.readyQueue.queue)];
    expect(queue.Properties.VisibilityTimeout).toBe(3600);
  });

  it('expires run-scoped blobs runRetention + 30 days after they are written', () => {
    const bucket = resourcesOf(template, 'AWS::S3::Bucket')[logicalId(stack, stack.airless.bundles.bucket)];
    const days = bucket.Properties.LifecycleConfiguration.Rules.filter((r: any) => r.Prefix?.startsWith('blobs/')).map((r: any) => r.ExpirationInDays);
    expect(days).toEqual([37, 37, 37]);
  });

  it('creates one poker schedule per shard', () => {
    const inputs = Object.values(resourcesOf(template, 'AWS::Scheduler::Schedule'))
      .map((s) => JSON.parse(s.Properties.Target.Input))
      .filter((i) => 'shard' in i)
      .map((i) => i.shard)
      .sort();
    expect(inputs).toEqual([0, 1, 2]);
  });

  it('with DESTROY: deletes tables and buckets with the stack, without deletion protection', () => {
    for (const table of Object.values(resourcesOf(template, 'AWS::DynamoDB::Table'))) {
      expect(table.DeletionPolicy).toBe('Delete');
      expect(table.Properties.DeletionProtectionEnabled).toBe(false);
    }
    for (const b of Object.values(resourcesOf(template, 'AWS::S3::Bucket'))) expect(b.DeletionPolicy).toBe('Delete');
    template.resourceCountIs('Custom::S3AutoDeleteObjects', 2);
  });

  it('subscribes the alarm email', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
  });

  it('gives task policies to the worker and the poker only', () => {
    const f = stack.airless.functions;
    const has = (fn: typeof f.worker) =>
      statementsOfRole(template, logicalId(stack, fn.role as never)).some(
        (s) => actionsOf(s).includes('s3:GetObject') && s.Resource === 'arn:aws:s3:::customer-data/landing/*',
      );
    expect(has(f.worker)).toBe(true);
    expect(has(f.poker)).toBe(true);
    expect(has(f.tick)).toBe(false);
    expect(has(f.registerBundle)).toBe(false);
  });
});

describe('Airless props validation', () => {
  const build = (props: AirlessProps) => () => new Airless(new Stack(new App({ context: NO_BUNDLING }), 'S'), 'Airless', props);

  it.each<[string, AirlessProps]>([
    ['workerTimeout over 15 minutes', { workerTimeout: Duration.minutes(16) }],
    ['zero shards', { shards: 0 }],
    ['fractional shards', { shards: 1.5 }],
    ['maxConcurrency below the SQS minimum of 2', { workerMaxConcurrency: 1 }],
    ['batch size above 10', { workerBatchSize: 11 }],
    ['removal policy SNAPSHOT', { removalPolicy: RemovalPolicy.SNAPSHOT }],
  ])('rejects %s', (_name, props) => {
    expect(build(props)).toThrow(InvalidInputError);
  });

  it('uses an existing alarm topic instead of creating one', () => {
    const stack = new Stack(new App({ context: NO_BUNDLING }), 'S');
    const topic = sns.Topic.fromTopicArn(stack, 'Ops', 'arn:aws:sns:us-east-1:123456789012:ops');
    const airless = new Airless(stack, 'Airless', { alarmTopic: topic });
    expect(airless.monitoring.alarmTopic).toBe(topic);
    expect(airless.monitoring.topicKey).toBeUndefined();
    expect(stack.node.findAll().some((c) => c instanceof sns.Topic)).toBe(false);
  });
});
