/**
 * Operators' jobs end to end on the engine (memory store and DynamoDB Local): submit in
 * the try, wait for the end event with nothing running, the outcome as XCom or as a
 * failure in the service's words, retries, the timeout that stops the job, the safety net
 * for a lost event, a job that vanished, and bad input that is not retried.
 */
import { describe, expect, it } from 'vitest';
import { AirlessError } from '../../../lib/engine/index.js';
import { dag, ecsRunTask, glueStartJobRun, sfnStartExecution, athenaQuery, batchSubmitJob, lambdaInvoke, emrServerlessJobRun } from '../../../lib/sdk/index.js';
import { jobRuntime, MIN } from '../../helpers/jobs.js';
import { T0 } from '../../helpers/runtime.js';

const ecsInput = { cluster: 'ml', taskDefinition: 'train:3', launchType: 'FARGATE' as const, overrides: { containerOverrides: [{ name: 'main', command: ['train', '{{ ds }}'] }] } };

describe('operators wait for their job\'s end event', () => {
  it('a 40-minute ECS task: submitted with its templated input, nothing runs while it runs, exit code 0 succeeds with its XCom', async () => {
    const d = dag('ecs40', {}, ({ task }) => {
      const train = task('train', ecsRunTask(ecsInput));
      task('after', async (ctx) => (await ctx.xcom.pull<{ taskArn: string }>('train')).taskArn).after(train);
    });
    const { run, jobs, rt } = await jobRuntime([d], { ecs_run_task: () => ({ after: '40m' }) });
    const r = await run('ecs40');
    expect(r.run.state).toBe('success');
    expect(jobs.calls).toHaveLength(1);
    expect(jobs.calls[0].input).toMatchObject({ cluster: 'ml', overrides: { containerOverrides: [{ command: ['train', '2026-01-01'] }] } });
    const value = (await r.xcom('train')) as Record<string, unknown>;
    expect(value).toMatchObject({ taskArn: jobs.calls[0].ref.id, exitCodes: { main: 0 }, stoppedReason: 'Essential container in task exited' });
    expect(await r.xcom('after')).toBe(jobs.calls[0].ref.id);
    // One try; the wait ended by the event at 40 minutes; the safety net described it twice (15 and 30 minutes in).
    expect(r.tasks.train.tryNumber).toBe(1);
    expect(r.tasks.train.endedAt! - T0).toBeGreaterThanOrEqual(40 * MIN);
    expect(jobs.calls[0].describes).toBe(2);
    expect(rt.metrics.get('TriggersFired')).toBe(1);
    expect(rt.metrics.get('JobsStopped') ?? 0).toBe(0);
  });

  it('exit code 1 fails the try with the stop reason and exit code, and the retry submits a new job', async () => {
    const d = dag('ecsfail', {}, ({ task }) => { task('train', ecsRunTask(ecsInput), { retries: 1, retryDelay: '1m' }); });
    let n = 0;
    const { run, jobs } = await jobRuntime([d], { ecs_run_task: () => (++n === 1 ? { after: '5m', fail: 'Essential container in task exited' } : { after: '5m' }) });
    const r = await run('ecsfail');
    expect(r.run.state).toBe('success');
    expect(jobs.calls.map((c) => c.tryNumber)).toEqual([1, 2]);
    expect(r.tasks.train.tryNumber).toBe(2);
    expect(jobs.calls[0].ref.id).not.toBe(jobs.calls[1].ref.id);
  });

  it('a failure is one line in the service\'s words, for each operator', async () => {
    const d = dag('fails', {}, ({ task }) => {
      task('ecs', ecsRunTask(ecsInput));
      task('batch', batchSubmitJob({ jobQueue: 'q', jobDefinition: 'd' }));
      task('glue', glueStartJobRun({ JobName: 'orders' }));
      task('sfn', sfnStartExecution({ stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:pub', input: { a: 1 } }));
      task('athena', athenaQuery({ QueryString: 'SELECT 1', WorkGroup: 'wg' }));
      task('emr', emrServerlessJobRun({ applicationId: 'app1', executionRoleArn: 'arn:aws:iam::123456789012:role/r', jobDriver: { sparkSubmit: { entryPoint: 's3://code/job.py' } } }));
      task('fn', lambdaInvoke({ FunctionName: 'resize', Payload: { a: 1 } }));
    });
    const fail = () => ({ after: '2m', fail: 'boom at line 3' });
    const { run } = await jobRuntime([d], {
      ecs_run_task: fail, batch_submit_job: fail, glue_start_job_run: fail, sfn_start_execution: fail, athena_query: fail, emr_serverless_job_run: fail, lambda_invoke: fail,
    });
    const r = await run('fails');
    expect(r.run.state).toBe('failed');
    const errors = Object.fromEntries(Object.entries(r.tasks).map(([k, t]) => [k, t.error]));
    expect(errors.ecs).toMatch(/^ecs_run_task job arn:aws:ecs:.+ failed: container main exited with code 1: EssentialContainerExited: boom at line 3$/);
    expect(errors.batch).toMatch(/^batch_submit_job job .+ failed: boom at line 3: exit code 1$/);
    expect(errors.glue).toMatch(/^glue_start_job_run job jr_0+\d failed: FAILED: boom at line 3$/);
    expect(errors.sfn).toMatch(/failed: FAILED: States\.TaskFailed: boom at line 3$/);
    expect(errors.athena).toMatch(/failed: FAILED: boom at line 3$/);
    expect(errors.emr).toMatch(/failed: FAILED: boom at line 3$/);
    expect(errors.fn).toMatch(/failed: RetriesExhausted: Unhandled: Error: boom at line 3$/);
    for (const e of Object.values(errors)) expect(e).not.toContain('\n');
  });

  it('outcomes as XCom: Step Functions output, Athena result location pulled downstream, Lambda payload', async () => {
    const d = dag('values', {}, ({ task }) => {
      task('sfn', sfnStartExecution({ stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:pub' }));
      const q = task('athena', athenaQuery({ QueryString: "SELECT * FROM t WHERE ds = '{{ ds }}'", ResultConfiguration: { OutputLocation: 's3://results/q/' } }));
      task('read', async (ctx) => (await ctx.xcom.pull<{ outputLocation: string }>('athena')).outputLocation).after(q);
      task('fn', lambdaInvoke({ FunctionName: 'resize' }));
    });
    const { run, jobs } = await jobRuntime([d], {
      sfn_start_execution: () => ({ after: '1m', output: { rows: 3 } }),
      athena_query: () => ({ after: '1m' }),
      lambda_invoke: () => ({ after: '10s', output: { resized: 12 } }),
    });
    const r = await run('values');
    expect(r.run.state).toBe('success');
    expect(await r.xcom('sfn')).toMatchObject({ status: 'SUCCEEDED', output: { rows: 3 } });
    const athena = jobs.calls.find((c) => c.type === 'athena_query')!;
    expect(await r.xcom('read')).toBe(`s3://results/q/${athena.ref.id}.csv`);
    expect(await r.xcom('fn')).toMatchObject({ functionName: 'resize', payload: { resized: 12 } });
  });

  it('waitForCompletion: false succeeds at submit with the job\'s ids', async () => {
    const d = dag('nowait', {}, ({ task }) => { task('glue', glueStartJobRun({ JobName: 'orders' }, { waitForCompletion: false })); });
    const { run, jobs } = await jobRuntime([d], { glue_start_job_run: () => ({ hang: true }) });
    const r = await run('nowait');
    expect(r.run.state).toBe('success');
    expect(await r.xcom('glue')).toMatchObject({ jobName: 'orders', jobRunId: jobs.calls[0].ref.id });
  });
});

describe('a job that ends before its wait is stored', () => {
  it('a one-second job whose end event arrives while the try is still submitting resumes the task at registration', async () => {
    const { makeRuntime } = await import('../../helpers/runtime.js');
    const { JOB_SERVICES } = await import('../../../lib/operators/index.js');
    const ecs = JOB_SERVICES.ecs_run_task;
    let rt!: Awaited<ReturnType<typeof makeRuntime>>['rt'];
    const reports: string[] = [];
    // The end event is handled (and finds no wait yet) before submit even returns.
    const driver = {
      submit: async (input: unknown, ctx: Parameters<typeof ecs.fake>[1]) => {
        const sub = ecs.fake(input as Record<string, unknown>, ctx, 1, 'us-east-1');
        reports.push((await rt.putEvent(ecs.endEvent(sub.ref, {}, rt.clock.now()))).outcome);
        return sub;
      },
      fromEvent: ecs.fromEvent,
      describe: async () => ({ state: 'running' as const }),
    };
    const d = dag('early', {}, ({ task }) => { task('t', ecsRunTask(ecsInput)); });
    ({ rt } = await makeRuntime([d], { jobs: { ecs_run_task: driver } }));
    const run = await rt.trigger('early');
    expect(await rt.runToCompletion('early', run.runId)).toBe('done');
    expect(reports).toEqual(['unmatched']);
    const ti = (await rt.ports.store.getTask({ dagId: 'early', runId: run.runId, taskId: 't' }))!;
    expect([ti.state, ti.tryNumber]).toEqual(['success', 1]);
    expect(rt.metrics.get('EarlyEventsMatched')).toBe(1);
    // Resumed at once: no safety-net interval passed.
    expect(ti.endedAt! - T0).toBeLessThan(MIN);
  });
});

describe('operators stop their job', () => {
  it('the timeout fails the try and stops the job (a Glue job stopped by its task\'s timeout), then the retry runs', async () => {
    const d = dag('gtimeout', {}, ({ task }) => { task('etl', glueStartJobRun({ JobName: 'orders' }, { timeout: '1h' }), { retries: 1, retryDelay: '1m' }); });
    let n = 0;
    const { run, jobs, rt } = await jobRuntime([d], { glue_start_job_run: () => (++n === 1 ? { hang: true } : { after: '10m' }) });
    const r = await run('gtimeout');
    expect(r.run.state).toBe('success');
    expect(jobs.calls[0].stopped).toMatch(/^Airless gtimeout\/.+\/etl: timed out waiting for glue_start_job_run job jr_\d+ \(deadline 2026-01-01T01:00/);
    expect(jobs.calls[1].stopped).toBeUndefined();
    expect(rt.metrics.get('JobsStopped')).toBe(1);
  });

  it('marking the task failed while it waits stops the job; its end event then resumes nothing', async () => {
    const d = dag('gmark', {}, ({ task }) => { task('etl', glueStartJobRun({ JobName: 'orders' })); });
    const { rt, jobs } = await jobRuntime([d], { glue_start_job_run: () => ({ after: '2h' }) });
    const { markTask } = await import('../../../lib/engine/index.js');
    const started = await rt.trigger('gmark');
    await rt.runUntil(async () => (await rt.ports.store.getTask({ dagId: 'gmark', runId: started.runId, taskId: 'etl' }))?.state === 'deferred');
    expect((await markTask(rt.ports, 'gmark', started.runId, 'etl', 'failed')).ok).toBe(true);
    expect(await rt.runToCompletion('gmark', started.runId)).toBe('done');
    expect(jobs.calls[0].stopped).toMatch(/etl: marked failed$/);
    // The wait's row is gone: the job's later end event finds no task.
    await rt.runUntil(async () => rt.clock.now() >= T0 + 3 * 3600_000);
    expect(rt.metrics.get('EventsUnmatched')).toBe(1);
    expect((await rt.ports.store.getTask({ dagId: 'gmark', runId: started.runId, taskId: 'etl' }))!.state).toBe('failed');
  });

  it('clearing the task while it waits stops the job and runs it afresh', async () => {
    const d = dag('gclear', {}, ({ task }) => { task('etl', glueStartJobRun({ JobName: 'orders' })); });
    const { rt, jobs } = await jobRuntime([d], { glue_start_job_run: () => ({ after: '1h' }) });
    const { clearTasks } = await import('../../../lib/engine/index.js');
    const started = await rt.trigger('gclear');
    const key = { dagId: 'gclear', runId: started.runId, taskId: 'etl' };
    await rt.runUntil(async () => (await rt.ports.store.getTask(key))?.state === 'deferred');
    expect(await clearTasks(rt.ports, 'gclear', started.runId, ['etl'])).toEqual(['etl']);
    expect(await rt.runToCompletion('gclear', started.runId)).toBe('done');
    expect(jobs.calls).toHaveLength(2);
    expect(jobs.calls[0].stopped).toMatch(/etl: the task was cleared$/);
    const ti = (await rt.ports.store.getTask(key))!;
    expect(ti.state).toBe('success');
    expect(ti.tryNumber).toBe(2);
  });
});

describe('the safety net', () => {
  it('a lost end event: the poker describes the job and resumes the task within one interval', async () => {
    const d = dag('lost', {}, ({ task }) => { task('b', batchSubmitJob({ jobQueue: 'q', jobDefinition: 'd' }, { safetyNetInterval: '10m' })); });
    const { run, jobs, rt } = await jobRuntime([d], { batch_submit_job: () => ({ after: '25m', dropEvent: true }) });
    const r = await run('lost');
    expect(r.run.state).toBe('success');
    // Described at 10, 20 (running) and 30 minutes (ended): resumed at 30.
    expect(jobs.calls[0].describes).toBe(3);
    expect(r.tasks.b.endedAt! - T0).toBeGreaterThanOrEqual(30 * MIN);
    expect(r.tasks.b.endedAt! - T0).toBeLessThan(32 * MIN);
    expect(rt.metrics.get('JobsResumedBySafetyNet')).toBe(1);
    expect(await r.xcom('b')).toMatchObject({ status: 'SUCCEEDED', exitCode: 0 });
  });

  it('a job that vanished fails its task naming the job', async () => {
    const d = dag('gone', {}, ({ task }) => { task('s', sfnStartExecution({ stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:pub' })); });
    const { run, jobs } = await jobRuntime([d], { sfn_start_execution: () => ({ after: '1h', vanish: true }) });
    const r = await run('gone');
    expect(r.run.state).toBe('failed');
    expect(r.tasks.s.error).toBe(`sfn_start_execution job ${jobs.calls[0].ref.id} vanished: the service does not know it (deleted)`);
  });
});

describe('bad input', () => {
  it('a validation error or a missing grant fails the try once, with AWS\'s error in one line and no retry', async () => {
    const d = dag('badin', {}, ({ task }) => { task('t', ecsRunTask({ cluster: 'nope', taskDefinition: 'x' }), { retries: 3 }); });
    const { run, jobs } = await jobRuntime([d], {
      ecs_run_task: () => { throw new AirlessError('ecs:RunTask refused: ClusterNotFoundException: Cluster not found.', { retryable: false }); },
    });
    const r = await run('badin');
    expect(r.run.state).toBe('failed');
    expect(r.tasks.t.tryNumber).toBe(1);
    expect(r.tasks.t.error).toBe('ecs_run_task: ecs:RunTask refused: ClusterNotFoundException: Cluster not found.');
    expect(jobs.calls).toHaveLength(0);
  });

  it('a throttled submit is retried by the task\'s retries', async () => {
    const d = dag('throttle', {}, ({ task }) => { task('t', ecsRunTask({ cluster: 'c', taskDefinition: 'x' }), { retries: 1, retryDelay: '1m' }); });
    let n = 0;
    const { run } = await jobRuntime([d], {
      ecs_run_task: () => { if (++n === 1) throw new AirlessError('ecs:RunTask refused: ThrottlingException: Rate exceeded', { retryable: true }); return { after: '1m' }; },
    });
    const r = await run('throttle');
    expect(r.run.state).toBe('success');
    expect(r.tasks.t.tryNumber).toBe(2);
  });

  it('an operator whose runtime has no driver fails once, saying how to mock it', async () => {
    const d = dag('nodriver', {}, ({ task }) => { task('t', athenaQuery({ QueryString: 'SELECT 1' }), { retries: 2 }); });
    const { run } = await jobRuntime([d], {});
    const r = await run('nodriver');
    expect(r.tasks.t.tryNumber).toBe(1);
    expect(r.tasks.t.error).toBe('athena_query: this runtime cannot start athena_query jobs (in testDag, mock it with operatorMocks.athena_query)');
  });
});
