/**
 * The operators as DAG authors write them: each records its type, its templated static
 * input and options in the manifest (or keeps its input function in the bundle), and a
 * mistake (an unknown option, an input JSON cannot hold, a waitForEvent pattern without a
 * key) is refused when the DAG is built, naming the DAG and the task; and testDag mocks
 * them by operator type.
 */
import { describe, expect, it } from 'vitest';
import { InvalidDagError } from '../../lib/engine/index.js';
import { athenaQuery, batchSubmitJob, dag, ecsRunTask, glueStartJobRun, lambdaInvoke, waitForEvent } from '../../lib/sdk/index.js';
import { assertTaskStates, testDag } from '../../lib/testing/index.js';
import nightly from '../../examples/dags/nightly_jobs.js';

const declare = (body: Parameters<Parameters<typeof dag>[2]>[0] extends infer B ? (b: B) => void : never) => dag('d', {}, body as never);

describe('operators in a DAG', () => {
  it('record the operator, its templated input and its options in the spec', () => {
    const d = dag('ops', {}, ({ task }) => {
      task('etl', glueStartJobRun({ JobName: 'orders', Arguments: { '--ds': '{{ ds }}' } }, { timeout: '2h', safetyNetInterval: '5m', waitForCompletion: true }), { retries: 2 });
      task('fire', batchSubmitJob({ jobQueue: 'q', jobDefinition: 'd' }, { waitForCompletion: false }));
      task('fn', lambdaInvoke(async (ctx) => ({ FunctionName: 'f', Payload: { ds: ctx.ds } })));
      task('wait', waitForEvent({ source: 'com.acme', detailType: 'Order Shipped', detail: { date: '{{ ds }}' } }, { timeout: '1d' }));
    });
    const t = Object.fromEntries(d.spec.tasks.map((x) => [x.taskId, x]));
    expect(t.etl.operator).toEqual({ type: 'glue_start_job_run', input: { JobName: 'orders', Arguments: { '--ds': '{{ ds }}' } }, timeoutMs: 7_200_000, safetyNetMs: 300_000 });
    expect(t.etl.retries).toBe(2);
    expect(t.fire.operator).toEqual({ type: 'batch_submit_job', input: { jobQueue: 'q', jobDefinition: 'd' }, waitForCompletion: false });
    // Computed input: code in the bundle, nothing of it in the manifest; lambdaInvoke's wait is bounded by default.
    expect(t.fn.operator).toEqual({ type: 'lambda_invoke', timeoutMs: 22_500_000 });
    expect(typeof d.tasks.get('fn')!.execute).toBe('function');
    expect(d.tasks.get('etl')).toEqual({});
    expect(t.wait.operator).toEqual({ type: 'wait_for_event', event: { source: 'com.acme', detailType: 'Order Shipped', detail: { date: '{{ ds }}' } }, timeoutMs: 86_400_000 });
  });

  it.each([
    ['an unknown option', () => ecsRunTask({ cluster: 'c', taskDefinition: 't' }, { timeOut: '1h' } as never), 'dag d: task t: ecs_run_task: unknown option "timeOut" (options: waitForCompletion, timeout, safetyNetInterval)'],
    ['a bad duration', () => athenaQuery({ QueryString: 'q' }, { timeout: 'soon' }), 'dag d: task t: invalid timeout: '],
    ['a safety net shorter than the poker\'s cycle', () => athenaQuery({ QueryString: 'q' }, { safetyNetInterval: '10s' }), 'safetyNetInterval must be at least 1 minute'],
    ['an input JSON cannot hold', () => ecsRunTask({ cluster: 'c', taskDefinition: 't', startedBy: new Date() as never }), 'ecs_run_task: input.startedBy is a Date: a static input is plain JSON (compute it in a function of ctx instead)'],
    ['a wait no event could find', () => waitForEvent({ source: 'com.acme', detailType: 'Tick' }), 'wait_for_event: event wait com.acme/Tick has no usable key'],
    ['a pattern EventBridge would refuse', () => waitForEvent({ source: 's', detailType: 'd', detail: { id: 'a', n: [] } }), 'detail.n'],
  ])('refuses %s when the DAG is built, naming the DAG and the task', (_what, make, message) => {
    let err: unknown;
    try {
      declare(({ task }: any) => task('t', make()));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidDagError);
    expect((err as Error).message).toContain(message);
  });
});

