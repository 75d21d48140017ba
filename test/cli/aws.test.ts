/**
 * The deployed-stack CLI without AWS: stack outputs to the functions' environment, and
 * AWS errors explained in one line with the right exit code (CloudFormation mocked).
 */
import { CloudFormationClient, DescribeStacksCommand, ListStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeClients } from '../../lib/adapters/aws/clients.js';
import { cmdLogs, fetchTaskLogs, logFilterPattern, parseLogLine } from '../../lib/cli/aws-ops.js';
import { MemoryStore } from '../../lib/adapters/memory/store.js';
import type { Ports } from '../../lib/engine/index.js';
import { AwsConfigError, envFromOutputs, explainAwsError, functionLogGroups, queueArnFromUrl, workerLogGroup, type CliClients } from '../../lib/cli/aws-stack.js';
import { runCli } from '../../lib/cli/main.js';
import { exitCodeFor } from '../../lib/cli/output.js';

const cf = mockClient(CloudFormationClient);
const logsMock = mockClient(CloudWatchLogsClient);

const OUTPUTS = {
  BucketName: 'airless-bundles-abc', QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/Airless-Ready',
  DeadLetterQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/Airless-Dlq',
  SchedulerDeadLetterQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/Airless-SchedDlq',
  SchedulerGroup: 'Airless-timers', DagScheduleGroup: 'Airless-dags',
  // CloudFormation-generated table names
  TableDags: 'Airless-StateDags1-A', TableRuns: 'Airless-StateRuns2-B', TableTasks: 'Airless-StateTasks3-C',
  TableTriggers: 'Airless-StateTriggers4-D', TableKv: 'Airless-StateKv5-E', TableAssets: 'Airless-StateAssets6-F',
};

function clients(): CliClients {
  return { ...makeClients({ region: 'eu-west-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }), cloudformation: new CloudFormationClient({ region: 'eu-west-1' }), logs: new CloudWatchLogsClient({ region: 'eu-west-1' }), region: 'eu-west-1' };
}

function sdkError(name: string, message: string, status = 400): Error {
  return Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status }, $fault: 'client' });
}

beforeEach(() => {
  cf.reset();
  logsMock.reset();
});

describe('stack outputs -> environment', () => {
  it('maps the outputs and derives the queue ARNs from their URLs', () => {
    expect(envFromOutputs(OUTPUTS, { stackName: 'Airless' })).toEqual({
      tableNames: { dags: 'Airless-StateDags1-A', runs: 'Airless-StateRuns2-B', tasks: 'Airless-StateTasks3-C', triggers: 'Airless-StateTriggers4-D', kv: 'Airless-StateKv5-E', assets: 'Airless-StateAssets6-F' },
      tablePrefix: '', queueUrl: OUTPUTS.QueueUrl, queueArn: 'arn:aws:sqs:eu-west-1:123456789012:Airless-Ready',
      bucket: 'airless-bundles-abc', shards: 8, timerGroup: 'Airless-timers', dagScheduleGroup: 'Airless-dags',
      schedulerRoleArn: '', schedulerDlqArn: 'arn:aws:sqs:eu-west-1:123456789012:Airless-SchedDlq',
      workerTimeoutMs: 300_000, runRetentionMs: 90 * 24 * 3600_000,
      variablesPrefix: '/airless/variables/', connectionsPrefix: 'airless/connections/',
    });
  });

  it('prefers explicit outputs when the stack has them', () => {
    const env = envFromOutputs({ ...OUTPUTS, QueueArn: 'arn:aws:sqs:eu-west-1:1:q', SchedulerRoleArn: 'arn:aws:iam::1:role/r', Shards: '16' }, { stackName: 'Airless' });
    expect(env).toMatchObject({ queueArn: 'arn:aws:sqs:eu-west-1:1:q', schedulerRoleArn: 'arn:aws:iam::1:role/r', shards: 16 });
  });

  it('names missing outputs (exit 2)', () => {
    const { QueueUrl: _q, TableKv: _t, ...rest } = OUTPUTS;
    expect(() => envFromOutputs(rest, { stackName: 'Mine' })).toThrow(/stack Mine has no output QueueUrl, TableKv;/);
    expect(exitCodeFor(new AwsConfigError('x'))).toBe(2);
  });

  it('derives queue ARNs for AWS and LocalStack URLs', () => {
    expect(queueArnFromUrl('http://sqs.us-east-1.localhost.localstack.cloud:4566/000000000000/ready')).toBe('arn:aws:sqs:us-east-1:000000000000:ready');
    expect(queueArnFromUrl('http://localhost:4566/000000000000/ready', 'eu-central-1')).toBe('arn:aws:sqs:eu-central-1:000000000000:ready');
    expect(() => queueArnFromUrl('http://localhost:4566/')).toThrow(/not a queue URL/);
  });

  it('finds the worker log group among the stack resources when no output names it', async () => {
    cf.on(ListStackResourcesCommand).resolves({ StackResourceSummaries: [
      { LogicalResourceId: 'AirlessFunctionsTickLogs0A1B2C3D', ResourceType: 'AWS::Logs::LogGroup', PhysicalResourceId: 'tick-logs', ResourceStatus: 'CREATE_COMPLETE', LastUpdatedTimestamp: new Date() },
      { LogicalResourceId: 'AirlessFunctionsWorkerLogs9F8E7D6C', ResourceType: 'AWS::Logs::LogGroup', PhysicalResourceId: 'worker-logs', ResourceStatus: 'CREATE_COMPLETE', LastUpdatedTimestamp: new Date() },
    ] });
    expect(await workerLogGroup(new CloudFormationClient({ region: 'eu-west-1' }), 'Airless', {})).toBe('worker-logs');
    expect(await workerLogGroup(new CloudFormationClient({ region: 'eu-west-1' }), 'Airless', { WorkerLogGroupName: 'named' })).toBe('named');
    // airless logs reads the poker's and the tick's groups too; a stack without their outputs is searched once.
    expect(await functionLogGroups(new CloudFormationClient({ region: 'eu-west-1' }), 'Airless', { WorkerLogGroupName: 'named' }))
      .toEqual({ worker: 'named', tick: 'tick-logs' });
    expect(await functionLogGroups(new CloudFormationClient({ region: 'eu-west-1' }), 'Airless', { WorkerLogGroupName: 'w', PokerLogGroupName: 'p', TickLogGroupName: 't' }))
      .toEqual({ worker: 'w', poker: 'p', tick: 't' });
    expect(cf).toHaveReceivedCommandTimes(ListStackResourcesCommand, 2);
  });
});

