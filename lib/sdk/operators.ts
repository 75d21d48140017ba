/**
 * Operators for the jobs AWS users run: each submits in its try, defers on the job's end
 * event (AWS publishes it to the default event bus at no charge), and returns the job's
 * outcome as its XCom; nothing runs or polls while the job runs. Each takes the AWS SDK's
 * own input type for the call it makes, or a function of `ctx` that returns it. String
 * leaves of a static input are templates (`{{ ds }}`), as Airflow's template fields.
 *
 * Only types come from the AWS SDK here: the calls are made by the runtime's job drivers
 * (lib/operators), so DAG bundles stay small. docs/jobs.md.
 *
 * @example
 * import { dag, ecsRunTask } from 'airless';
 * export default dag('nightly', { schedule: '@daily' }, ({ task }) => {
 *   task('train', ecsRunTask({ cluster: 'ml', taskDefinition: 'train:3', launchType: 'FARGATE',
 *     overrides: { containerOverrides: [{ name: 'main', command: ['train', '--date', '{{ ds }}'] }] } }), { retries: 1 });
 * });
 */
import type { SubmitJobCommandInput } from '@aws-sdk/client-batch';
import type { RunTaskCommandInput } from '@aws-sdk/client-ecs';
import type { StartJobRunCommandInput as EmrServerlessStartJobRunInput } from '@aws-sdk/client-emr-serverless';
import type { StartJobRunCommandInput as GlueStartJobRunInput } from '@aws-sdk/client-glue';
import type { InvokeCommandInput } from '@aws-sdk/client-lambda';
import type { StartExecutionCommandInput } from '@aws-sdk/client-sfn';
import type { StartQueryExecutionCommandInput } from '@aws-sdk/client-athena';
import { checkEventWait, WAIT_FOR_EVENT, type EventWait, type OperatorSpec, type TaskContext } from '../engine/index.js';
import type { DagDraft } from './dag.js';
import type { Duration, OperatorBody, TaskHandle, TaskMethodFn, TaskOptions } from './types.js';

/** Options every operator takes beyond its SDK input. */
export interface OperatorOptions {
  /** Wait for the job's end (default true); false: the task succeeds once the job is submitted, its XCom the job's ids. */
  waitForCompletion?: boolean;
  /** Fail the try and stop the job when it has not ended this long after submit (default: no limit; `lambdaInvoke`: 6h15m). */
  timeout?: Duration;
  /** When no end event came this long after submit, describe the job, and again every such interval (default '15m'). */
  safetyNetInterval?: Duration;
}

/** The SDK input, or a function of the task's context that returns it (computed in the try). */
export type OperatorInput<I> = I | ((ctx: TaskContext) => I | Promise<I>);

/** `StartExecution`'s input, with `input` as any JSON value (a string is sent as it is). */
export type SfnStartExecutionInput = Omit<StartExecutionCommandInput, 'input'> & { input?: unknown };
/** `Invoke`'s input, always asynchronous (`InvocationType: 'Event'`), `Payload` any JSON value. */
export type LambdaInvokeInput = Omit<InvokeCommandInput, 'InvocationType' | 'Payload' | 'LogType'> & { Payload?: unknown };
/** `StartJobRun`'s input; `clientToken` defaults to one per try. */
export type EmrServerlessJobRunInput = Omit<EmrServerlessStartJobRunInput, 'clientToken'> & { clientToken?: string };
/** `SubmitJob`'s input; `jobName` defaults to one per try. */
export type BatchSubmitJobInput = Omit<SubmitJobCommandInput, 'jobName'> & { jobName?: string };

function operator(type: string, input: unknown, options: OperatorOptions = {}, defaults: Partial<OperatorSpec> = {}): OperatorBody {
  const spec: OperatorSpec = { type, ...defaults };
  if (typeof input === 'function') return Object.freeze({ __airless: 'operator' as const, spec, compute: input as TaskMethodFn, options });
  return Object.freeze({ __airless: 'operator' as const, spec: input === undefined ? spec : { ...spec, input }, options });
}

