/**
 * Rehearsal scenario DAGs for AWS jobs (the `jobs` scenario steers each job's duration and
 * outcome from outside, with `r.gateway.jobs.behave`). The names are the scaffold's
 * (lib/rehearsal/scenarios/scaffold.ts, SCAFFOLD), written out: a bundle cannot import the CDK.
 *
 * `rehearsal_jobs`: a 40-minute ECS task that exits 0; an ECS task that exits 1 and succeeds on
 * its retry; a Batch job; a Step Functions execution; an Athena query whose result `rows` reads
 * from S3 downstream; a Batch job whose end event is lost, found by the safety net; an EMR
 * Serverless run that ends before its task stores its wait; another function, started with
 * `lambdaInvoke`, whose result comes back through its destination.
 * `rehearsal_jobs_stopped`: one job per service that outlives its task's timeout: the safety net
 * describes it (still running) and the timeout stops it.
 * `rehearsal_jobs_blob`: a Batch job whose end event the events path fails on (its run's conf is
 * made unreadable to it), so Lambda retries the event, dead-letters it, and the safety net
 * resumes the task.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  athenaQuery, batchSubmitJob, dag, ecsRunTask, emrServerlessJobRun, glueStartJobRun, lambdaInvoke, sfnStartExecution,
} from 'airless';

const ACCOUNT = '000000000000';
const ecs = { cluster: 'rehearsal-jobs', taskDefinition: 'rehearsal-etl', launchType: 'FARGATE' as const, networkConfiguration: { awsvpcConfiguration: { subnets: ['subnet-0123456789abcdef0'] } } };
const batch = { jobQueue: 'rehearsal-queue', jobDefinition: 'rehearsal-crunch' };
const stateMachineArn = `arn:aws:states:us-east-1:${ACCOUNT}:stateMachine:rehearsal-orders`;
const emr = {
  applicationId: '{{ var.value.rehearsal_emr_application }}', executionRoleArn: `arn:aws:iam::${ACCOUNT}:role/rehearsal-spark-job`,
  jobDriver: { sparkSubmit: { entryPoint: 's3://rehearsal-code/spark/daily.py', entryPointArguments: ['{{ ds }}'] } },
};

// maxActiveTasks below its width (8): the events path resuming a task moves its run's slot counter (runs table).
export const jobs = dag('rehearsal_jobs', { schedule: null, maxActiveTasks: 4, defaultArgs: { retries: 0 } }, ({ task }) => {
  task('ecs_long', ecsRunTask({ ...ecs, overrides: { containerOverrides: [{ name: 'main', command: ['etl', '--day', '{{ ds }}'] }] } }));
  task('ecs_retry', ecsRunTask({ ...ecs, startedBy: 'rehearsal-retry' }), { retries: 1, retryDelay: '1m' });
  task('batch', batchSubmitJob({ ...batch, containerOverrides: { command: ['crunch', '{{ ds }}'] } }));
  task('orders', sfnStartExecution({ stateMachineArn, input: { day: '{{ ds }}' } }));
  const report = task('report', athenaQuery({ QueryString: "SELECT day, n FROM daily WHERE day = '{{ ds }}'", WorkGroup: 'rehearsal-reports' }));
  const rows = task('rows', async (ctx) => {
    const { outputLocation } = await ctx.xcom.pull<{ outputLocation: string }>('report');
    const [, bucket, key] = /^s3:\/\/([^/]+)\/(.+)$/.exec(outputLocation)!;
    const s3 = new S3Client({});
    const body = await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToString();
    return body.trim().split('\n').slice(1).map((line) => line.split(',').map((cell) => cell.replace(/^"|"$/g, '')));
  });
  report.before(rows);
  task('lost_event', batchSubmitJob(batch, { safetyNetInterval: '5m' }));
  task('early_event', emrServerlessJobRun(emr));
  task('score', lambdaInvoke({ FunctionName: 'rehearsal-score', Payload: { rows: [1, 2, 3] } }));
});

const outlive = { timeout: '10m', safetyNetInterval: '5m' } as const;

export const stopped = dag('rehearsal_jobs_stopped', { schedule: null, defaultArgs: { retries: 0 } }, ({ task }) => {
  task('ecs', ecsRunTask({ ...ecs, startedBy: 'rehearsal-stopped' }, outlive));
  task('batch', batchSubmitJob(batch, outlive));
  task('glue', glueStartJobRun({ JobName: 'rehearsal-load', Arguments: { '--day': '{{ ds }}' } }, outlive));
  task('orders', sfnStartExecution({ stateMachineArn, input: { day: '{{ ds }}', slow: true } }, outlive));
  task('report', athenaQuery({ QueryString: 'SELECT * FROM slow', WorkGroup: 'rehearsal-reports' }, outlive));
  task('spark', emrServerlessJobRun(emr, outlive));
});

/** A run whose conf is in blobs/ (400 KB): the scenario makes the events path's read of it fail. */
export const blob = dag('rehearsal_jobs_blob', { schedule: null, defaultArgs: { retries: 0 } }, ({ task }) => {
  task('crunch', batchSubmitJob(batch, { safetyNetInterval: '10m' }));
});