describe('AWS errors in one line', () => {
  /** `airless runs etl_daily [--stack NAME]`: its exit code and its one line on stderr. */
  const run = async (stack?: string) => {
    const r = await runCli(['runs', 'etl_daily', ...(stack ? ['--stack', stack] : [])], { clients: clients(), env: {} });
    expect(r.stdout).toEqual([]);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).not.toMatch(/\bat .*\(.*:\d+:\d+\)/);
    return { code: r.code, message: r.stderr[0]!.replace(/^airless: /, '') };
  };

  it('a missing stack: exit 2 with a hint to deploy or pass --stack', async () => {
    cf.on(DescribeStacksCommand).rejects(sdkError('ValidationError', 'Stack with id Nope does not exist'));
    const f = await run('Nope');
    expect(f.code).toBe(2);
    expect(f.message).toMatch(/^stack Nope does not exist in this account and region; deploy it with `npx cdk deploy`, or pass --stack NAME/);
    expect(cf).toHaveReceivedCommandWith(DescribeStacksCommand, { StackName: 'Nope' });
  });

  it('no credentials: exit 2 with a hint', async () => {
    cf.on(DescribeStacksCommand).rejects(Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }));
    const f = await run();
    expect(f.code).toBe(2);
    expect(f.message).toMatch(/no AWS credentials found; set AWS_PROFILE/);
  });

  it('access denied: exit 2 naming the call', async () => {
    cf.on(DescribeStacksCommand).rejects(sdkError('AccessDenied', 'User: arn:aws:iam::1:user/x is not authorized to perform: cloudformation:DescribeStacks', 403));
    const f = await run();
    expect(f.code).toBe(2);
    expect(f.message).toMatch(/^CloudFormation DescribeStacks Airless: access denied \(User: .* not authorized/);
  });

  it('an expired session: exit 2 with a hint to refresh', async () => {
    cf.on(DescribeStacksCommand).rejects(sdkError('ExpiredToken', 'The security token included in the request is expired'));
    const f = await run();
    expect(f.code).toBe(2);
    expect(f.message).toMatch(/session has expired; refresh it/);
  });

  it('a server fault: exit 1', async () => {
    cf.on(DescribeStacksCommand).rejects(sdkError('InternalFailure', 'boom', 500));
    const f = await run();
    expect(f.code).toBe(1);
    expect(f.message).toBe('CloudFormation DescribeStacks Airless failed: InternalFailure: boom');
  });

  it('an unknown command or missing argument is a usage error before any AWS call', async () => {
    const nope = await runCli(['nope'], { clients: clients(), env: {} });
    expect(nope.code).toBe(2);
    expect(nope.stderr).toEqual([expect.stringMatching(/^airless: unknown command "nope"/)]);
    const short = await runCli(['tasks', 'etl_daily'], { clients: clients(), env: {} });
    expect(short.code).toBe(2);
    expect(short.stderr).toEqual([expect.stringMatching(/^airless tasks: missing <runId>/)]);
    expect(cf.calls()).toHaveLength(0);
  });

  it('explains a wrapped region problem', () => {
    expect(explainAwsError('S3 PutObject', new Error('Region is missing')).message).toMatch(/no AWS region configured; set AWS_REGION/);
  });
});

