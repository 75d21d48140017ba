/**
 * `glueStartJobRun`: Glue StartJobRun, ended by "Glue Job State Change", sent for
 * SUCCEEDED, FAILED, TIMEOUT, STOPPED (and ERROR) with `jobName`, `jobRunId`, `state` and
 * `message` (https://docs.aws.amazon.com/glue/latest/dg/automating-awsglue-with-cloudwatch-events.html).
 * Calls: StartJobRun, GetJobRun (safety net), BatchStopJobRun.
 */
import type * as Sdk from '@aws-sdk/client-glue';
import type { StartJobRunCommandInput } from '@aws-sdk/client-glue';
import type { AwsEvent, JobSubmission } from '../engine/index.js';
import { awsFailure, call, clientConfig, consoleUrl, envelope, finalFailure, lazySdk, logStreamUrl, reasonOf, regionOf, type JobService } from './shared.js';

export const SOURCE = 'aws.glue';
export const DETAIL_TYPE = 'Glue Job State Change';
const ENDED_BADLY = new Set(['FAILED', 'TIMEOUT', 'STOPPED', 'ERROR']);

function submission(jobName: string, runId: string, region: string): JobSubmission {
  return {
    ref: { type: 'glue_start_job_run', id: runId, jobName, region },
    value: { jobName, jobRunId: runId },
    wait: { source: SOURCE, detailType: DETAIL_TYPE, detail: { jobRunId: runId, jobName } },
    links: {
      logs: logStreamUrl(region, '/aws-glue/jobs/output', runId),
      console: consoleUrl(region, 'gluestudio', `/job/${encodeURIComponent(jobName)}/run/${runId}`),
    },
  };
}

function status(jobName: string, runId: string, state: string | undefined, message: string | undefined) {
  const value = { jobName, jobRunId: runId, state };
  if (state === 'SUCCEEDED') return { state: 'succeeded' as const, value };
  if (state && ENDED_BADLY.has(state)) return { state: 'failed' as const, reason: reasonOf(state, message), value };
  return { state: 'running' as const };
}

const fromEvent: JobService['fromEvent'] = (ref, event) => status(ref.jobName, ref.id, event.detail.state as string, event.detail.message as string);

export const glue: JobService = {
  type: 'glue_start_job_run',

  driver(opts) {
    const aws = lazySdk(() => import('@aws-sdk/client-glue'), (sdk: typeof Sdk) => new sdk.GlueClient(clientConfig(opts)));
    return {
      async submit(input, ctx) {
        const { sdk, client } = await aws();
        const req = input as StartJobRunCommandInput;
        if (!req.JobName) throw finalFailure('glueStartJobRun needs JobName');
        const out = await call('glue:StartJobRun', () => client.send(new sdk.StartJobRunCommand(req), { abortSignal: ctx.signal }));
        return submission(req.JobName, out.JobRunId!, await regionOf(client));
      },
      fromEvent,
      async describe(ref) {
        const { sdk, client } = await aws();
        try {
          const out = await client.send(new sdk.GetJobRunCommand({ JobName: ref.jobName, RunId: ref.id }));
          return status(ref.jobName, ref.id, out.JobRun?.JobRunState, out.JobRun?.ErrorMessage);
        } catch (err) {
          if ((err as Error).name === 'EntityNotFoundException') return { state: 'gone', reason: reasonOf('GetJobRun', (err as Error).message) };
          throw awsFailure('glue:GetJobRun', err);
        }
      },
      async stop(ref) {
        const { sdk, client } = await aws();
        const out = await call('glue:BatchStopJobRun', () => client.send(new sdk.BatchStopJobRunCommand({ JobName: ref.jobName, JobRunIds: [ref.id] })));
        const e = out.Errors?.[0];
        if (e) throw finalFailure(`glue:BatchStopJobRun refused: ${reasonOf(e.ErrorDetail?.ErrorCode, e.ErrorDetail?.ErrorMessage)}`);
      },
    };
  },

  fake(input, _ctx, n, region) {
    return submission(String(input.JobName), `jr_${String(n).padStart(64, '0')}`, region);
  },

  endEvent(ref, end, at): AwsEvent {
    const detail = {
      jobName: ref.jobName, severity: end.fail ? 'ERROR' : 'INFO', state: end.fail ? 'FAILED' : 'SUCCEEDED', jobRunId: ref.id,
      message: end.fail ?? 'Job run succeeded',
    };
    return envelope(SOURCE, DETAIL_TYPE, detail, ref, at);
  },

  fromEvent,
};
