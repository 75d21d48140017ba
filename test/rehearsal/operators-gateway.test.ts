/**
 * The job drivers the operators use (lib/operators) against the rehearsal gateway's simulated
 * services: each submit, describe and stop call is one the gateway serves and authorizes with
 * the worker's grants, and each job's end event, as the gateway publishes it, matches the wait
 * its driver asks for and reads as the driver expects (the contract between the two sides of
 * issue 20).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jobName, matchesPattern, waitPattern, type JobContext, type JobDriver, type JobSubmission } from '../../lib/engine/index.js';
import type { BusEvent, Gateway } from '../../lib/rehearsal/gateway/index.js';
import { awsJobDrivers } from '../../lib/operators/index.js';
import { jobsGateway, machine, role, worker } from './jobs-fixture.js';

describe('the operators\' job drivers against the rehearsal gateway', () => {
  let gw: Gateway;
  let events: BusEvent[];
  let advance: (ms: number) => Promise<void>;
  let drivers: Record<string, JobDriver>;
  let tries = 0;
  const ctx = (taskId: string): JobContext => {
    const n = ++tries;
    return { dagId: 'nightly', runId: `manual__${n}`, taskId, tryNumber: 1, name: jobName('nightly', `manual__${n}`, taskId, 1) };
  };
  /** The one published event the submission's wait matches, read by its driver. */
  const end = (type: string, s: JobSubmission) => {
    const matching = events.filter((e) => matchesPattern(waitPattern(s.wait), e));
    expect(matching, `${type}: one end event matches ${JSON.stringify(waitPattern(s.wait))}`).toHaveLength(1);
    return drivers[type]!.fromEvent(s.ref, matching[0] as never);
  };

  beforeAll(async () => {
    ({ gw, events, advance } = await jobsGateway());
    gw.setJobHooks({ writeObject: async () => {} });
    drivers = awsJobDrivers({ endpoint: gw.url, credentials: { accessKeyId: worker.accessKeyId, secretAccessKey: 'x' }, maxAttempts: 1 }) as Record<string, JobDriver>;
  });
  afterAll(async () => {
    await gw?.close();
  });
  beforeEach(() => {
    events.length = 0;
  });

  it('ecsRunTask: a 40-minute task that exits 0 succeeds; exit 1 fails naming the container; a stopped one fails UserInitiated', async () => {
    gw.jobs.behave({ service: 'ecs', name: 'etl' }, { durationMs: 40 * 60_000 }, { durationMs: 60_000, exitCode: 1 }, { durationMs: 60 * 60_000 });
    const d = drivers.ecs_run_task!;
    const c = ctx('train');
    const ok = await d.submit({ cluster: 'jobs', taskDefinition: 'etl', launchType: 'FARGATE' }, c);
    expect((await d.submit({ cluster: 'jobs', taskDefinition: 'etl', launchType: 'FARGATE' }, c)).ref.id).toBe(ok.ref.id);
    const bad = await d.submit({ cluster: 'jobs', taskDefinition: 'etl' }, ctx('bad'));
    const long = await d.submit({ cluster: 'jobs', taskDefinition: 'etl' }, ctx('long'));
    await advance(60_000);
    expect(end('ecs_run_task', bad)).toMatchObject({ state: 'failed', reason: expect.stringContaining('container app exited with code 1') });
    await d.stop!(long.ref, 'Airless: the task timed out');
    await advance(39 * 60_000);
    expect(end('ecs_run_task', ok)).toMatchObject({ state: 'succeeded', value: { exitCodes: { app: 0, sidecar: 0 } } });
    expect(await d.describe!(ok.ref)).toMatchObject({ state: 'succeeded' });
    expect(end('ecs_run_task', long)).toMatchObject({ state: 'failed', reason: expect.stringContaining('UserInitiated: Airless: the task timed out') });
    expect(await d.describe!({ ...ok.ref, id: ok.ref.id.replace(/[0-9a-f]{32}$/, '0'.repeat(32)) })).toMatchObject({ state: 'gone' });
  });

  it('batchSubmitJob: succeeds with its exit code and log stream; TerminateJob fails it with the reason', async () => {
    gw.jobs.behave({ service: 'batch', name: 'crunch' }, { durationMs: 10 * 60_000 }, { durationMs: 60 * 60_000 });
    const d = drivers.batch_submit_job!;
    const ok = await d.submit({ jobQueue: 'nightly', jobDefinition: 'crunch' }, ctx('crunch'));
    const long = await d.submit({ jobQueue: 'nightly', jobDefinition: 'crunch' }, ctx('crunch_long'));
    await advance(10 * 60_000);
    expect(end('batch_submit_job', ok)).toMatchObject({ state: 'succeeded' });
    expect(await d.describe!(ok.ref)).toMatchObject({ state: 'succeeded' });
    await d.stop!(long.ref, 'Airless: cleared');
    await advance(2_000);
    expect(end('batch_submit_job', long)).toMatchObject({ state: 'failed', reason: expect.stringContaining('Airless: cleared') });
  });

  it('glueStartJobRun: SUCCEEDED, and a stopped run fails STOPPED', async () => {
    gw.jobs.behave({ service: 'glue', name: 'load' }, { durationMs: 5 * 60_000 }, { durationMs: 25 * 60_000 });
    const d = drivers.glue_start_job_run!;
    const ok = await d.submit({ JobName: 'load' }, ctx('load'));
    await advance(5 * 60_000);
    expect(end('glue_start_job_run', ok)).toMatchObject({ state: 'succeeded' });
    expect(await d.describe!(ok.ref)).toMatchObject({ state: 'succeeded' });
    const long = await d.submit({ JobName: 'load' }, ctx('load_long'));
    await d.stop!(long.ref, 'Airless: the task timed out');
    await advance(5_000);
    expect(end('glue_start_job_run', long)).toMatchObject({ state: 'failed', reason: expect.stringContaining('STOPPED') });
  });

  it('sfnStartExecution: the output as XCom; a stopped execution fails ABORTED with the reason as cause', async () => {
    gw.jobs.behave({ service: 'states', name: 'orders' }, { durationMs: 60_000, output: { total: 3 } }, { durationMs: 60 * 60_000 });
    const d = drivers.sfn_start_execution!;
    const ok = await d.submit({ stateMachineArn: machine, input: { day: 1 } }, ctx('publish'));
    const long = await d.submit({ stateMachineArn: machine, input: { day: 2 } }, ctx('publish_long'));
    await advance(60_000);
    expect(end('sfn_start_execution', ok)).toMatchObject({ state: 'succeeded', value: { output: { total: 3 } } });
    await d.stop!(long.ref, 'Airless: cleared');
    await advance(1);
    expect(end('sfn_start_execution', long)).toMatchObject({ state: 'failed', reason: expect.stringContaining('ABORTED') });
    expect(await d.describe!(long.ref)).toMatchObject({ state: 'failed' });
  });

  it('athenaQuery: its result location at submit, SUCCEEDED, and a cancelled query fails', async () => {
    gw.jobs.behave({ service: 'athena', name: 'reports' }, { durationMs: 30_000 }, { durationMs: 10 * 60_000 });
    const d = drivers.athena_query!;
    const ok = await d.submit({ QueryString: 'SELECT 1', WorkGroup: 'reports' }, ctx('report'));
    expect(ok.value).toMatchObject({ outputLocation: `s3://results/athena/${ok.ref.id}.csv` });
    const long = await d.submit({ QueryString: 'SELECT 2', WorkGroup: 'reports' }, ctx('report_long'));
    await advance(30_000);
    expect(end('athena_query', ok)).toMatchObject({ state: 'succeeded' });
    await d.stop!(long.ref, 'cleared');
    await advance(1);
    expect(end('athena_query', long)).toMatchObject({ state: 'failed', reason: expect.stringContaining('CANCELLED') });
  });

  it('emrServerlessJobRun: SUCCESS, and a cancelled run fails CANCELLED', async () => {
    gw.jobs.behave({ service: 'emr-serverless', name: 'spark' }, { durationMs: 15 * 60_000 }, { durationMs: 60 * 60_000 });
    const d = drivers.emr_serverless_job_run!;
    const input = { applicationId: '00f1app', executionRoleArn: role('spark'), jobDriver: { sparkSubmit: { entryPoint: 's3://code/job.py' } } };
    const ok = await d.submit(input, ctx('spark'));
    const long = await d.submit(input, ctx('spark_long'));
    await advance(15 * 60_000);
    expect(end('emr_serverless_job_run', ok)).toMatchObject({ state: 'succeeded' });
    expect(await d.describe!(ok.ref)).toMatchObject({ state: 'succeeded' });
    await d.stop!(long.ref, 'cleared');
    await advance(3_000);
    expect(end('emr_serverless_job_run', long)).toMatchObject({ state: 'failed', reason: expect.stringContaining('CANCELLED') });
  });

  it('a call the worker may not make fails the try without retries, naming the grant', async () => {
    await expect(drivers.ecs_run_task!.submit({ cluster: 'jobs', taskDefinition: 'etl', overrides: { taskRoleArn: role('admin') } }, ctx('x'))).rejects.toMatchObject({
      retryable: false, message: expect.stringMatching(/^ecs:RunTask refused: AccessDeniedException: .*iam:PassRole.*name this resource in new Airless/),
    });
  });
});
