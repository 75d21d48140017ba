/**
 * The job drivers' AWS calls, asserted exactly (no emulator of these services runs in this
 * suite; the rehearsal's emulators prove them against the template's grants): what each
 * operator submits, describes and stops with, how it reads AWS's documented end events and
 * describe answers, and how AWS errors become one-line try failures.
 */
import { AthenaClient, GetQueryExecutionCommand, StartQueryExecutionCommand, StopQueryExecutionCommand } from '@aws-sdk/client-athena';
import { BatchClient, DescribeJobsCommand, SubmitJobCommand, TerminateJobCommand } from '@aws-sdk/client-batch';
import { DescribeTasksCommand, ECSClient, RunTaskCommand, StopTaskCommand } from '@aws-sdk/client-ecs';
import { CancelJobRunCommand, EMRServerlessClient, GetJobRunCommand, StartJobRunCommand as EmrStart } from '@aws-sdk/client-emr-serverless';
import { BatchStopJobRunCommand, GetJobRunCommand as GlueGet, GlueClient, StartJobRunCommand as GlueStart } from '@aws-sdk/client-glue';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { AirlessError, checkEventWait, eventKeys, jobName, matchesPattern, type AwsEvent, type JobContext } from '../../lib/engine/index.js';
import { awsJobDrivers, JOB_SERVICES } from '../../lib/operators/index.js';

const ctx: JobContext = { dagId: 'nightly', runId: 'scheduled__2026-01-01T00:00:00+00:00', taskId: 'train', tryNumber: 1, name: jobName('nightly', 'scheduled__2026-01-01T00:00:00+00:00', 'train', 1) };
const drivers = awsJobDrivers({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 1 });
const mocks = { ecs: mockClient(ECSClient), batch: mockClient(BatchClient), glue: mockClient(GlueClient), sfn: mockClient(SFNClient), athena: mockClient(AthenaClient), emr: mockClient(EMRServerlessClient), lambda: mockClient(LambdaClient) };
const input = (m: { commandCalls: (c: any) => any[] }, cmd: unknown, i = 0) => m.commandCalls(cmd)[i].args[0].input;
const awsError = (name: string, message: string, status = 400) => Object.assign(new Error(message), { name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status } });
const event = (source: string, detailType: string, detail: Record<string, unknown>): AwsEvent => ({ version: '0', id: 'e', source, 'detail-type': detailType, account: '123456789012', time: '2026-01-01T00:00:00Z', region: 'eu-west-1', resources: [], detail });

/** A wait a submit returns is valid, and the end event AWS sends finds it by its key. */
function expectFound(wait: unknown, end: AwsEvent) {
  const checked = checkEventWait(wait);
  if (typeof checked === 'string') throw new Error(checked);
  expect(eventKeys(end)).toContain(checked.key);
  expect(matchesPattern(checked.pattern, end)).toBe(true);
}

beforeEach(() => Object.values(mocks).forEach((m) => m.reset()));

