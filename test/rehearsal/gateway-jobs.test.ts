/**
 * The job services in the rehearsal gateway, through the real SDK clients: submit, describe and
 * stop for ECS, Batch, Glue, Step Functions, Athena and EMR Serverless, and Lambda's Invoke;
 * each authorized against a role's policies (iam:PassRole where AWS checks it), answered with
 * AWS's errors, and each job's state changes published to the default bus in the documented
 * shape, on a virtual clock the test moves.
 */
import { AthenaClient, GetQueryExecutionCommand, StartQueryExecutionCommand, StopQueryExecutionCommand } from '@aws-sdk/client-athena';
import { BatchClient, DescribeJobsCommand, SubmitJobCommand, TerminateJobCommand } from '@aws-sdk/client-batch';
import { DescribeTasksCommand, ECSClient, RunTaskCommand, StopTaskCommand } from '@aws-sdk/client-ecs';
import { CancelJobRunCommand, EMRServerlessClient, GetJobRunCommand as GetEmrRunCommand, StartJobRunCommand as StartEmrRunCommand } from '@aws-sdk/client-emr-serverless';
import { BatchStopJobRunCommand, GetJobRunCommand, GlueClient, StartJobRunCommand } from '@aws-sdk/client-glue';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BusEvent, Gateway } from '../../lib/rehearsal/gateway/index.js';
import { A, app, cluster, fn, jobDef, jobsGateway, machine, queue, role, taskDef, worker } from './jobs-fixture.js';

