/**
 * `lambdaInvoke`: Lambda Invoke with `InvocationType: 'Event'` (asynchronous). The function's
 * asynchronous invocation destinations (on success and on failure: the Airless event bus,
 * set by the construct for the functions `jobs.functions` names) publish its invocation
 * record: source `lambda`, detail-type "Lambda Function Invocation Result - Success" or
 * "- Failure", `detail.requestContext.requestId` the id Invoke returned
 * (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html).
 * There is no describe call (no safety net: the task's timeout bounds the wait) and no stop.
 */
import type * as Sdk from '@aws-sdk/client-lambda';
import type { AwsEvent, JobStatus, JobSubmission } from '../engine/index.js';
import { awsFailure, call, clientConfig, envelope, finalFailure, lazySdk, logGroupUrl, parsed, reasonOf, regionOf, type JobService } from './shared.js';

export const SOURCE = 'lambda';
export const SUCCESS = 'Lambda Function Invocation Result - Success';
export const FAILURE = 'Lambda Function Invocation Result - Failure';

const utf8 = new TextEncoder();
const nameOf = (fn: string) => (fn.startsWith('arn:') ? fn.split(':')[6] : fn.split(':')[0]);

function submission(fn: string, requestId: string, region: string): JobSubmission {
  return {
    ref: { type: 'lambda_invoke', id: requestId, function: fn, region },
    value: { functionName: fn, requestId },
    wait: { source: SOURCE, detailType: [SUCCESS, FAILURE], detail: { requestContext: { requestId } } },
    links: { logs: logGroupUrl(region, `/aws/lambda/${nameOf(fn)}`) },
  };
}

interface InvocationRecord {
  requestContext?: { requestId?: string; functionArn?: string; condition?: string; approximateInvokeCount?: number };
  responseContext?: { statusCode?: number; executedVersion?: string; functionError?: string };
  responsePayload?: unknown;
}

const fromEvent: JobService['fromEvent'] = (ref, event): JobStatus => {
  const r = event.detail as InvocationRecord;
  const value = { functionName: ref.function, requestId: ref.id, functionArn: r.requestContext?.functionArn, payload: parsed(r.responsePayload ?? null) };
  if (event['detail-type'] === SUCCESS) return { state: 'succeeded', value };
  if (event['detail-type'] !== FAILURE) return { state: 'running' };
  const p = (parsed(r.responsePayload) ?? {}) as { errorType?: string; errorMessage?: string };
  return { state: 'failed', reason: reasonOf(r.requestContext?.condition, r.responseContext?.functionError, p.errorType, p.errorMessage), value };
};

export const lambda: JobService = {
  type: 'lambda_invoke',

  driver(opts) {
    const aws = lazySdk(() => import('@aws-sdk/client-lambda'), (sdk: typeof Sdk) => new sdk.LambdaClient(clientConfig(opts)));
    return {
      async submit(input, ctx) {
        const { sdk, client } = await aws();
        const { Payload, ...rest } = input as { FunctionName?: string; Payload?: unknown };
        if (!rest.FunctionName) throw finalFailure('lambdaInvoke needs FunctionName');
        const body = Payload === undefined ? undefined : utf8.encode(typeof Payload === 'string' ? Payload : JSON.stringify(Payload));
        const out = await call('lambda:InvokeFunction', () => client.send(new sdk.InvokeCommand({ ...rest, FunctionName: rest.FunctionName, InvocationType: 'Event', Payload: body }), { abortSignal: ctx.signal }));
        const requestId = out.$metadata.requestId;
        if (!requestId) throw awsFailure('lambda:InvokeFunction', { name: 'NoRequestId', message: 'the response named no request id', $fault: 'server' });
        return submission(rest.FunctionName, requestId, await regionOf(client));
      },
      fromEvent,
    };
  },

  fake(input, _ctx, n, region) {
    return submission(String(input.FunctionName), `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, region);
  },

  endEvent(ref, end, at): AwsEvent {
    const region = ref.region ?? 'us-east-1';
    const functionArn = ref.function.startsWith('arn:') ? ref.function : `arn:aws:lambda:${region}:123456789012:function:${ref.function}`;
    const detail = {
      version: '1.0', timestamp: new Date(at).toISOString(),
      requestContext: { requestId: ref.id, functionArn: `${functionArn}:$LATEST`, condition: end.fail ? 'RetriesExhausted' : 'Success', approximateInvokeCount: end.fail ? 3 : 1 },
      requestPayload: {},
      responseContext: { statusCode: 200, executedVersion: '$LATEST', ...(end.fail ? { functionError: 'Unhandled' } : {}) },
      responsePayload: end.fail ? { errorType: 'Error', errorMessage: end.fail } : (end.output ?? null),
    };
    return envelope(SOURCE, end.fail ? FAILURE : SUCCESS, detail, ref, at, [`${functionArn}:$LATEST`]);
  },

  fromEvent,
};