describe('testDag mocks operators by operator type', () => {
  it('runs the example nightly jobs with each job\'s end event simulated, and records the jobs', async () => {
    const r = await testDag(nightly, {
      logicalDate: '2026-03-01',
      operatorMocks: {
        glue_start_job_run: () => ({ after: '20m' }),
        emr_serverless_job_run: () => ({ after: '1h' }),
        ecs_run_task: (input) => (input.overrides.containerOverrides[0].command.includes('2026-03-01') ? { after: '40m' } : { fail: 'wrong date' }),
        batch_submit_job: () => ({ after: '10m' }),
        sfn_start_execution: () => ({ after: '2m', output: { published: 7 } }),
        athena_query: () => ({ after: '30s' }),
        lambda_invoke: () => ({ after: '5s', output: 'sent' }),
      },
    });
    assertTaskStates(r, { extract: 'success', features: 'success', train: 'success', score: 'success', publish: 'success', report: 'success', notify: 'success' });
    expect(r.jobs.map((j) => j.type)).toEqual(['glue_start_job_run', 'emr_serverless_job_run', 'ecs_run_task', 'batch_submit_job', 'sfn_start_execution', 'athena_query', 'lambda_invoke']);
    const report = r.xcom('report') as { outputLocation: string };
    expect(r.jobs.find((j) => j.type === 'lambda_invoke')!.input).toEqual({ FunctionName: 'send-report', Payload: { date: '2026-03-01', csv: report.outputLocation } });
    expect(r.xcom('publish')).toMatchObject({ output: { published: 7 } });
    expect(r.virtualMs).toBeGreaterThanOrEqual(20 * 60_000 + 3600_000 + 40 * 60_000);
  });

  it('a job that fails fails its task in the service\'s words, and the retry runs a new job', async () => {
    const d = dag('one', {}, ({ task }) => { task('etl', glueStartJobRun({ JobName: 'orders' }), { retries: 1, retryDelay: '1m' }); });
    let n = 0;
    const r = await testDag(d, { operatorMocks: { glue_start_job_run: () => (++n === 1 ? { after: '3m', fail: 'OutOfMemoryError' } : { after: '3m' }) } });
    assertTaskStates(r, { etl: 'success' });
    expect(r.tasks.etl.tries).toBe(2);
    expect(r.jobs).toHaveLength(2);
    expect(r.logs.find((l) => l.msg === 'task up for retry')?.fields?.error).toMatch(/^glue_start_job_run job jr_\d+ failed: FAILED: OutOfMemoryError$/);
    // The job's links (its CloudWatch stream, its console page) are lines of the try's log.
    expect(r.logs.find((l) => l.msg.startsWith('submitted glue_start_job_run job'))?.fields).toMatchObject({ taskId: 'etl', tryNumber: 1, logs: expect.stringContaining('log-group/$252Faws-glue$252Fjobs$252Foutput/log-events/jr_') });
  });

  it('an operator without a mock fails at once, saying how to mock it; an unknown mock type is refused', async () => {
    const d = dag('nomock', {}, ({ task }) => { task('q', athenaQuery({ QueryString: 'SELECT 1' }), { retries: 3 }); });
    const r = await testDag(d);
    expect(r.tasks.q).toMatchObject({ state: 'failed', tries: 1, error: 'athena_query: this runtime cannot start athena_query jobs (in testDag, mock it with operatorMocks.athena_query)' });
    await expect(testDag(d, { operatorMocks: { athena: () => ({}) } })).rejects.toThrow('operatorMocks: unknown operator type "athena"');
  });
});