describe('ecsRunTask', () => {
  const taskArn = 'arn:aws:ecs:eu-west-1:123456789012:task/ml/0123456789abcdef';
  const clusterArn = 'arn:aws:ecs:eu-west-1:123456789012:cluster/ml';
  it('RunTask with startedBy and a client token per try, the user input winning; the wait is STOPPED for the task ARN', async () => {
    mocks.ecs.on(RunTaskCommand).resolves({ tasks: [{ taskArn, clusterArn, taskDefinitionArn: 'arn:td' }] });
    const sub = await drivers.ecs_run_task.submit({ cluster: 'ml', taskDefinition: 'train:3', launchType: 'FARGATE', overrides: { containerOverrides: [{ name: 'main', command: ['x'] }] } }, ctx);
    expect(input(mocks.ecs, RunTaskCommand)).toEqual({
      startedBy: 'airless', clientToken: expect.stringMatching(/^[0-9a-f]{64}$/), cluster: 'ml', taskDefinition: 'train:3', launchType: 'FARGATE',
      overrides: { containerOverrides: [{ name: 'main', command: ['x'] }] },
    });
    expect(sub.ref).toEqual({ type: 'ecs_run_task', id: taskArn, cluster: clusterArn, region: 'eu-west-1' });
    expect(sub.value).toEqual({ taskArn, clusterArn, taskDefinitionArn: 'arn:td' });
    expect(sub.links!.logs).toBe('https://eu-west-1.console.aws.amazon.com/ecs/v2/clusters/ml/tasks/0123456789abcdef/logs?region=eu-west-1');
    const stopped = event('aws.ecs', 'ECS Task State Change', { taskArn, clusterArn, lastStatus: 'STOPPED', stopCode: 'EssentialContainerExited', stoppedReason: 'Essential container in task exited', containers: [{ name: 'main', exitCode: 0 }, { name: 'sidecar', exitCode: 137 }] });
    expectFound(sub.wait, stopped);
    expect(drivers.ecs_run_task.fromEvent(sub.ref, stopped)).toEqual({
      state: 'failed', reason: 'container sidecar exited with code 137: EssentialContainerExited: Essential container in task exited',
      value: { taskArn, clusterArn, stopCode: 'EssentialContainerExited', stoppedReason: 'Essential container in task exited', exitCodes: { main: 0, sidecar: 137 } },
    });
    expect(drivers.ecs_run_task.fromEvent(sub.ref, { ...stopped, detail: { ...stopped.detail, lastStatus: 'RUNNING' } })).toEqual({ state: 'running' });
  });

  it('DescribeTasks for the safety net (MISSING: gone), StopTask with the reason', async () => {
    const ref = { type: 'ecs_run_task', id: taskArn, cluster: clusterArn, region: 'eu-west-1' };
    mocks.ecs.on(DescribeTasksCommand).resolvesOnce({ tasks: [{ taskArn, lastStatus: 'STOPPED', containers: [{ name: 'main', exitCode: 0 }] }] }).resolvesOnce({ tasks: [], failures: [{ arn: taskArn, reason: 'MISSING' }] });
    expect(await drivers.ecs_run_task.describe!(ref)).toMatchObject({ state: 'succeeded', value: { exitCodes: { main: 0 } } });
    expect(await drivers.ecs_run_task.describe!(ref)).toEqual({ state: 'gone', reason: 'DescribeTasks: MISSING' });
    expect(input(mocks.ecs, DescribeTasksCommand)).toEqual({ cluster: clusterArn, tasks: [taskArn] });
    mocks.ecs.on(StopTaskCommand).resolves({});
    await drivers.ecs_run_task.stop!(ref, 'Airless nightly/r/train: timed out');
    expect(input(mocks.ecs, StopTaskCommand)).toEqual({ cluster: clusterArn, task: taskArn, reason: 'Airless nightly/r/train: timed out' });
  });

  it('an unknown cluster or a missing grant is not retryable, throttling and placement failures are', async () => {
    mocks.ecs.on(RunTaskCommand).rejectsOnce(awsError('ClusterNotFoundException', 'Cluster not found.'))
      .rejectsOnce(awsError('AccessDeniedException', 'User: arn:aws:sts::1:assumed-role/w is not authorized to perform: ecs:RunTask on resource: arn:td'))
      .rejectsOnce(awsError('ThrottlingException', 'Rate exceeded'))
      .resolvesOnce({ tasks: [], failures: [{ arn: 'arn:ci', reason: 'RESOURCE:MEMORY' }] });
    const errors: AirlessError[] = [];
    for (let i = 0; i < 4; i++) errors.push(await drivers.ecs_run_task.submit({ cluster: 'x', taskDefinition: 'td' }, ctx).then(() => { throw new Error('submitted'); }, (e) => e));
    expect(errors.map((e) => [e.message, e.retryable])).toEqual([
      ['ecs:RunTask refused: ClusterNotFoundException: Cluster not found.', false],
      ['ecs:RunTask refused: AccessDeniedException: User: arn:aws:sts::1:assumed-role/w is not authorized to perform: ecs:RunTask on resource: arn:td (name this resource in new Airless(…, { jobs }) so the worker may use it)', false],
      ['ecs:RunTask refused: ThrottlingException: Rate exceeded', true],
      ['ecs:RunTask refused: RunTaskFailure: RESOURCE:MEMORY: arn:ci', true],
    ]);
    await expect(drivers.ecs_run_task.submit({ cluster: 'x', taskDefinition: 'td', count: 2 }, ctx)).rejects.toMatchObject({ retryable: false, message: expect.stringContaining('one task per try') });
  });
});