describe('task logs', () => {
  it('builds the JSON filter pattern and keeps only the task try lines', async () => {
    expect(logFilterPattern({ dagId: 'etl', runId: 'manual__2026-01-01T00:00:00.000Z', taskId: 'x', tryNumber: 2 }))
      .toBe('{ ($.dagId = "etl") && ($.runId = "manual__2026-01-01T00:00:00.000Z") && ($.taskId = "x") && ($.tryNumber = 2) }');
    expect(parseLogLine('2026-01-01T00:00:00Z\treq\tINFO\t{"a":1}')).toEqual({ a: 1 });
    const line = (o: object) => ({ message: JSON.stringify(o), timestamp: 1 });
    logsMock.on(FilterLogEventsCommand)
      .resolvesOnce({ events: [line({ level: 'INFO', message: 'hi', dagId: 'etl', runId: 'r', taskId: 'x', tryNumber: 2 }), line({ dagId: 'etl', runId: 'r', taskId: 'y', tryNumber: 2 })], nextToken: 't' })
      .resolvesOnce({ events: [line({ level: 'WARN', message: 'try 1', dagId: 'etl', runId: 'r', taskId: 'x', tryNumber: 1 }), { message: 'not json' }] });
    const got = await fetchTaskLogs(new CloudWatchLogsClient({ region: 'eu-west-1' }), { dagId: 'etl', runId: 'r', taskId: 'x', tryNumber: 2, logGroupName: 'g' });
    expect(got.map((l) => l.message)).toEqual(['hi']);
    expect(logsMock).toHaveReceivedCommandTimes(FilterLogEventsCommand, 2);
    expect(logsMock).toHaveReceivedNthCommandWith(FilterLogEventsCommand, 2, { logGroupName: 'g', nextToken: 't' });
  });
});

