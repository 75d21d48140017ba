import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AirlessStack } from '../../lib/infra/stack.js';
import { TABLE_ACCESS } from '../../lib/infra/grants.js';
import { tableDefinitions } from '../../lib/adapters/aws/stack-contract.js';
import { DASHBOARD_MAX_METRICS, METRIC_NAMES } from '../../lib/infra/monitoring.js';
import { actionsOf, logicalId, resourcesOf, statementsOfRole, synthAirless } from './synth.js';

let stack: AirlessStack;
let template: Template;
const ids: Record<string, string> = {};
let tableIds: string[];

beforeAll(() => {
  ({ stack, template } = synthAirless());
  const a = stack.airless;
  tableIds = a.state.all.map((t) => logicalId(stack, t));
  Object.assign(ids, {
    queue: logicalId(stack, a.readyQueue.queue),
    dlq: logicalId(stack, a.readyQueue.deadLetterQueue),
    schedulerDlq: logicalId(stack, a.readyQueue.schedulerDeadLetterQueue),
    bucket: logicalId(stack, a.bundles.bucket),
    topic: logicalId(stack, a.monitoring.alarmTopic as never),
    targetRole: logicalId(stack, a.schedules.targetRole),
    invokerRole: logicalId(stack, a.schedules.invokerRole),
    tick: logicalId(stack, a.functions.tick),
    worker: logicalId(stack, a.functions.worker),
    poker: logicalId(stack, a.functions.poker),
    registerBundle: logicalId(stack, a.functions.registerBundle),
    tickRole: logicalId(stack, a.functions.tick.role as never),
    workerRole: logicalId(stack, a.functions.worker.role as never),
    pokerRole: logicalId(stack, a.functions.poker.role as never),
    registerRole: logicalId(stack, a.functions.registerBundle.role as never),
  });
});

const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