describe('batchSubmitJob', () => {
  it('SubmitJob named per try; ends on SUCCEEDED/FAILED with the exit code; DescribeJobs; TerminateJob; the log stream once it ran', async () => {
    mocks.batch.on(SubmitJobCommand).resolves({ jobId: 'j-1', jobArn: 'arn:aws:batch:eu-west-1:123456789012:job/j-1', jobName: ctx.name });
    const sub = await drivers.batch_submit_job.submit({ jobQueue: 'cpu', jobDefinition: 'score:2' }, ctx);
    expect(input(mocks.batch, SubmitJobCommand)).toEqual({ jobName: ctx.name, jobQueue: 'cpu', jobDefinition: 'score:2' });
    const failed = event('aws.batch', 'Batch Job State Change', { jobId: 'j-1', jobName: ctx.name, status: 'FAILED', statusReason: 'Essential container in task exited', container: { exitCode: 3, logStreamName: 'score/default/abc' } });
    expectFound(sub.wait, failed);
    const status = drivers.batch_submit_job.fromEvent(sub.ref, failed);
    expect(status).toMatchObject({ state: 'failed', reason: 'Essential container in task exited: exit code 3' });
    expect(drivers.batch_submit_job.endLinks!(sub.ref, status)).toEqual({
      logs: 'https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1#logsV2:log-groups/log-group/$252Faws$252Fbatch$252Fjob/log-events/score$252Fdefault$252Fabc',
    });
    mocks.batch.on(DescribeJobsCommand).resolves({ jobs: [] });
    expect(await drivers.batch_submit_job.describe!(sub.ref)).toEqual({ state: 'gone', reason: 'DescribeJobs does not know it' });
    expect(input(mocks.batch, DescribeJobsCommand)).toEqual({ jobs: ['j-1'] });
    mocks.batch.on(TerminateJobCommand).resolves({});
    await drivers.batch_submit_job.stop!(sub.ref, 'why');
    expect(input(mocks.batch, TerminateJobCommand)).toEqual({ jobId: 'j-1', reason: 'why' });
  });
});

describe('glueStartJobRun', () => {
  it('StartJobRun; the Glue Job State Change of its run; GetJobRun (EntityNotFound: gone); BatchStopJobRun (its errors refused)', async () => {
    mocks.glue.on(GlueStart).resolves({ JobRunId: 'jr_1' });
    const sub = await drivers.glue_start_job_run.submit({ JobName: 'orders', Arguments: { '--ds': '2026-01-01' } }, ctx);
    expect(input(mocks.glue, GlueStart)).toEqual({ JobName: 'orders', Arguments: { '--ds': '2026-01-01' } });
    const end = event('aws.glue', 'Glue Job State Change', { jobName: 'orders', severity: 'ERROR', state: 'TIMEOUT', jobRunId: 'jr_1', message: 'Job run timed out' });
    expectFound(sub.wait, end);
    expect(drivers.glue_start_job_run.fromEvent(sub.ref, end)).toMatchObject({ state: 'failed', reason: 'TIMEOUT: Job run timed out' });
    mocks.glue.on(GlueGet).rejects(awsError('EntityNotFoundException', 'Job run not found'));
    expect(await drivers.glue_start_job_run.describe!(sub.ref)).toEqual({ state: 'gone', reason: 'GetJobRun: Job run not found' });
    expect(input(mocks.glue, GlueGet)).toEqual({ JobName: 'orders', RunId: 'jr_1' });
    mocks.glue.on(BatchStopJobRunCommand).resolves({ Errors: [{ JobName: 'orders', JobRunId: 'jr_1', ErrorDetail: { ErrorCode: 'InvalidInputException', ErrorMessage: 'already SUCCEEDED' } }] });
    await expect(drivers.glue_start_job_run.stop!(sub.ref, 'why')).rejects.toMatchObject({ retryable: false, message: 'glue:BatchStopJobRun refused: InvalidInputException: already SUCCEEDED' });
    expect(input(mocks.glue, BatchStopJobRunCommand)).toEqual({ JobName: 'orders', JobRunIds: ['jr_1'] });
  });
});