describe('airless logs of a batched sensor on a stack', () => {
  it("reads the worker, poker and tick groups, then the poker's lines about its target within the try's wait", async () => {
    const store = new MemoryStore();
    const T = Date.parse('2026-01-01T00:00:00Z');
    await store.createRun({ dagId: 'd', runId: 'r', state: 'success', runType: 'manual', logicalDate: T, dataIntervalStart: T, dataIntervalEnd: T, queuedAt: T, conf: {}, bundleVersion: 'v' } as never);
    const at = (min: number) => new Date(T + min * 60_000).toISOString();
    const ev = (o: Record<string, unknown>) => ({ message: JSON.stringify(o), timestamp: Date.parse(String(o.timestamp)) });
    const ids = { dagId: 'd', runId: 'r', taskId: 'wait', tryNumber: 1 };
    logsMock.on(FilterLogEventsCommand).resolves({ events: [] });
    logsMock.on(FilterLogEventsCommand, { logGroupName: 'poker', filterPattern: logFilterPattern({ dagId: 'd', runId: 'r', taskId: 'wait' }) }).resolves({ events: [
      ev({ ...ids, timestamp: at(5), level: 'INFO', message: 'sensor condition met', hashcode: 'h1' }),
    ] });
    logsMock.on(FilterLogEventsCommand, { logGroupName: 'worker', filterPattern: logFilterPattern({ dagId: 'd', runId: 'r', taskId: 'wait' }) }).resolves({ events: [
      ev({ ...ids, timestamp: at(1), level: 'INFO', message: 'sensor waits for the poker', hashcode: 'h1', sensorType: 's3_key' }),
    ] });
    logsMock.on(FilterLogEventsCommand, { logGroupName: 'poker', filterPattern: '{ $.hashcode = "h1" }' }).resolves({ events: [
      ev({ timestamp: at(2), level: 'INFO', message: 'poke: not yet', hashcode: 'h1', waiters: 2 }),
      ev({ timestamp: at(5), level: 'INFO', message: 'poke: condition met', hashcode: 'h1', waiters: 2 }),
      ev({ ...ids, timestamp: at(5), level: 'INFO', message: 'sensor condition met', hashcode: 'h1' }),
    ] });
    const out: string[] = [];
    const p = { store } as unknown as Ports;
    expect(await cmdLogs(p, new CloudWatchLogsClient({ region: 'eu-west-1' }), { dagId: 'd', runId: 'r', taskId: 'wait', groups: { worker: 'worker', poker: 'poker', tick: 'tick' } }, (l) => out.push(l))).toBe(0);
    expect(out.map((l) => l.replace(/^\S+ {2}/, ''))).toEqual([
      'INFO   try 1  sensor waits for the poker  {"hashcode":"h1","sensorType":"s3_key"}',
      'INFO   try 1  poke: not yet  {"hashcode":"h1","waiters":2}',
      'INFO   try 1  poke: condition met  {"hashcode":"h1","waiters":2}',
      'INFO   try 1  sensor condition met  {"hashcode":"h1"}',
    ]);
    for (const logGroupName of ['worker', 'poker', 'tick']) {
      expect(logsMock).toHaveReceivedCommandWith(FilterLogEventsCommand, { logGroupName, filterPattern: logFilterPattern({ dagId: 'd', runId: 'r', taskId: 'wait' }) });
    }
    expect(logsMock).toHaveReceivedCommandWith(FilterLogEventsCommand, { logGroupName: 'poker', filterPattern: '{ $.hashcode = "h1" }', startTime: T + 60_000, endTime: T + 5 * 60_000 });
    expect(logsMock).toHaveReceivedCommandTimes(FilterLogEventsCommand, 4);
  });

  it('a root sensor registered by airless trigger (no registration line in any group): the window is its try from the store', async () => {
    const store = new MemoryStore();
    const T = Date.parse('2026-01-01T00:00:00Z');
    await store.createRun({ dagId: 'd', runId: 'r', state: 'success', runType: 'manual', logicalDate: T, dataIntervalStart: T, dataIntervalEnd: T, queuedAt: T, conf: {}, bundleVersion: 'v' } as never);
    await store.putTask({ dagId: 'd', runId: 'r', taskId: 'root', state: 'success', tryNumber: 1, upstream: {}, startedAt: T + 1_000, endedAt: T + 180_000 } as never);
    const ev = (o: Record<string, unknown>) => ({ message: JSON.stringify(o), timestamp: Date.parse(String(o.timestamp)) });
    logsMock.on(FilterLogEventsCommand).resolves({ events: [] });
    logsMock.on(FilterLogEventsCommand, { logGroupName: 'poker', filterPattern: logFilterPattern({ dagId: 'd', runId: 'r', taskId: 'root' }) }).resolves({ events: [
      ev({ dagId: 'd', runId: 'r', taskId: 'root', tryNumber: 1, timestamp: new Date(T + 180_000).toISOString(), level: 'INFO', message: 'sensor condition met', hashcode: 'h2' }),
    ] });
    logsMock.on(FilterLogEventsCommand, { logGroupName: 'poker', filterPattern: '{ $.hashcode = "h2" }' }).resolves({ events: [
      ev({ timestamp: new Date(T + 60_000).toISOString(), level: 'INFO', message: 'poke: not yet', hashcode: 'h2', waiters: 1 }),
    ] });
    const out: string[] = [];
    await cmdLogs({ store } as unknown as Ports, new CloudWatchLogsClient({ region: 'eu-west-1' }), { dagId: 'd', runId: 'r', taskId: 'root', groups: { worker: 'worker', poker: 'poker' } }, (l) => out.push(l));
    expect(out.map((l) => l.replace(/^\S+ {2}/, '').replace(/ {2}\{.*$/, ''))).toEqual(['INFO   try 1  poke: not yet', 'INFO   try 1  sensor condition met']);
    expect(logsMock).toHaveReceivedCommandWith(FilterLogEventsCommand, { logGroupName: 'poker', filterPattern: '{ $.hashcode = "h2" }', startTime: T + 1_000, endTime: T + 180_000 });
  });
});
