/**
 * `sfnStartExecution`: Step Functions StartExecution, ended by "Step Functions Execution
 * Status Change" with `status` SUCCEEDED, FAILED, TIMED_OUT or ABORTED, and the execution's
 * `output`, `error` and `cause` (https://docs.aws.amazon.com/step-functions/latest/dg/cw-events.html).
 * An output over 256 KB is not in the event (`outputDetails.included: false`). Calls:
 * StartExecution (named per try: a retry is a new execution), DescribeExecution (safety
 * net), StopExecution.
 */
import type * as Sdk from '@aws-sdk/client-sfn';
import type { StartExecutionCommandInput } from '@aws-sdk/client-sfn';
import type { AwsEvent, JobStatus, JobSubmission } from '../engine/index.js';
import { awsFailure, call, clientConfig, consoleUrl, envelope, lazySdk, parsed, reasonOf, regionOf, type JobService } from './shared.js';

export const SOURCE = 'aws.states';
export const DETAIL_TYPE = 'Step Functions Execution Status Change';
const ENDED_BADLY = new Set(['FAILED', 'TIMED_OUT', 'ABORTED']);

function submission(executionArn: string, stateMachineArn: string | undefined, region: string): JobSubmission {
  return {
    ref: { type: 'sfn_start_execution', id: executionArn, region },
    value: { executionArn, ...(stateMachineArn ? { stateMachineArn } : {}) },
    wait: { source: SOURCE, detailType: DETAIL_TYPE, detail: { executionArn, status: ['SUCCEEDED', ...ENDED_BADLY] } },
    links: { console: consoleUrl(region, 'states', `/v2/executions/details/${executionArn}`) },
  };
}

interface Execution { executionArn?: string; stateMachineArn?: string; status?: string; output?: string | null; error?: string | null; cause?: string | null; outputDetails?: { included?: boolean } }

function statusOf(x: Execution): JobStatus {
  if (x.status === 'SUCCEEDED') {
    const included = x.outputDetails?.included !== false;
    return { state: 'succeeded', value: { executionArn: x.executionArn, status: x.status, ...(included ? { output: parsed(x.output ?? null) } : { outputIncluded: false }) } };
  }
  if (x.status && ENDED_BADLY.has(x.status)) {
    return { state: 'failed', reason: reasonOf(x.status, x.error, x.cause), value: { executionArn: x.executionArn, status: x.status, error: x.error ?? undefined } };
  }
  return { state: 'running' };
}

const fromEvent: JobService['fromEvent'] = (_ref, event) => statusOf(event.detail as Execution);

export const sfn: JobService = {
  type: 'sfn_start_execution',

  driver(opts) {
    const aws = lazySdk(() => import('@aws-sdk/client-sfn'), (sdk: typeof Sdk) => new sdk.SFNClient(clientConfig(opts)));
    return {
      async submit(input, ctx) {
        const { sdk, client } = await aws();
        const req = input as Omit<StartExecutionCommandInput, 'input'> & { input?: unknown };
        const text = req.input === undefined ? undefined : typeof req.input === 'string' ? req.input : JSON.stringify(req.input);
        const out = await call('states:StartExecution', () => client.send(new sdk.StartExecutionCommand({ name: ctx.name, ...req, input: text }), { abortSignal: ctx.signal }));
        return submission(out.executionArn!, req.stateMachineArn, await regionOf(client));
      },
      fromEvent,
      async describe(ref) {
        const { sdk, client } = await aws();
        try {
          return statusOf((await client.send(new sdk.DescribeExecutionCommand({ executionArn: ref.id }))) as Execution);
        } catch (err) {
          if ((err as Error).name === 'ExecutionDoesNotExist') return { state: 'gone', reason: reasonOf('DescribeExecution', (err as Error).message) };
          throw awsFailure('states:DescribeExecution', err);
        }
      },
      async stop(ref, reason) {
        const { sdk, client } = await aws();
        await call('states:StopExecution', () => client.send(new sdk.StopExecutionCommand({ executionArn: ref.id, error: 'Airless.Stopped', cause: reason })));
      },
    };
  },

  fake(input, ctx, _n, region) {
    const sm = String(input.stateMachineArn);
    return submission(`${sm.replace(':stateMachine:', ':execution:')}:${ctx.name}`, sm, region);
  },

  endEvent(ref, end, at): AwsEvent {
    const stateMachineArn = ref.id.replace(':execution:', ':stateMachine:').replace(/:[^:]*$/, '');
    const detail = {
      executionArn: ref.id, stateMachineArn, name: ref.id.slice(ref.id.lastIndexOf(':') + 1), status: end.fail ? 'FAILED' : 'SUCCEEDED',
      startDate: at, stopDate: at, input: '{}', inputDetails: { included: true },
      output: end.fail ? null : JSON.stringify(end.output ?? {}), outputDetails: end.fail ? null : { included: true },
      error: end.fail ? 'States.TaskFailed' : null, cause: end.fail ?? null,
    };
    return envelope(SOURCE, DETAIL_TYPE, detail, ref, at, [ref.id]);
  },

  fromEvent,
};