describe('sfnStartExecution', () => {
  const sm = 'arn:aws:states:eu-west-1:123456789012:stateMachine:pub';
  const exec = `arn:aws:states:eu-west-1:123456789012:execution:pub:${ctx.name}`;
  it('StartExecution named per try, a JSON input stringified; output parsed; DescribeExecution; StopExecution with the cause', async () => {
    mocks.sfn.on(StartExecutionCommand).resolves({ executionArn: exec, startDate: new Date() });
    const sub = await drivers.sfn_start_execution.submit({ stateMachineArn: sm, input: { date: '2026-01-01' } }, ctx);
    expect(input(mocks.sfn, StartExecutionCommand)).toEqual({ name: ctx.name, stateMachineArn: sm, input: '{"date":"2026-01-01"}' });
    expect(ctx.name.length).toBeLessThanOrEqual(80);
    const ok = event('aws.states', 'Step Functions Execution Status Change', { executionArn: exec, stateMachineArn: sm, status: 'SUCCEEDED', output: '{"rows":3}', outputDetails: { included: true } });
    expectFound(sub.wait, ok);
    expect(drivers.sfn_start_execution.fromEvent(sub.ref, ok)).toEqual({ state: 'succeeded', value: { executionArn: exec, status: 'SUCCEEDED', output: { rows: 3 } } });
    const aborted = event('aws.states', 'Step Functions Execution Status Change', { executionArn: exec, status: 'FAILED', error: 'States.Runtime', cause: 'bad path' });
    expect(drivers.sfn_start_execution.fromEvent(sub.ref, aborted)).toMatchObject({ state: 'failed', reason: 'FAILED: States.Runtime: bad path' });
    mocks.sfn.on(DescribeExecutionCommand).resolves({ executionArn: exec, status: 'RUNNING' } as any);
    expect(await drivers.sfn_start_execution.describe!(sub.ref)).toEqual({ state: 'running' });
    mocks.sfn.on(StopExecutionCommand).resolves({} as any);
    await drivers.sfn_start_execution.stop!(sub.ref, 'why');
    expect(input(mocks.sfn, StopExecutionCommand)).toEqual({ executionArn: exec, error: 'Airless.Stopped', cause: 'why' });
  });
});

describe('athenaQuery', () => {
  it('StartQueryExecution with a request token, then GetQueryExecution for the result location; the failure\'s athenaError; StopQueryExecution', async () => {
    mocks.athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    mocks.athena.on(GetQueryExecutionCommand).resolves({ QueryExecution: { QueryExecutionId: 'q-1', WorkGroup: 'reports', ResultConfiguration: { OutputLocation: 's3://results/q-1.csv' }, Status: { State: 'QUEUED' } } });
    const sub = await drivers.athena_query.submit({ QueryString: 'SELECT 1', WorkGroup: 'reports' }, ctx);
    expect(input(mocks.athena, StartQueryExecutionCommand)).toEqual({ ClientRequestToken: expect.stringMatching(/^[0-9a-f]{64}$/), QueryString: 'SELECT 1', WorkGroup: 'reports' });
    expect(input(mocks.athena, GetQueryExecutionCommand)).toEqual({ QueryExecutionId: 'q-1' });
    expect(sub.value).toEqual({ queryExecutionId: 'q-1', workGroup: 'reports', outputLocation: 's3://results/q-1.csv' });
    const failed = event('aws.athena', 'Athena Query State Change', { versionId: '0', currentState: 'FAILED', previousState: 'RUNNING', queryExecutionId: 'q-1', workgroupName: 'reports', athenaError: { errorCategory: 2, errorType: 1001, errorMessage: 'TABLE_NOT_FOUND: orders', retryable: false } });
    expectFound(sub.wait, failed);
    expect(drivers.athena_query.fromEvent(sub.ref, failed)).toMatchObject({ state: 'failed', reason: 'FAILED: TABLE_NOT_FOUND: orders' });
    mocks.athena.on(StopQueryExecutionCommand).resolves({});
    await drivers.athena_query.stop!(sub.ref, 'why');
    expect(input(mocks.athena, StopQueryExecutionCommand)).toEqual({ QueryExecutionId: 'q-1' });
  });
});

