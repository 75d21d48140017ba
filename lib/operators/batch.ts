/**
 * `batchSubmitJob`: Batch SubmitJob, ended by "Batch Job State Change" with `status`
 * SUCCEEDED or FAILED (https://docs.aws.amazon.com/batch/latest/userguide/batch_job_events.html),
 * whose detail is the job as DescribeJobs returns it. Calls: SubmitJob, DescribeJobs
 * (safety net), TerminateJob (cancels a queued job, stops a running one).
 */
import type * as Sdk from '@aws-sdk/client-batch';
import type { SubmitJobCommandInput } from '@aws-sdk/client-batch';
import type { AwsEvent, JobRef, JobStatus, JobSubmission } from '../engine/index.js';
import { call, clientConfig, consoleUrl, envelope, lazySdk, logStreamUrl, reasonOf, regionOf, type JobService } from './shared.js';

export const SOURCE = 'aws.batch';
export const DETAIL_TYPE = 'Batch Job State Change';
const DEFAULT_LOG_GROUP = '/aws/batch/job';

interface BatchJob {
  jobId?: string; jobArn?: string; jobName?: string; status?: string; statusReason?: string;
  container?: { exitCode?: number; reason?: string; logStreamName?: string; logConfiguration?: { logDriver?: string; options?: Record<string, string> } };
}

function submission(jobId: string, jobArn: string | undefined, jobName: string, region: string): JobSubmission {
  return {
    ref: { type: 'batch_submit_job', id: jobId, region },
    value: { jobId, jobName, ...(jobArn ? { jobArn } : {}) },
    wait: { source: SOURCE, detailType: DETAIL_TYPE, detail: { jobId, status: ['SUCCEEDED', 'FAILED'] } },
    links: { console: consoleUrl(region, 'batch', `jobs/detail/${jobId}`) },
  };
}

function statusOf(job: BatchJob): JobStatus {
  const value = {
    jobId: job.jobId, jobArn: job.jobArn, jobName: job.jobName, status: job.status,
    exitCode: job.container?.exitCode, logStreamName: job.container?.logStreamName,
  };
  if (job.status === 'SUCCEEDED') return { state: 'succeeded', value };
  if (job.status !== 'FAILED') return { state: 'running' };
  const exit = job.container?.exitCode !== undefined ? `exit code ${job.container.exitCode}` : undefined;
  return { state: 'failed', reason: reasonOf(job.statusReason, exit, job.container?.reason), value };
}

/** The job's CloudWatch stream (awslogs, the default group unless its log configuration names one). */
function streamLink(ref: JobRef, job: BatchJob): Record<string, string> | undefined {
  const stream = job.container?.logStreamName;
  if (!stream || !ref.region) return undefined;
  const group = job.container?.logConfiguration?.options?.['awslogs-group'] ?? DEFAULT_LOG_GROUP;
  return { logs: logStreamUrl(ref.region, group, stream) };
}

const fromEvent: JobService['fromEvent'] = (_ref, event) => statusOf(event.detail as BatchJob);

export const batch: JobService = {
  type: 'batch_submit_job',

  driver(opts) {
    const aws = lazySdk(() => import('@aws-sdk/client-batch'), (sdk: typeof Sdk) => new sdk.BatchClient(clientConfig(opts)));
    return {
      async submit(input, ctx) {
        const { sdk, client } = await aws();
        const req = { jobName: ctx.name, ...(input as Partial<SubmitJobCommandInput>) } as SubmitJobCommandInput;
        const out = await call('batch:SubmitJob', () => client.send(new sdk.SubmitJobCommand(req), { abortSignal: ctx.signal }));
        return submission(out.jobId!, out.jobArn, out.jobName ?? String(req.jobName), await regionOf(client));
      },
      fromEvent,
      async describe(ref) {
        const { sdk, client } = await aws();
        const out = await call('batch:DescribeJobs', () => client.send(new sdk.DescribeJobsCommand({ jobs: [ref.id] })));
        const job = out.jobs?.[0];
        return job ? statusOf(job as BatchJob) : { state: 'gone', reason: 'DescribeJobs does not know it' };
      },
      async stop(ref, reason) {
        const { sdk, client } = await aws();
        await call('batch:TerminateJob', () => client.send(new sdk.TerminateJobCommand({ jobId: ref.id, reason })));
      },
      endLinks(ref, status) {
        const v = (status.state === 'succeeded' || status.state === 'failed' ? status.value : undefined) as { logStreamName?: string } | undefined;
        return v?.logStreamName ? streamLink(ref, { container: { logStreamName: v.logStreamName } }) : undefined;
      },
    };
  },

  fake(input, ctx, n, region) {
    const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    return submission(id, `arn:aws:batch:${region}:123456789012:job/${id}`, String(input.jobName ?? ctx.name), region);
  },

  endEvent(ref, end, at): AwsEvent {
    const detail = {
      jobArn: `arn:aws:batch:${ref.region ?? 'us-east-1'}:123456789012:job/${ref.id}`, jobName: 'job', jobId: ref.id,
      jobQueue: `arn:aws:batch:${ref.region ?? 'us-east-1'}:123456789012:job-queue/queue`,
      status: end.fail ? 'FAILED' : 'SUCCEEDED', statusReason: end.fail ?? 'Essential container in task exited',
      attempts: [], createdAt: at, stoppedAt: at, jobDefinition: 'job-definition',
      container: { exitCode: end.fail ? 1 : 0, logStreamName: `job-definition/default/${ref.id}` },
    };
    return envelope(SOURCE, DETAIL_TYPE, detail, ref, at, [detail.jobArn]);
  },

  fromEvent,
};