describe('rehearsal gateway: job services', () => {
  let gw: Gateway;
  let events: BusEvent[] = [];
  let advance: (ms: number) => Promise<void>;
  let clock: () => number;
  const written = new Map<string, string>();
  const invoked: { arn: string; payload: unknown; type: string }[] = [];
  const clients: { destroy(): void }[] = [];
  const client = <T extends { destroy(): void }>(make: (o: object) => T, key = worker.accessKeyId): T => {
    const c = make({ endpoint: gw.url, region: 'us-east-1', maxAttempts: 1, credentials: { accessKeyId: key, secretAccessKey: 'x' } });
    clients.push(c);
    return c;
  };
  let ecs: ECSClient, batch: BatchClient, glue: GlueClient, sfn: SFNClient, athena: AthenaClient, emr: EMRServerlessClient, lambda: LambdaClient;

  const of = (source: string) => events.filter((e) => e.source === source);

  beforeAll(async () => {
    ({ gw, events, advance, now: clock } = await jobsGateway());
    gw.setJobHooks({
      writeObject: async (bucket, key, body) => void written.set(`${bucket}/${key}`, body),
      lambda: {
        arnOf: (n) => (n === 'scorer' || n === fn ? fn : undefined),
        invoke: async (arn, payload, type) => {
          invoked.push({ arn, payload, type });
          return (payload as { fail?: boolean }).fail ? { error: { errorType: 'Error', errorMessage: 'boom' } } : { result: { score: 0.9 } };
        },
      },
    });
    ecs = client((o) => new ECSClient(o));
    batch = client((o) => new BatchClient(o));
    glue = client((o) => new GlueClient(o));
    sfn = client((o) => new SFNClient(o));
    athena = client((o) => new AthenaClient(o));
    emr = client((o) => new EMRServerlessClient(o));
    lambda = client((o) => new LambdaClient(o));
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await gw?.close();
  });
  beforeEach(() => {
    events.length = 0;
  });

  it('ECS: a 40-minute task runs to exit code 0, each change an "ECS Task State Change" with the Task as detail', async () => {
    gw.jobs.behave({ service: 'ecs', name: 'etl' }, { durationMs: 40 * 60_000, exitCode: 0 });
    const started = clock();
    const run = await ecs.send(new RunTaskCommand({ cluster: 'jobs', taskDefinition: 'etl', launchType: 'FARGATE', overrides: { containerOverrides: [{ name: 'app', command: ['go'] }] } }));
    const task = run.tasks![0]!;
    expect(task).toMatchObject({ clusterArn: cluster, taskDefinitionArn: taskDef, lastStatus: 'PROVISIONING', desiredStatus: 'RUNNING', launchType: 'FARGATE', group: 'family:etl' });
    expect(task.taskArn).toMatch(new RegExp(`^arn:aws:ecs:${A}:task/jobs/[0-9a-f]{32}$`));
    expect(task.createdAt).toEqual(new Date(started));
    expect(gw.decisions.filter((d) => d.principal === 'Worker').slice(-3).map((d) => [d.action, d.resource, d.context?.['iam:PassedToService'] ?? d.context?.['ecs:cluster']])).toEqual([
      ['ecs:RunTask', taskDef, cluster], ['iam:PassRole', role('etl-task'), 'ecs-tasks.amazonaws.com'], ['iam:PassRole', role('etl-exec'), 'ecs-tasks.amazonaws.com'],
    ]);
    await advance(10 * 60_000);
    const mid = await ecs.send(new DescribeTasksCommand({ cluster: 'jobs', tasks: [task.taskArn!.split('/').pop()!, 'missing0'] }));
    expect(mid.tasks![0]).toMatchObject({ lastStatus: 'RUNNING', startedAt: new Date(started + 2_000) });
    expect(mid.failures).toEqual([{ arn: `arn:aws:ecs:${A}:task/jobs/missing0`, reason: 'MISSING' }]);
    await advance(30 * 60_000);
    const changes = of('aws.ecs');
    expect(changes.map((e) => (e.detail as { lastStatus: string }).lastStatus)).toEqual(['PROVISIONING', 'PENDING', 'RUNNING', 'DEPROVISIONING', 'STOPPED']);
    expect(changes.map((e) => (e.detail as { version: number }).version)).toEqual([1, 2, 3, 4, 5]);
    const stopped = changes.at(-1)!;
    expect(stopped).toMatchObject({ 'detail-type': 'ECS Task State Change', resources: [task.taskArn], time: '2026-01-01T00:40:00Z' });
    expect(stopped.detail).toMatchObject({
      taskArn: task.taskArn, clusterArn: cluster, lastStatus: 'STOPPED', desiredStatus: 'STOPPED', stopCode: 'EssentialContainerExited', stoppedReason: 'Essential container in task exited',
      stoppedAt: new Date(started + 40 * 60_000).toISOString(), createdAt: new Date(started).toISOString(),
      containers: [expect.objectContaining({ name: 'app', exitCode: 0, lastStatus: 'STOPPED' }), expect.objectContaining({ name: 'sidecar', exitCode: 0 })],
      overrides: { containerOverrides: [{ name: 'app', command: ['go'] }] },
    });
  });

  it('ECS: exit code 1 fails; StopTask stops with UserInitiated and SIGTERM\'s code; AWS\'s errors', async () => {
    gw.jobs.behave({ service: 'ecs' }, { durationMs: 5 * 60_000, exitCode: 1, reason: 'OutOfMemoryError: Container killed due to memory usage' }, { durationMs: 60 * 60_000 });
    const failing = (await ecs.send(new RunTaskCommand({ cluster: cluster, taskDefinition: taskDef }))).tasks![0]!;
    const long = (await ecs.send(new RunTaskCommand({ cluster: 'jobs', taskDefinition: 'etl:3' }))).tasks![0]!;
    await advance(5 * 60_000);
    const failed = of('aws.ecs').filter((e) => (e.detail as { taskArn: string }).taskArn === failing.taskArn).at(-1)!.detail as Record<string, any>;
    expect(failed).toMatchObject({ lastStatus: 'STOPPED', stoppedReason: 'OutOfMemoryError: Container killed due to memory usage', containers: [expect.objectContaining({ name: 'app', exitCode: 1 }), expect.anything()] });
    const stopped = await ecs.send(new StopTaskCommand({ cluster: 'jobs', task: long.taskArn, reason: 'Airless: task timed out' }));
    expect(stopped.task).toMatchObject({ desiredStatus: 'STOPPED', stopCode: 'UserInitiated', stoppedReason: 'Airless: task timed out' });
    await advance(2_000);
    const last = of('aws.ecs').at(-1)!.detail as Record<string, any>;
    expect(last).toMatchObject({ taskArn: long.taskArn, lastStatus: 'STOPPED', stopCode: 'UserInitiated', containers: [expect.objectContaining({ exitCode: 143 }), expect.anything()] });

    await expect(ecs.send(new RunTaskCommand({ cluster: 'nope', taskDefinition: 'etl' }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    const admin = client((o) => new ECSClient(o), 'AKIACLI');
    await expect(admin.send(new RunTaskCommand({ cluster: 'nope', taskDefinition: 'etl' }))).rejects.toMatchObject({ name: 'ClusterNotFoundException', message: 'Cluster not found.' });
    await expect(admin.send(new RunTaskCommand({ cluster: 'jobs', taskDefinition: 'ghost' }))).rejects.toMatchObject({ name: 'InvalidParameterException', message: 'TaskDefinition not found.' });
    await expect(ecs.send(new RunTaskCommand({ cluster: 'jobs', taskDefinition: 'etl', overrides: { containerOverrides: [{ name: 'web' }] } }))).rejects.toMatchObject({ name: 'InvalidParameterException', message: 'Override for container named web is not a container in the TaskDefinition.' });
    await expect(ecs.send(new RunTaskCommand({ cluster: 'jobs', taskDefinition: 'etl', overrides: { taskRoleArn: role('admin') } }))).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining('iam:PassRole') });
    await expect(ecs.send(new StopTaskCommand({ cluster: 'jobs', task: 'f'.repeat(32) }))).rejects.toMatchObject({ name: 'InvalidParameterException', message: 'The referenced task was not found.' });
  });

  it('Batch: SubmitJob to SUCCEEDED ("Batch Job State Change" from PENDING on, JobDetail as detail); TerminateJob fails it with the reason', async () => {
    gw.jobs.behave({ service: 'batch', name: 'crunch' }, { durationMs: 20 * 60_000 }, { durationMs: 20 * 60_000 });
    const sub = await batch.send(new SubmitJobCommand({ jobName: 'nightly-1', jobQueue: 'nightly', jobDefinition: 'crunch', containerOverrides: { command: ['run', '--full'] } }));
    expect(sub.jobArn).toBe(`arn:aws:batch:${A}:job/${sub.jobId}`);
    await advance(20 * 60_000);
    const changes = of('aws.batch');
    expect(changes.map((e) => (e.detail as { status: string }).status)).toEqual(['PENDING', 'RUNNABLE', 'STARTING', 'RUNNING', 'SUCCEEDED']);
    expect(changes.at(-1)).toMatchObject({ 'detail-type': 'Batch Job State Change', resources: [sub.jobArn] });
    expect(changes.at(-1)!.detail).toMatchObject({ jobId: sub.jobId, jobName: 'nightly-1', jobQueue: queue, jobDefinition: jobDef, container: { exitCode: 0, command: ['run', '--full'], logStreamName: expect.stringMatching(/^crunch\/default\//) }, stoppedAt: clock() });
    const second = await batch.send(new SubmitJobCommand({ jobName: 'nightly-2', jobQueue: queue, jobDefinition: 'crunch:2' }));
    await advance(10 * 60_000);
    await batch.send(new TerminateJobCommand({ jobId: second.jobId, reason: 'Airless: task cleared' }));
    await advance(2_000);
    const described = await batch.send(new DescribeJobsCommand({ jobs: [second.jobId!, 'unknown'] }));
    expect(described.jobs).toHaveLength(1);
    expect(described.jobs![0]).toMatchObject({ status: 'FAILED', statusReason: 'Airless: task cleared', isTerminated: true, container: { exitCode: 143 } });
    await expect(batch.send(new SubmitJobCommand({ jobName: 'x', jobQueue: 'other', jobDefinition: 'crunch' }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    const admin = client((o) => new BatchClient(o), 'AKIACLI');
    await expect(admin.send(new SubmitJobCommand({ jobName: 'x', jobQueue: 'other', jobDefinition: 'crunch' }))).rejects.toMatchObject({ name: 'ClientException', message: 'JobQueue other not found.' });
  });

  it('Glue: runs end SUCCEEDED, TIMEOUT past the job\'s timeout, STOPPED when stopped; only end states are events', async () => {
    gw.jobs.behave({ service: 'glue', name: 'load' }, { durationMs: 10 * 60_000 }, { durationMs: 2 * 60 * 60_000 }, { durationMs: 60 * 60_000 });
    const a = await glue.send(new StartJobRunCommand({ JobName: 'load', Arguments: { '--day': '2026-01-01' } }));
    expect(a.JobRunId).toMatch(/^jr_[0-9a-f]{64}$/);
    await expect(glue.send(new StartJobRunCommand({ JobName: 'load' }))).rejects.toMatchObject({ name: 'ConcurrentRunsExceededException' });
    await advance(10 * 60_000);
    const b = await glue.send(new StartJobRunCommand({ JobName: 'load' }));
    await advance(30 * 60_000);
    const c = await glue.send(new StartJobRunCommand({ JobName: 'load' }));
    await advance(60_000);
    const stop = await glue.send(new BatchStopJobRunCommand({ JobName: 'load', JobRunIds: [c.JobRunId!, a.JobRunId!] }));
    expect(stop.SuccessfulSubmissions).toEqual([{ JobName: 'load', JobRunId: c.JobRunId }]);
    expect(stop.Errors![0]).toMatchObject({ JobRunId: a.JobRunId });
    await advance(5_000);
    expect(of('aws.glue').map((e) => [e['detail-type'], e.detail])).toEqual([
      ['Glue Job State Change', { jobName: 'load', severity: 'INFO', state: 'SUCCEEDED', jobRunId: a.JobRunId, message: 'Job run succeeded' }],
      ['Glue Job State Change', { jobName: 'load', severity: 'WARN', state: 'TIMEOUT', jobRunId: b.JobRunId, message: 'Job run timed out after 30 minutes' }],
      ['Glue Job State Change', { jobName: 'load', severity: 'INFO', state: 'STOPPED', jobRunId: c.JobRunId, message: 'Job run stopped' }],
    ]);
    const run = (await glue.send(new GetJobRunCommand({ JobName: 'load', RunId: a.JobRunId }))).JobRun!;
    expect(run).toMatchObject({ JobRunState: 'SUCCEEDED', ExecutionTime: 600, Arguments: { '--day': '2026-01-01' }, Timeout: 30 });
    await expect(glue.send(new GetJobRunCommand({ JobName: 'load', RunId: 'jr_0' }))).rejects.toMatchObject({ name: 'EntityNotFoundException' });
    const admin = client((o) => new GlueClient(o), 'AKIACLI');
    await expect(admin.send(new StartJobRunCommand({ JobName: 'ghost' }))).rejects.toMatchObject({ name: 'EntityNotFoundException', message: 'Job with name: ghost not found' });
  });

  it('Step Functions: RUNNING and the end as "Step Functions Execution Status Change"; failures carry error and cause; StopExecution aborts', async () => {
    gw.jobs.behave({ service: 'states', name: 'orders' }, { durationMs: 90_000, output: { total: 3 } }, { durationMs: 60_000, outcome: 'fail', error: 'Orders.Invalid', reason: 'order 7 has no lines' }, { durationMs: 600_000 });
    const ok1 = await sfn.send(new StartExecutionCommand({ stateMachineArn: machine, name: 'day-1', input: '{"day":1}' }));
    expect(ok1.executionArn).toBe(`arn:aws:states:${A}:execution:orders:day-1`);
    expect(await sfn.send(new StartExecutionCommand({ stateMachineArn: machine, name: 'day-1', input: '{"day":1}' }))).toMatchObject({ executionArn: ok1.executionArn });
    await expect(sfn.send(new StartExecutionCommand({ stateMachineArn: machine, name: 'day-1', input: '{"day":2}' }))).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
    const bad = await sfn.send(new StartExecutionCommand({ stateMachineArn: machine, name: 'day-2' }));
    const long = await sfn.send(new StartExecutionCommand({ stateMachineArn: machine, name: 'day-3' }));
    await advance(90_000);
    await sfn.send(new StopExecutionCommand({ executionArn: long.executionArn, error: 'Airless.Timeout', cause: 'task timed out' }));
    await advance(1);
    const byName = (n: string) => of('aws.states').filter((e) => (e.detail as { name: string }).name === n).map((e) => e.detail as Record<string, unknown>);
    expect(byName('day-1').map((d) => d.status)).toEqual(['RUNNING', 'SUCCEEDED']);
    expect(byName('day-1')[1]).toMatchObject({ executionArn: ok1.executionArn, stateMachineArn: machine, output: '{"total":3}', input: '{"day":1}', error: null, stopDate: expect.any(Number) });
    expect(byName('day-2')[1]).toMatchObject({ status: 'FAILED', error: 'Orders.Invalid', cause: 'order 7 has no lines', output: null });
    expect(byName('day-3')[1]).toMatchObject({ status: 'ABORTED', error: 'Airless.Timeout', cause: 'task timed out' });
    expect(await sfn.send(new DescribeExecutionCommand({ executionArn: bad.executionArn }))).toMatchObject({ status: 'FAILED', error: 'Orders.Invalid' });
    await expect(sfn.send(new DescribeExecutionCommand({ executionArn: `arn:aws:states:${A}:execution:orders:none` }))).rejects.toMatchObject({ name: 'ExecutionDoesNotExist' });
    const admin = client((o) => new SFNClient(o), 'AKIACLI');
    await expect(admin.send(new StartExecutionCommand({ stateMachineArn: `arn:aws:states:${A}:stateMachine:ghost` }))).rejects.toMatchObject({ name: 'StateMachineDoesNotExist' });
  });

  it('Athena: the result is written where the workgroup says, with the caller\'s rights; state changes numbered; failures carry athenaError', async () => {
    gw.jobs.behave({ service: 'athena', name: 'reports' }, { durationMs: 30_000, output: '"day","n"\n"2026-01-01","42"\n' }, { durationMs: 10_000, outcome: 'fail', reason: 'TABLE_NOT_FOUND: Table awsdatacatalog.db.x does not exist' });
    const q = await athena.send(new StartQueryExecutionCommand({ QueryString: 'SELECT day, n FROM daily', WorkGroup: 'reports', ResultConfiguration: { OutputLocation: 's3://elsewhere/' } }));
    await advance(30_000);
    const got = (await athena.send(new GetQueryExecutionCommand({ QueryExecutionId: q.QueryExecutionId }))).QueryExecution!;
    expect(got).toMatchObject({ Status: { State: 'SUCCEEDED' }, ResultConfiguration: { OutputLocation: `s3://results/athena/${q.QueryExecutionId}.csv` }, StatementType: 'DML', WorkGroup: 'reports' });
    expect(written.get(`results/athena/${q.QueryExecutionId}.csv`)).toBe('"day","n"\n"2026-01-01","42"\n');
    expect(gw.decisions.filter((d) => d.principal === 'Worker' && d.action.startsWith('s3:')).map((d) => d.action)).toEqual([
      's3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads', 's3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts', 's3:PutObject',
    ]);
    expect(of('aws.athena').map((e) => e.detail)).toEqual([
      { currentState: 'QUEUED', queryExecutionId: q.QueryExecutionId, sequenceNumber: '1', statementType: 'DML', versionId: '0', workgroupName: 'reports' },
      { currentState: 'RUNNING', previousState: 'QUEUED', queryExecutionId: q.QueryExecutionId, sequenceNumber: '2', statementType: 'DML', versionId: '0', workgroupName: 'reports' },
      { currentState: 'SUCCEEDED', previousState: 'RUNNING', queryExecutionId: q.QueryExecutionId, sequenceNumber: '3', statementType: 'DML', versionId: '0', workgroupName: 'reports' },
    ]);
    const f = await athena.send(new StartQueryExecutionCommand({ QueryString: 'SELECT * FROM x', WorkGroup: 'reports' }));
    await advance(10_000);
    expect(of('aws.athena').at(-1)!.detail).toMatchObject({ currentState: 'FAILED', athenaError: { errorCategory: 2, errorMessage: 'TABLE_NOT_FOUND: Table awsdatacatalog.db.x does not exist', retryable: false } });
    const s = await athena.send(new StartQueryExecutionCommand({ QueryString: 'SELECT 1', WorkGroup: 'reports' }));
    await athena.send(new StopQueryExecutionCommand({ QueryExecutionId: s.QueryExecutionId }));
    await advance(1);
    expect((await athena.send(new GetQueryExecutionCommand({ QueryExecutionId: s.QueryExecutionId }))).QueryExecution!.Status!.State).toBe('CANCELLED');
    expect((await athena.send(new GetQueryExecutionCommand({ QueryExecutionId: f.QueryExecutionId }))).QueryExecution!.Status).toMatchObject({ State: 'FAILED', AthenaError: { ErrorCategory: 2 } });
    const admin = client((o) => new AthenaClient(o), 'AKIACLI');
    await expect(admin.send(new StartQueryExecutionCommand({ QueryString: 'SELECT 1' }))).rejects.toMatchObject({ name: 'InvalidRequestException', message: expect.stringContaining('No output location provided') });
    await expect(admin.send(new StartQueryExecutionCommand({ QueryString: 'SELECT 1', WorkGroup: 'ghost' }))).rejects.toMatchObject({ name: 'InvalidRequestException', message: 'WorkGroup ghost is not found.' });
  });

  it('Athena: a caller without rights on the result location fails its query (Athena writes with the caller\'s rights), not the call', async () => {
    gw.jobs.behave({ service: 'athena', name: 'adhoc' }, { durationMs: 5_000 }, { durationMs: 5_000 });
    const denied = await athena.send(new StartQueryExecutionCommand({ QueryString: 'SELECT 1', WorkGroup: 'adhoc', ResultConfiguration: { OutputLocation: 's3://elsewhere/q' } }));
    const admin = client((o) => new AthenaClient(o), 'AKIACLI');
    const allowed = await admin.send(new StartQueryExecutionCommand({ QueryString: 'SELECT 1', WorkGroup: 'adhoc', ResultConfiguration: { OutputLocation: 's3://elsewhere/q' } }));
    await advance(5_000);
    expect((await athena.send(new GetQueryExecutionCommand({ QueryExecutionId: denied.QueryExecutionId }))).QueryExecution!.Status).toMatchObject({
      State: 'FAILED', StateChangeReason: `Access denied when writing output to url: s3://elsewhere/q/${denied.QueryExecutionId}.csv (s3:GetBucketLocation)`,
    });
    expect((await admin.send(new GetQueryExecutionCommand({ QueryExecutionId: allowed.QueryExecutionId }))).QueryExecution!.Status!.State).toBe('SUCCEEDED');
    expect(written.has(`elsewhere/q/${allowed.QueryExecutionId}.csv`)).toBe(true);
    expect(written.has(`elsewhere/q/${denied.QueryExecutionId}.csv`)).toBe(false);
  });

  it('EMR Serverless: StartJobRun passes the execution role; SUBMITTED … SUCCESS and CANCELLING, CANCELLED as events', async () => {
    gw.jobs.behave({ service: 'emr-serverless', name: 'spark' }, { durationMs: 15 * 60_000 }, { durationMs: 60 * 60_000 });
    const driver = { sparkSubmit: { entryPoint: 's3://code/job.py' } };
    const a = await emr.send(new StartEmrRunCommand({ applicationId: '00f1app', executionRoleArn: role('spark'), clientToken: 't1', jobDriver: driver, name: 'daily' }));
    expect(a.arn).toBe(`${app}/jobruns/${a.jobRunId}`);
    expect(gw.decisions.filter((d) => d.principal === 'Worker').slice(-2).map((d) => [d.action, d.context?.['iam:PassedToService']])).toEqual([['emr-serverless:StartJobRun', undefined], ['iam:PassRole', 'emr-serverless.amazonaws.com']]);
    await advance(15 * 60_000);
    const b = await emr.send(new StartEmrRunCommand({ applicationId: '00f1app', executionRoleArn: role('spark'), clientToken: 't2', jobDriver: driver }));
    await advance(60_000);
    await emr.send(new CancelJobRunCommand({ applicationId: '00f1app', jobRunId: b.jobRunId }));
    await advance(3_000);
    const states = (id: string) => of('aws.emr-serverless').filter((e) => (e.detail as { jobRunId: string }).jobRunId === id).map((e) => (e.detail as { state: string }).state);
    expect(states(a.jobRunId!)).toEqual(['SUBMITTED', 'PENDING', 'SCHEDULED', 'RUNNING', 'SUCCESS']);
    expect(states(b.jobRunId!)).toEqual(['SUBMITTED', 'PENDING', 'SCHEDULED', 'RUNNING', 'CANCELLING', 'CANCELLED']);
    expect(of('aws.emr-serverless').find((e) => (e.detail as { state: string }).state === 'SUCCESS')).toMatchObject({
      'detail-type': 'EMR Serverless Job Run State Change',
      detail: { jobRunId: a.jobRunId, jobRunName: 'daily', applicationId: '00f1app', arn: a.arn, releaseLabel: 'emr-7.1.0', previousState: 'RUNNING', createdBy: 'arn:aws:sts::000000000000:assumed-role/Worker/Worker' },
    });
    expect((await emr.send(new GetEmrRunCommand({ applicationId: '00f1app', jobRunId: a.jobRunId }))).jobRun).toMatchObject({ state: 'SUCCESS', executionRole: role('spark') });
    await expect(emr.send(new StartEmrRunCommand({ applicationId: '00f1app', executionRoleArn: role('admin'), clientToken: 't3', jobDriver: driver }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    const admin = client((o) => new EMRServerlessClient(o), 'AKIACLI');
    await expect(admin.send(new GetEmrRunCommand({ applicationId: 'ghost', jobRunId: 'x' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException', message: 'Application ghost does not exist' });
  });

  it('Lambda: Invoke as Event is queued (202), RequestResponse answers the result or the function error; an unknown function is 404', async () => {
    const queued = await lambda.send(new InvokeCommand({ FunctionName: 'scorer', InvocationType: 'Event', Payload: Buffer.from('{"row":1}') }));
    expect(queued.StatusCode).toBe(202);
    expect(invoked.at(-1)).toEqual({ arn: fn, payload: { row: 1 }, type: 'Event' });
    const sync = await lambda.send(new InvokeCommand({ FunctionName: fn, Payload: Buffer.from('{"row":2}') }));
    expect(JSON.parse(Buffer.from(sync.Payload!).toString())).toEqual({ score: 0.9 });
    const failed = await lambda.send(new InvokeCommand({ FunctionName: fn, Payload: Buffer.from('{"fail":true}') }));
    expect(failed.FunctionError).toBe('Unhandled');
    await expect(lambda.send(new InvokeCommand({ FunctionName: 'other' }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    const admin = client((o) => new LambdaClient(o), 'AKIACLI');
    await expect(admin.send(new InvokeCommand({ FunctionName: 'other' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  it('answerAfterEvents: the submit call is answered only once the job ended and its events were delivered', async () => {
    gw.jobs.behave({ service: 'batch', name: 'quick' }, { durationMs: 0, answerAfterEvents: true });
    const stepping = setInterval(() => void gw.jobs.runDue(clock() + 10_000).then(() => gw.events.runDue(clock() + 10_000)), 5);
    try {
      const sub = await batch.send(new SubmitJobCommand({ jobName: 'quick', jobQueue: 'nightly', jobDefinition: 'crunch' }));
      const statuses = of('aws.batch').filter((e) => (e.detail as { jobId: string }).jobId === sub.jobId).map((e) => (e.detail as { status: string }).status);
      expect(statuses).toEqual(['PENDING', 'RUNNABLE', 'STARTING', 'RUNNING', 'SUCCEEDED']);
    } finally {
      clearInterval(stepping);
    }
  });
});
