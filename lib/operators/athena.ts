/**
 * `athenaQuery`: Athena StartQueryExecution, ended by "Athena Query State Change" with
 * `currentState` SUCCEEDED, FAILED or CANCELLED
 * (https://docs.aws.amazon.com/athena/latest/ug/athena-cloudwatch-events.html). The event
 * does not carry the result's location, so the submit reads it once with GetQueryExecution:
 * the task's XCom names it for a downstream task to read. Calls: StartQueryExecution,
 * GetQueryExecution (at submit, and the safety net), StopQueryExecution.
 */
import type * as Sdk from '@aws-sdk/client-athena';
import type { StartQueryExecutionCommandInput } from '@aws-sdk/client-athena';
import type { AwsEvent, JobStatus, JobSubmission } from '../engine/index.js';
import { awsFailure, call, clientConfig, consoleUrl, envelope, lazySdk, reasonOf, regionOf, tokenOf, type JobService } from './shared.js';

export const SOURCE = 'aws.athena';
export const DETAIL_TYPE = 'Athena Query State Change';

function submission(id: string, workGroup: string | undefined, outputLocation: string | undefined, region: string): JobSubmission {
  return {
    ref: { type: 'athena_query', id, region },
    value: { queryExecutionId: id, ...(workGroup ? { workGroup } : {}), ...(outputLocation ? { outputLocation } : {}) },
    wait: { source: SOURCE, detailType: DETAIL_TYPE, detail: { queryExecutionId: id, currentState: ['SUCCEEDED', 'FAILED', 'CANCELLED'] } },
    links: { console: consoleUrl(region, 'athena', `/query-editor/history/${id}`) },
  };
}

function status(id: string, state: string | undefined, reason: string | undefined): JobStatus {
  if (state === 'SUCCEEDED') return { state: 'succeeded', value: { queryExecutionId: id, state } };
  if (state === 'FAILED' || state === 'CANCELLED') return { state: 'failed', reason: reasonOf(state, reason), value: { queryExecutionId: id, state } };
  return { state: 'running' };
}

const fromEvent: JobService['fromEvent'] = (ref, event) => {
  const d = event.detail as { currentState?: string; athenaError?: { errorMessage?: string } };
  return status(ref.id, d.currentState, d.athenaError?.errorMessage);
};

export const athena: JobService = {
  type: 'athena_query',

  driver(opts) {
    const aws = lazySdk(() => import('@aws-sdk/client-athena'), (sdk: typeof Sdk) => new sdk.AthenaClient(clientConfig(opts)));
    return {
      async submit(input, ctx) {
        const { sdk, client } = await aws();
        let id: string;
        try {
          const out = await client.send(new sdk.StartQueryExecutionCommand({ ClientRequestToken: tokenOf(ctx), ...(input as StartQueryExecutionCommandInput) }), { abortSignal: ctx.signal });
          id = out.QueryExecutionId!;
        } catch (err) {
          throw awsFailure('athena:StartQueryExecution', err);
        }
        let q;
        try {
          q = (await client.send(new sdk.GetQueryExecutionCommand({ QueryExecutionId: id }))).QueryExecution;
        } catch (err) {
          throw awsFailure('athena:GetQueryExecution', err);
        }
        return submission(id, q?.WorkGroup, q?.ResultConfiguration?.OutputLocation, await regionOf(client));
      },
      fromEvent,
      async describe(ref) {
        const { sdk, client } = await aws();
        try {
          const s = (await client.send(new sdk.GetQueryExecutionCommand({ QueryExecutionId: ref.id }))).QueryExecution?.Status;
          return status(ref.id, s?.State, s?.AthenaError?.ErrorMessage ?? s?.StateChangeReason);
        } catch (err) {
          if ((err as Error).name === 'InvalidRequestException') return { state: 'gone', reason: reasonOf('GetQueryExecution', (err as Error).message) };
          throw awsFailure('athena:GetQueryExecution', err);
        }
      },
      async stop(ref) {
        const { sdk, client } = await aws();
        await call('athena:StopQueryExecution', () => client.send(new sdk.StopQueryExecutionCommand({ QueryExecutionId: ref.id })));
      },
    };
  },

  fake(input, _ctx, n, region) {
    const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const base = (input.ResultConfiguration as { OutputLocation?: string } | undefined)?.OutputLocation ?? 's3://athena-results/';
    return submission(id, String(input.WorkGroup ?? 'primary'), `${base.replace(/\/?$/, '/')}${id}.csv`, region);
  },

  endEvent(ref, end, at): AwsEvent {
    const detail = {
      versionId: '0', currentState: end.fail ? 'FAILED' : 'SUCCEEDED', previousState: 'RUNNING', statementType: 'DML', queryExecutionId: ref.id,
      workgroupName: 'primary', sequenceNumber: '3',
      ...(end.fail ? { athenaError: { errorCategory: 2, errorType: 1000, errorMessage: end.fail, retryable: false } } : {}),
    };
    return envelope(SOURCE, DETAIL_TYPE, detail, ref, at);
  },

  fromEvent,
};