/**
 * ECS `RunTask` (Fargate or EC2, with container overrides); ends on "ECS Task State Change"
 * with `lastStatus: STOPPED`. Succeeds when every container exited 0; XCom: the task ARN,
 * cluster, stop code and reason, and each container's exit code.
 *
 * @example
 * task('train', ecsRunTask({ cluster: 'ml', taskDefinition: 'train', launchType: 'FARGATE', networkConfiguration }));
 */
export function ecsRunTask(input: OperatorInput<RunTaskCommandInput>, options?: OperatorOptions): OperatorBody {
  return operator('ecs_run_task', input, options);
}

/**
 * Batch `SubmitJob`; ends on "Batch Job State Change" with `status` SUCCEEDED or FAILED.
 * XCom: the job id, ARN, name, status and the container's exit code and log stream.
 *
 * @example
 * task('score', batchSubmitJob({ jobQueue: 'cpu', jobDefinition: 'score:2', containerOverrides: { command: ['score', '{{ ds }}'] } }));
 */
export function batchSubmitJob(input: OperatorInput<BatchSubmitJobInput>, options?: OperatorOptions): OperatorBody {
  return operator('batch_submit_job', input, options);
}

/**
 * Glue `StartJobRun`; ends on "Glue Job State Change" (SUCCEEDED, FAILED, TIMEOUT, STOPPED,
 * ERROR). XCom: the job name and run id; a failure carries Glue's message.
 *
 * @example
 * task('etl', glueStartJobRun({ JobName: 'orders_etl', Arguments: { '--ds': '{{ ds }}' } }), { retries: 2 });
 */
export function glueStartJobRun(input: OperatorInput<GlueStartJobRunInput>, options?: OperatorOptions): OperatorBody {
  return operator('glue_start_job_run', input, options);
}

/**
 * Step Functions `StartExecution`; ends on "Step Functions Execution Status Change".
 * XCom: the execution ARN and its output (parsed JSON); a failure carries its error and cause.
 *
 * @example
 * task('publish', sfnStartExecution({ stateMachineArn, input: { date: '{{ ds }}' } }));
 */
export function sfnStartExecution(input: OperatorInput<SfnStartExecutionInput>, options?: OperatorOptions): OperatorBody {
  return operator('sfn_start_execution', input, options);
}

/**
 * Athena `StartQueryExecution`; ends on "Athena Query State Change". XCom: the query
 * execution id and its result's S3 location (`outputLocation`), for a downstream task to read.
 *
 * @example
 * task('report', athenaQuery({ QueryString: "SELECT count(*) FROM orders WHERE ds = '{{ ds }}'", WorkGroup: 'reports' }));
 */
export function athenaQuery(input: OperatorInput<StartQueryExecutionCommandInput>, options?: OperatorOptions): OperatorBody {
  return operator('athena_query', input, options);
}

/**
 * EMR Serverless `StartJobRun`; ends on "EMR Serverless Job Run State Change" (SUCCESS,
 * FAILED, CANCELLED). XCom: the application id, job run id and ARN.
 *
 * @example
 * task('spark', emrServerlessJobRun({ applicationId, executionRoleArn, jobDriver: { sparkSubmit: { entryPoint: 's3://code/job.py' } } }));
 */
export function emrServerlessJobRun(input: OperatorInput<EmrServerlessJobRunInput>, options?: OperatorOptions): OperatorBody {
  return operator('emr_serverless_job_run', input, options);
}

/**
 * Lambda `Invoke` of another function, asynchronously (`InvocationType: 'Event'`): its
 * result comes back through the function's asynchronous invocation destinations, which
 * the Airless construct routes to its event bus ("Lambda Function Invocation Result -
 * Success/Failure"). XCom: the request id and the function's response payload.
 *
 * @example
 * task('resize', lambdaInvoke({ FunctionName: 'resize-images', Payload: { date: '{{ ds }}' } }));
 */
export function lambdaInvoke(input: OperatorInput<LambdaInvokeInput>, options?: OperatorOptions): OperatorBody {
  // Lambda keeps an asynchronous event at most 6 hours (plus a 15-minute run): without a
  // destination event by then, none will come. It has no describe call for the safety net.
  return operator('lambda_invoke', input, options, { timeoutMs: 6 * 3600_000 + 15 * 60_000 });
}