describe('emrServerlessJobRun', () => {
  it('StartJobRun with a client token and name per try; SUCCESS; GetJobRun; CancelJobRun', async () => {
    mocks.emr.on(EmrStart).resolves({ applicationId: 'app1', jobRunId: 'jr1', arn: 'arn:emr' });
    const sub = await drivers.emr_serverless_job_run.submit({ applicationId: 'app1', executionRoleArn: 'arn:role', jobDriver: { sparkSubmit: { entryPoint: 's3://c/j.py' } } }, ctx);
    expect(input(mocks.emr, EmrStart)).toEqual({ clientToken: expect.stringMatching(/^[0-9a-f]{64}$/), name: ctx.name, applicationId: 'app1', executionRoleArn: 'arn:role', jobDriver: { sparkSubmit: { entryPoint: 's3://c/j.py' } } });
    const ok = event('aws.emr-serverless', 'EMR Serverless Job Run State Change', { jobRunId: 'jr1', applicationId: 'app1', arn: 'arn:emr', state: 'SUCCESS', previousState: 'RUNNING' });
    expectFound(sub.wait, ok);
    expect(drivers.emr_serverless_job_run.fromEvent(sub.ref, ok)).toEqual({ state: 'succeeded', value: { applicationId: 'app1', jobRunId: 'jr1', state: 'SUCCESS' } });
    mocks.emr.on(GetJobRunCommand).resolves({ jobRun: { state: 'FAILED', stateDetails: 'Driver OOM' } } as any);
    expect(await drivers.emr_serverless_job_run.describe!(sub.ref)).toMatchObject({ state: 'failed', reason: 'FAILED: Driver OOM' });
    expect(input(mocks.emr, GetJobRunCommand)).toEqual({ applicationId: 'app1', jobRunId: 'jr1' });
    mocks.emr.on(CancelJobRunCommand).resolves({} as any);
    await drivers.emr_serverless_job_run.stop!(sub.ref, 'why');
    expect(input(mocks.emr, CancelJobRunCommand)).toEqual({ applicationId: 'app1', jobRunId: 'jr1' });
  });
});

describe('lambdaInvoke', () => {
  it('Invoke with InvocationType Event and the payload as JSON; the request id keys both destination results; no describe, no stop', async () => {
    mocks.lambda.on(InvokeCommand).resolves({ StatusCode: 202, $metadata: { requestId: 'req-1' } } as any);
    const sub = await drivers.lambda_invoke.submit({ FunctionName: 'resize', Payload: { date: '2026-01-01' } }, ctx);
    const sent = input(mocks.lambda, InvokeCommand);
    expect({ ...sent, Payload: new TextDecoder().decode(sent.Payload) }).toEqual({ FunctionName: 'resize', InvocationType: 'Event', Payload: '{"date":"2026-01-01"}' });
    expect(sub.ref).toEqual({ type: 'lambda_invoke', id: 'req-1', function: 'resize', region: 'eu-west-1' });
    const record = { version: '1.0', requestContext: { requestId: 'req-1', functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:resize:$LATEST', condition: 'RetriesExhausted', approximateInvokeCount: 3 }, responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' }, responsePayload: { errorType: 'Error', errorMessage: 'no such image' } };
    const failure = event('lambda', 'Lambda Function Invocation Result - Failure', record);
    const success = event('lambda', 'Lambda Function Invocation Result - Success', { ...record, requestContext: { ...record.requestContext, condition: 'Success' }, responseContext: { statusCode: 200 }, responsePayload: { resized: 2 } });
    expectFound(sub.wait, failure);
    expectFound(sub.wait, success);
    expect(drivers.lambda_invoke.fromEvent(sub.ref, failure)).toMatchObject({ state: 'failed', reason: 'RetriesExhausted: Unhandled: Error: no such image' });
    expect(drivers.lambda_invoke.fromEvent(sub.ref, success)).toMatchObject({ state: 'succeeded', value: { requestId: 'req-1', payload: { resized: 2 } } });
    expect(drivers.lambda_invoke.describe).toBeUndefined();
    expect(drivers.lambda_invoke.stop).toBeUndefined();
  });
});

describe('simulated end events (mocks) have the documented shape and are read like real ones', () => {
  it.each(Object.keys(JOB_SERVICES))('%s', (type) => {
    const s = JOB_SERVICES[type];
    const sub = s.fake({ cluster: 'ml', JobName: 'orders', stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:pub', applicationId: 'app1', FunctionName: 'resize' }, ctx, 7, 'us-east-1');
    for (const end of [{}, { fail: 'boom' }]) {
      const ev = s.endEvent(sub.ref, end, Date.UTC(2026, 0, 1));
      expect(ev).toMatchObject({ version: '0', account: '123456789012', region: 'us-east-1', time: '2026-01-01T00:00:00Z' });
      expectFound(sub.wait, ev);
      const checked = checkEventWait(sub.wait);
      expect(typeof checked).not.toBe('string');
      expect(s.fromEvent(sub.ref, ev).state).toBe(end.fail ? 'failed' : 'succeeded');
    }
  });
});
