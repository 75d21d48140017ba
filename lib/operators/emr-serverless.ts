/**
 * `emrServerlessJobRun`: EMR Serverless StartJobRun, ended by "EMR Serverless Job Run State
 * Change" with `state` SUCCESS, FAILED or CANCELLED
 * (https://docs.aws.amazon.com/emr/latest/EMR-Serverless-UserGuide/using-eventbridge.html).
 * Calls: StartJobRun (with a client token per try), GetJobRun (safety net), CancelJobRun.
 */
import type * as Sdk from '@aws-sdk/client-emr-serverless';
import type { StartJobRunCommandInput } from '@aws-sdk/client-emr-serverless';
import type { AwsEvent, JobStatus, JobSubmission } from '../engine/index.js';
import { awsFailure, call, clientConfig, envelope, lazySdk, reasonOf, regionOf, tokenOf, type JobService } from './shared.js';

export const SOURCE = 'aws.emr-serverless';
export const DETAIL_TYPE = 'EMR Serverless Job Run State Change';

function submission(applicationId: string, jobRunId: string, arn: string | undefined, region: string): JobSubmission {
  return {
    ref: { type: 'emr_serverless_job_run', id: jobRunId, applicationId, region },
    value: { applicationId, jobRunId, ...(arn ? { arn } : {}) },
    wait: { source: SOURCE, detailType: DETAIL_TYPE, detail: { jobRunId, applicationId, state: ['SUCCESS', 'FAILED', 'CANCELLED'] } },
  };
}

function status(applicationId: string, jobRunId: string, state: string | undefined, details: string | undefined): JobStatus {
  const value = { applicationId, jobRunId, state };
  if (state === 'SUCCESS') return { state: 'succeeded', value };
  if (state === 'FAILED' || state === 'CANCELLED') return { state: 'failed', reason: reasonOf(state, details), value };
  return { state: 'running' };
}

const fromEvent: JobService['fromEvent'] = (ref, event) =>
  status(ref.applicationId, ref.id, event.detail.state as string | undefined, event.detail.stateDetails as string | undefined);

export const emrServerless: JobService = {
  type: 'emr_serverless_job_run',

  driver(opts) {
    const aws = lazySdk(() => import('@aws-sdk/client-emr-serverless'), (sdk: typeof Sdk) => new sdk.EMRServerlessClient(clientConfig(opts)));
    return {
      async submit(input, ctx) {
        const { sdk, client } = await aws();
        const req = { clientToken: tokenOf(ctx), name: ctx.name, ...(input as Partial<StartJobRunCommandInput>) } as StartJobRunCommandInput;
        const out = await call('emr-serverless:StartJobRun', () => client.send(new sdk.StartJobRunCommand(req), { abortSignal: ctx.signal }));
        return submission(out.applicationId ?? String(req.applicationId), out.jobRunId!, out.arn, await regionOf(client));
      },
      fromEvent,
      async describe(ref) {
        const { sdk, client } = await aws();
        try {
          const run = (await client.send(new sdk.GetJobRunCommand({ applicationId: ref.applicationId, jobRunId: ref.id }))).jobRun;
          return status(ref.applicationId, ref.id, run?.state, run?.stateDetails);
        } catch (err) {
          if ((err as Error).name === 'ResourceNotFoundException') return { state: 'gone', reason: reasonOf('GetJobRun', (err as Error).message) };
          throw awsFailure('emr-serverless:GetJobRun', err);
        }
      },
      async stop(ref) {
        const { sdk, client } = await aws();
        await call('emr-serverless:CancelJobRun', () => client.send(new sdk.CancelJobRunCommand({ applicationId: ref.applicationId, jobRunId: ref.id })));
      },
    };
  },

  fake(input, _ctx, n, region) {
    const app = String(input.applicationId);
    const id = `00${String(n).padStart(14, '0')}`;
    return submission(app, id, `arn:aws:emr-serverless:${region}:123456789012:/applications/${app}/jobruns/${id}`, region);
  },

  endEvent(ref, end, at): AwsEvent {
    const detail = {
      jobRunId: ref.id, applicationId: ref.applicationId,
      arn: `arn:aws:emr-serverless:${ref.region ?? 'us-east-1'}:123456789012:/applications/${ref.applicationId}/jobruns/${ref.id}`,
      releaseLabel: 'emr-7.0.0', state: end.fail ? 'FAILED' : 'SUCCESS', previousState: 'RUNNING',
      createdBy: 'arn:aws:sts::123456789012:assumed-role/worker/airless', updatedAt: new Date(at).toISOString(), createdAt: new Date(at).toISOString(),
      ...(end.fail ? { stateDetails: end.fail } : {}),
    };
    return envelope(SOURCE, DETAIL_TYPE, detail, ref, at);
  },

  fromEvent,
};