/**
 * Waits for one of your own events (put on the Airless event bus, output `EventBusName`)
 * and returns it as the XCom. The pattern is checked when the DAG is built: it must pin one
 * top-level detail field to one value (its index key). String leaves are templates.
 *
 * @example
 * task('shipped', waitForEvent({ source: 'com.acme.orders', detailType: 'Order Shipped', detail: { date: '{{ ds }}' } }, { timeout: '1d' }));
 */
export function waitForEvent(event: EventWait, options: Pick<OperatorOptions, 'timeout'> = {}): OperatorBody {
  return operator(WAIT_FOR_EVENT, undefined, options, { event });
}

/**
 * True when a task body is an operator's.
 *
 * @example
 * isOperatorBody(ecsRunTask({ cluster: 'c', taskDefinition: 't' })); // true
 */
export function isOperatorBody(v: unknown): v is OperatorBody {
  return typeof v === 'object' && v !== null && (v as { __airless?: unknown }).__airless === 'operator';
}

const OPTION_NAMES = new Set(['waitForCompletion', 'timeout', 'safetyNetInterval']);

/** Declares an operator's task (dag.ts `task()`), its input and options checked here, where the task is named. */
export function operatorTask(draft: DagDraft, taskId: string, body: OperatorBody, opts: TaskOptions): TaskHandle {
  const raw = (body.options ?? {}) as Record<string, unknown>;
  const spec: OperatorSpec = { ...body.spec };
  const fail = (msg: string): never => draft.fail(`${spec.type}: ${msg}`, taskId);
  for (const k of Object.keys(raw)) if (!OPTION_NAMES.has(k)) fail(`unknown option "${k}" (options: ${[...OPTION_NAMES].join(', ')})`);
  if (raw.waitForCompletion !== undefined) {
    if (typeof raw.waitForCompletion !== 'boolean') fail(`waitForCompletion must be true or false, got ${JSON.stringify(raw.waitForCompletion)}`);
    if (raw.waitForCompletion === false) spec.waitForCompletion = false;
  }
  const timeout = draft.duration(raw.timeout as Duration | undefined, 'timeout', taskId);
  if (timeout !== undefined) spec.timeoutMs = timeout;
  const interval = draft.duration(raw.safetyNetInterval as Duration | undefined, 'safetyNetInterval', taskId);
  if (interval !== undefined) {
    if (interval < 60_000) fail(`safetyNetInterval must be at least 1 minute (the poker's cycle), got ${JSON.stringify(raw.safetyNetInterval)}`);
    spec.safetyNetMs = interval;
  }
  if (spec.event !== undefined) {
    const checked = checkEventWait(spec.event);
    if (typeof checked === 'string') fail(checked);
  }
  if (spec.input !== undefined) spec.input = plainInput(spec.input, fail);
  else if (!body.compute && spec.type !== WAIT_FOR_EVENT) fail('needs its SDK input (an object, or a function of ctx returning it)');
  return draft.add(taskId, 'task', body.compute ? { execute: body.compute } : {}, opts, { operator: spec });
}

/** A static input must survive the manifest (JSON): no functions, dates or binary. */
function plainInput(input: unknown, fail: (msg: string) => never): unknown {
  const walk = (v: unknown, path: string): void => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) fail(`input${path} is ${v}, which JSON cannot hold`);
      return;
    }
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${path}[${i}]`));
    if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      for (const [k, x] of Object.entries(v as object)) if (x !== undefined) walk(x, `${path}.${k}`);
      return;
    }
    fail(`input${path} is ${v instanceof Date ? 'a Date' : typeof v === 'object' ? (v as object).constructor?.name ?? 'an object' : typeof v}: a static input is plain JSON (compute it in a function of ctx instead)`);
  };
  if (typeof input !== 'object' || input === null || Array.isArray(input)) fail('input must be an object (the SDK command input)');
  walk(input, '');
  return JSON.parse(JSON.stringify(input));
}