describe('default Airless stack', () => {
  it('creates the expected resources', () => {
    const counts: Record<string, number> = {
      'AWS::DynamoDB::Table': 6,
      // ready queue, its DLQ, the Scheduler DLQ, the events path's DLQ
      'AWS::SQS::Queue': 4,
      'AWS::S3::Bucket': 2,
      // the five functions plus CDK's bucket-notifications handler
      'AWS::Lambda::Function': 6,
      'AWS::Lambda::EventSourceMapping': 1,
      'AWS::Logs::LogGroup': 5,
      'AWS::Scheduler::ScheduleGroup': 3,
      'AWS::Scheduler::Schedule': 9,
      // issue 22 §4: no dashboard and no KMS key unless asked for; 11 alarms on AWS's own metrics
      'AWS::CloudWatch::Dashboard': 0,
      'AWS::CloudWatch::Alarm': 11,
      'AWS::Events::EventBus': 1,
      'AWS::Events::Rule': 2,
      'AWS::SNS::Topic': 1,
      'AWS::KMS::Key': 0,
      'Custom::S3BucketNotifications': 1,
    };
    for (const [type, n] of Object.entries(counts)) template.resourceCountIs(type, n);
  });

  it('runs every Airless function on Node 24, arm64, with its own log group and the documented env', () => {
    const fns = [ids.tick, ids.worker, ids.poker, ids.registerBundle].map(
      (id) => resourcesOf(template, 'AWS::Lambda::Function')[id].Properties,
    );
    for (const fn of fns) {
      expect(fn.Runtime).toBe('nodejs24.x');
      expect(fn.Architectures).toEqual(['arm64']);
      expect(fn.Handler).toBe('index.handler');
      expect(fn.LoggingConfig.LogGroup).toEqual({ Ref: expect.stringMatching(/Logs/) });
      expect(Object.keys(fn.Environment.Variables).sort()).toEqual(
        [
          'AIRLESS_BUCKET',
          'AIRLESS_CONNECTIONS_PREFIX',
          'AIRLESS_VARIABLES_PREFIX',
          'AIRLESS_DAG_SCHEDULE_GROUP',
          'AIRLESS_QUEUE_ARN',
          'AIRLESS_QUEUE_URL',
          'AIRLESS_RUN_RETENTION_MS',
          'AIRLESS_SCHEDULER_DLQ_ARN',
          'AIRLESS_SCHEDULER_GROUP',
          'AIRLESS_SCHEDULER_ROLE_ARN',
          'AIRLESS_SHARDS',
          'AIRLESS_SYSTEM_SCHEDULE_GROUP',
          'AIRLESS_TABLE_ASSETS',
          'AIRLESS_TABLE_DAGS',
          'AIRLESS_TABLE_KV',
          'AIRLESS_TABLE_RUNS',
          'AIRLESS_TABLE_TASKS',
          'AIRLESS_TABLE_TRIGGERS',
          'AIRLESS_WORKER_TIMEOUT_MS',
          'NODE_OPTIONS',
          'POWERTOOLS_METRICS_NAMESPACE',
          'POWERTOOLS_SERVICE_NAME',
        ].sort(),
      );
      expect(fn.Environment.Variables).toMatchObject({
        AIRLESS_SHARDS: '8',
        AIRLESS_SCHEDULER_GROUP: 'Airless-timers',
        AIRLESS_SYSTEM_SCHEDULE_GROUP: 'Airless-system',
        AIRLESS_TABLE_TASKS: { Ref: logicalId(stack, stack.airless.state.tables.tasks) },
        POWERTOOLS_METRICS_NAMESPACE: 'Airless',
        POWERTOOLS_SERVICE_NAME: 'airless',
      });
    }
    const worker = resourcesOf(template, 'AWS::Lambda::Function')[ids.worker].Properties;
    expect(worker.MemorySize).toBe(1024);
    expect(worker.Timeout).toBe(300);
    expect(worker.ReservedConcurrentExecutions).toBeUndefined();
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('feeds the worker from the ready queue with partial batch failures and capped concurrency', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: ids.worker },
      EventSourceArn: arnOf(ids.queue),
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 50 },
    });
  });

  it('keeps state in on-demand tables with PITR, SSE, deletion protection, and the schema\'s keys, indexes and TTL', () => {
    const tables = resourcesOf(template, 'AWS::DynamoDB::Table');
    for (const table of Object.values(tables)) {
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      });
      // SSEEnabled false is DynamoDB's AWS owned key (tables are always encrypted at rest): no
      // key fee and no KMS request per container and table, as the AWS managed key has (issue 22 §4).
      expect(table.Properties.SSESpecification).toEqual({ SSEEnabled: false });
    }
    // Unnamed (CloudFormation names them), so a retained table never blocks the next deploy.
    for (const table of Object.values(tables)) expect(table.Properties.TableName).toBeUndefined();
    for (const { id, def } of tableDefinitions) {
      const t = tables[logicalId(stack, stack.airless.state.tables[id])].Properties;
      expect(t.KeySchema[0]).toEqual({ AttributeName: def.partitionKey.name, KeyType: 'HASH' });
      expect((t.GlobalSecondaryIndexes ?? []).map((i: any) => i.IndexName)).toEqual(def.gsis.map((g) => g.indexName));
      expect((t.LocalSecondaryIndexes ?? []).map((i: any) => i.IndexName)).toEqual(def.lsis.map((g) => g.indexName));
      expect(t.TimeToLiveSpecification).toEqual(
        def.ttlAttribute ? { AttributeName: def.ttlAttribute, Enabled: true } : undefined,
      );
    }
  });

  it('encrypts every queue, redrives the ready queue after 5 receives, and sizes visibility to 6x the worker timeout', () => {
    template.allResourcesProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
    const queues = resourcesOf(template, 'AWS::SQS::Queue');
    expect(queues[ids.queue].Properties).toMatchObject({
      VisibilityTimeout: 1800,
      RedrivePolicy: { deadLetterTargetArn: arnOf(ids.dlq), maxReceiveCount: 5 },
    });
    expect(queues[ids.dlq].Properties.MessageRetentionPeriod).toBe(14 * 86400);
    expect(queues[ids.schedulerDlq].Properties.MessageRetentionPeriod).toBe(14 * 86400);
    for (const id of [ids.queue, ids.dlq, ids.schedulerDlq]) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('keeps the bundle bucket private, SSL-only, encrypted, versioned and logged', () => {
    template.allResourcesProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
    });
    const bucket = resourcesOf(template, 'AWS::S3::Bucket')[ids.bucket].Properties;
    expect(bucket.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket.LoggingConfiguration.DestinationBucketName).toEqual({
      Ref: logicalId(stack, stack.airless.bundles.accessLogBucket),
    });
    expect(bucket.LifecycleConfiguration.Rules[0].NoncurrentVersionExpiration).toEqual({ NoncurrentDays: 30 });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: ids.bucket },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('invokes register-bundle for bundles/*/manifest.json only', () => {
    const notifications = Object.values(resourcesOf(template, 'Custom::S3BucketNotifications'));
    expect(notifications).toHaveLength(1);
    const config = notifications[0].Properties.NotificationConfiguration;
    expect(Object.keys(config)).toEqual(['LambdaFunctionConfigurations']);
    expect(config.LambdaFunctionConfigurations).toHaveLength(1);
    const [lambda] = config.LambdaFunctionConfigurations;
    expect(lambda.Events).toEqual(['s3:ObjectCreated:*']);
    expect(lambda.LambdaFunctionArn).toEqual(arnOf(ids.registerBundle));
    const rules = Object.fromEntries(lambda.Filter.Key.FilterRules.map((r: any) => [r.Name, r.Value]));
    expect(rules).toEqual({ prefix: 'bundles/', suffix: 'manifest.json' });
  });

  it('ticks every minute and pokes each of the 8 shards every minute, the pokers deployed disabled and named poker-<shard>', () => {
    const schedules = Object.values(resourcesOf(template, 'AWS::Scheduler::Schedule')).map((s) => s.Properties);
    for (const s of schedules) {
      expect(s.ScheduleExpression).toBe('rate(1 minute)');
      expect(s.GroupName).toBe('Airless-system');
      expect(s.Target.RoleArn).toEqual(arnOf(ids.invokerRole));
      expect(s.Target.DeadLetterConfig.Arn).toEqual(arnOf(ids.schedulerDlq));
    }
    const tick = schedules.filter((s) => JSON.stringify(s.Target.Arn) === JSON.stringify(arnOf(ids.tick)));
    expect(tick).toHaveLength(1);
    const pokerInputs = schedules
      .filter((s) => JSON.stringify(s.Target.Arn) === JSON.stringify(arnOf(ids.poker)))
      .map((s) => JSON.parse(s.Target.Input).shard)
      .sort((a, b) => a - b);
    expect(pokerInputs).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(tick[0].State).toBe('ENABLED');
    for (const s of schedules.filter((x) => x !== tick[0])) {
      expect(s).toMatchObject({ State: 'DISABLED', Name: `poker-${JSON.parse(s.Target.Input).shard}` });
    }
  });

  it('lets the scheduler target role send only to the ready queue and its DLQ', () => {
    const statements = statementsOfRole(template, ids.targetRole);
    expect(statements).toEqual([
      { Action: 'sqs:SendMessage', Effect: 'Allow', Resource: [arnOf(ids.queue), arnOf(ids.schedulerDlq)] },
    ]);
    const invoker = statementsOfRole(template, ids.invokerRole);
    expect(invoker.flatMap(actionsOf).sort()).toEqual(['lambda:InvokeFunction', 'sqs:SendMessage']);
  });

  it('scopes function permissions: no "*" resource but ListSchedules, consume and blob writes for the worker only', () => {
    const byRole = {
      tick: statementsOfRole(template, ids.tickRole),
      worker: statementsOfRole(template, ids.workerRole),
      poker: statementsOfRole(template, ids.pokerRole),
      register: statementsOfRole(template, ids.registerRole),
    };
    for (const [name, statements] of Object.entries(byRole)) {
      for (const s of statements) {
        if (s.Resource === '*') expect([name, actionsOf(s)]).toEqual(['register', ['scheduler:ListSchedules']]);
        for (const a of actionsOf(s)) expect(a).not.toMatch(/\*/);
      }
    }
    const dynamo = byRole.worker.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    expect(dynamo.length).toBeGreaterThan(0);
    for (const s of dynamo) {
      const resources = Array.isArray(s.Resource) ? s.Resource : [s.Resource];
      for (const r of resources) expect(tableIds.some((t) => JSON.stringify(r).includes(t))).toBe(true);
    }

    const has = (statements: any[], action: string) => statements.some((s) => actionsOf(s).includes(action));
    // Only the DynamoDB actions the code sends, per table (lib/infra/grants.ts, proven by the
    // rehearsal's least-privilege scenario): no code sends these at all.
    for (const statements of Object.values(byRole)) {
      for (const unused of ['dynamodb:BatchWriteItem', 'dynamodb:BatchGetItem', 'dynamodb:DescribeTable', 'dynamodb:GetRecords', 'dynamodb:ConditionCheckItem']) expect(has(statements, unused)).toBe(false);
    }
    const tableKeys: Record<string, keyof typeof TABLE_ACCESS> = { tick: 'tick', worker: 'worker', poker: 'poker', register: 'registerBundle' };
    for (const [name, statements] of Object.entries(byRole)) {
      for (const [table, actions] of Object.entries(TABLE_ACCESS[tableKeys[name]!])) {
        const logical = tableIds.find((t) => t.toLowerCase().includes(`state${table}`))!;
        const onTable = statements.filter((s) => JSON.stringify(s.Resource).includes(logical) && actionsOf(s).some((a) => a.startsWith('dynamodb:')));
        expect([name, table, onTable.flatMap(actionsOf).sort()]).toEqual([name, table, actions!.map((a) => `dynamodb:${a}`).sort()]);
      }
    }
    // The queue: send only (no GetQueueUrl/GetQueueAttributes); the worker's event source
    // mapping with what Lambda's poller calls.
    for (const statements of [byRole.tick, byRole.worker, byRole.poker]) {
      expect(statements.filter((s) => actionsOf(s).includes('sqs:SendMessage')).map(actionsOf)).toEqual([['sqs:SendMessage']]);
    }
    expect(byRole.worker.filter((s) => actionsOf(s).includes('sqs:ReceiveMessage')).map(actionsOf)).toEqual([['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes']]);
    for (const other of [byRole.tick, byRole.poker, byRole.register]) expect(has(other, 'sqs:ReceiveMessage')).toBe(false);
    // register-bundle keeps the registry only: dags and kv tables, no queue.
    expect(has(byRole.register, 'sqs:SendMessage')).toBe(false);
    const registerTables = JSON.stringify(byRole.register.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:'))).map((s) => s.Resource));
    expect(registerTables).toContain('StateDags');
    for (const t of ['StateRuns', 'StateTasks', 'StateTriggers']) expect(registerTables).not.toContain(t);
    for (const other of [byRole.tick, byRole.poker]) expect(has(other, 's3:PutObject')).toBe(false);
    const put = byRole.worker.find((s) => actionsOf(s).includes('s3:PutObject'));
    expect(JSON.stringify(put.Resource)).toContain('/blobs/*');
    // register-bundle writes its verdict beside the manifest and offloads large specs (issue 9).
    const registerPuts = byRole.register.filter((s) => actionsOf(s).includes('s3:PutObject')).map((s) => JSON.stringify(s.Resource));
    expect(registerPuts.some((r) => r.includes('/bundles/*/registration.json'))).toBe(true);
    expect(registerPuts.some((r) => r.includes('/blobs/*'))).toBe(true);
    for (const r of registerPuts) expect(r.includes('/bundles/*/registration.json') || r.includes('/blobs/*')).toBe(true);
    // Reconcile reads the manifest of every run it advances, and offloaded specs and confs (issue 9).
    for (const reader of [byRole.tick, byRole.poker, byRole.register, byRole.worker]) {
      const reads = reader.filter((s) => actionsOf(s).includes('s3:GetObject')).map((s) => JSON.stringify(s.Resource)).join(' ');
      expect(reads).toContain('/bundles/*');
      expect(reads).toContain('/blobs/*');
    }
    expect(has(byRole.register, 'scheduler:UpdateSchedule')).toBe(true);
    // The poker switch (issue 22 §4): read and update the poker schedules of the system group
    // only, passing the invoker role only; register-bundle registers no sensor.
    for (const statements of [byRole.tick, byRole.worker, byRole.poker]) {
      const switches = statements.filter((s) => actionsOf(s).includes('scheduler:UpdateSchedule'));
      expect(switches.map(actionsOf)).toEqual([['scheduler:GetSchedule', 'scheduler:UpdateSchedule']]);
      expect(JSON.stringify(switches[0].Resource)).toContain(':schedule/Airless-system/poker-*');
      const passes = statements.filter((s) => actionsOf(s).includes('iam:PassRole'));
      expect(passes.map((s) => s.Resource)).toEqual([arnOf(ids.targetRole), arnOf(ids.invokerRole)]);
      for (const pass of passes) expect(pass.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
    }
    expect(has(byRole.register, 'scheduler:GetSchedule')).toBe(true); // its DAG group only
    expect(JSON.stringify(byRole.register)).not.toContain('Airless-system');
  });

  it('alarms on the three DLQs, the oldest message, errors of the tick, worker, poker and register-bundle, throttles of the tick, worker and poker: AWS metrics only', () => {
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    const on = (metric: string, ref: string) =>
      alarms.filter((a) => a.MetricName === metric && JSON.stringify(a.Dimensions).includes(ref));
    expect(on('ApproximateNumberOfMessagesVisible', ids.dlq)).toHaveLength(1);
    expect(on('ApproximateNumberOfMessagesVisible', ids.schedulerDlq)).toHaveLength(1);
    const age = on('ApproximateAgeOfOldestMessage', ids.queue);
    expect(age).toHaveLength(1);
    expect(age[0].Threshold).toBe(1800);
    expect(on('ApproximateNumberOfMessagesVisible', ids.dlq)[0].Threshold).toBe(1);
    expect(on('ApproximateNumberOfMessagesVisible', logicalId(stack, stack.airless.events.deadLetterQueue))).toHaveLength(1);
    for (const fn of [ids.tick, ids.worker, ids.poker, ids.registerBundle]) expect(on('Errors', fn)).toHaveLength(1);
    for (const fn of [ids.tick, ids.worker, ids.poker]) expect(on('Throttles', fn)).toHaveLength(1);
    expect(on('Throttles', ids.registerBundle)).toHaveLength(0);
    // The events function's failures end in its DLQ, alarmed above: no errors or throttles alarm of its own.
    const eventsFn = logicalId(stack, stack.airless.functions.events);
    expect(alarms.filter((a) => JSON.stringify(a.Dimensions).includes(eventsFn))).toHaveLength(0);
    for (const a of alarms) {
      expect(a.AlarmActions).toEqual([{ Ref: ids.topic }]);
      // A service metric each, listed directly (the free tier counts only such alarms): no custom metric, no math.
      expect(a.Namespace).toMatch(/^AWS\//);
      expect(a.Metrics).toBeUndefined();
    }
  });

  it('does not retry a failed tick or poker invocation: the next minute covers it', () => {
    const configs = Object.values(resourcesOf(template, 'AWS::Lambda::EventInvokeConfig')).map((c) => c.Properties);
    for (const fn of [ids.tick, ids.poker]) {
      expect(configs.find((c) => JSON.stringify(c.FunctionName).includes(fn))?.MaximumRetryAttempts).toBe(0);
    }
  });

  it('lets CloudWatch alarms of this account publish to the alarm topic', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow', Action: 'sns:Publish', Principal: { Service: 'cloudwatch.amazonaws.com' },
            Condition: Match.objectLike({ StringEquals: { 'aws:SourceAccount': Match.anyValue() } }),
          }),
        ]),
      },
    });
  });

  it('denies senders outside the account on the ready queue', () => {
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: ids.queue }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 'sqs:SendMessage', Condition: { StringNotEquals: { 'aws:PrincipalAccount': Match.anyValue() } } }),
        ]),
      },
    });
  });

  it('requires SSL on the alarm topic, without a KMS key unless asked for (then a rotating one CloudWatch may use)', () => {
    const topic = resourcesOf(template, 'AWS::SNS::Topic')[ids.topic].Properties;
    expect(topic?.KmsMasterKeyId).toBeUndefined();
    expect(stack.airless.monitoring.topicKey).toBeUndefined();
    const keyed = synthAirless({ customerManagedKey: true });
    const keyedTopic = Object.values(resourcesOf(keyed.template, 'AWS::SNS::Topic'))[0].Properties;
    expect(keyedTopic.KmsMasterKeyId).toEqual(arnOf(logicalId(keyed.stack, keyed.stack.airless.monitoring.topicKey!)));
    keyed.template.resourceCountIs('AWS::KMS::Key', 1);
    keyed.template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: { Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey*'] })]) },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('builds, when asked, a dashboard with every published metric, queues, functions and tables, within the free tier\'s 50 metrics', () => {
    const withDashboard = synthAirless({ dashboard: true });
    const dashboard = Object.values(resourcesOf(withDashboard.template, 'AWS::CloudWatch::Dashboard'))[0].Properties;
    const body = JSON.stringify(withDashboard.stack.resolve(dashboard.DashboardBody));
    for (const name of METRIC_NAMES) expect(body).toContain(`\\"${name}\\"`);
    const widgets = JSON.parse((withDashboard.stack.resolve(dashboard.DashboardBody) as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1].map((x) => (typeof x === 'string' ? x : 'x')).join('')).widgets as { properties: { metrics?: unknown[][] } }[];
    const metricLines = widgets.flatMap((w) => w.properties.metrics ?? []).filter((m) => !(m.at(-1) as { expression?: string } | undefined)?.expression);
    expect(metricLines.length).toBeGreaterThan(30);
    expect(metricLines.length).toBeLessThanOrEqual(DASHBOARD_MAX_METRICS);
    expect(withDashboard.template.findOutputs('DashboardUrl')).not.toEqual({});
    for (const name of ['ApproximateAgeOfOldestMessage', 'Throttles', 'Duration', 'WriteThrottleEvents', 'ConsumedWriteCapacityUnits']) {
      expect(body).toContain(name);
    }
    expect(body).toContain('\\"service\\",\\"airless\\"');
  });

  it('outputs what the CLI needs', () => {
    const outputs = Object.keys(template.findOutputs('*'));
    for (const o of ['BucketName', 'TableTasks', 'TableRuns', 'TableDags', 'TableTriggers', 'TableKv', 'QueueUrl', 'DeadLetterQueueUrl', 'SchedulerGroup', 'SystemScheduleGroup']) {
      expect(outputs).toContain(o);
    }
    expect(outputs).not.toContain('DashboardUrl');
  });
});
