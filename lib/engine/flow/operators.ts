/**
 * An operator's try in the worker (TaskSpec.operator; the SDK's `ecsRunTask(...)` and its
 * kin): `execute` computes the SDK input (the spec's templated input, or the task's own
 * `execute` in the bundle), submits the job through the runtime's driver for its type and
 * defers on the job's end event; the resume (`__job`) turns the job's status into the try's
 * outcome: its XCom, or a failure in AWS's own words. `wait_for_event` defers on a static
 * pattern and returns the event. docs/adr/0017-events-and-jobs.md.
 */
import type { DeferRequest, FailRequest, TaskContext } from '../model/context.js';
import type { RunCtx } from '../rules/dag-index.js';
import { runExecuteCallback } from './callbacks-run.js';
import { AirlessError } from '../model/errors.js';
import { sha256Hex } from '../rules/hash.js';
import type { TaskInstance, TaskSpec } from '../model/types.js';
import type { EventWait, JobStatus } from '../model/events.js';
import type { LoadedBundle, Ports } from '../model/ports.js';
import { secretVarsFor } from './secrets.js';
import { renderDeep } from '../rules/template.js';
import type { Outcome } from './worker-finish.js';
import { isEventTrigger, JOB_RESUME, type JobEnd } from './event-wait.js';
import { jobLabel } from '../write/job-stop.js';

/** The operators of the `airless` package, by type. */
export const OPERATOR_TYPES = [
  'ecs_run_task', 'batch_submit_job', 'glue_start_job_run', 'sfn_start_execution', 'athena_query', 'emr_serverless_job_run', 'lambda_invoke',
] as const;
export type OperatorType = (typeof OPERATOR_TYPES)[number];
/** The operator that waits for an event and starts nothing. */
export const WAIT_FOR_EVENT = 'wait_for_event';
/** Its resume method: the event is the task's value. */
const EVENT_RESUME = '__event';

/** Runs a body under the try's execution timeout (worker.ts runBody, passed in: the worker imports this module). */
export type RunBody = (p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance, body: (ctx: TaskContext) => unknown) => Promise<Outcome>;

/**
 * A job name for a try: readable, within every service's limits (80 characters, letters,
 * digits, `-` and `_`), and unique per run, task and try, so a name-unique service (Step
 * Functions) never refuses a retry.
 *
 * @example
 * jobName('etl', 'scheduled__2026-01-01T00:00:00+00:00', 'train', 2); // 'airless-etl-train-3f9a…-2'
 */
export function jobName(dagId: string, runId: string, taskId: string, tryNumber: number): string {
  const readable = `airless-${dagId}-${taskId}`.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 48);
  return `${readable}-${sha256Hex(`${dagId}/${runId}/${taskId}`).slice(0, 16)}-${tryNumber}`;
}

/** The try of an operator task, whatever its method. */
export async function runOperatorTry(p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance, bundle: LoadedBundle, runBody: RunBody): Promise<Outcome> {
  const op = t.operator!;
  const method = ti.nextMethod ?? 'execute';
  if (method === JOB_RESUME) return jobOutcome(p, ti);
  if (method === EVENT_RESUME) return { kind: 'success', value: ti.triggerEvent?.payload };
  if (method !== 'execute') return { kind: 'failed', error: `operator task ${t.taskId} has no method ${method}`, noRetry: true };
  await runExecuteCallback(p, rc, t, ti);
  if (op.type === WAIT_FOR_EVENT) {
    const event = renderDeep(op.event!, await secretVarsFor(p, rc, ti.taskId, op.event)) as EventWait;
    return runBody(p, rc, t, ti, () => ({ __airless: 'defer', event, resume: EVENT_RESUME, timeout: op.timeoutMs }) satisfies DeferRequest);
  }
  const driver = p.jobs?.[op.type];
  if (!driver) return { kind: 'failed', error: `${op.type}: this runtime cannot start ${op.type} jobs (in testDag, mock it with operatorMocks.${op.type})`, noRetry: true };
  const compute = op.input === undefined ? bundle.taskMethod(rc.run.dagId, t.taskId, 'execute') : undefined;
  if (op.input === undefined && !compute) return { kind: 'failed', error: `${op.type} task ${t.taskId} has no input in bundle ${rc.run.bundleVersion}`, noRetry: true };
  try {
    await compute?.ready?.();
  } catch (err) {
    return { kind: 'failed', error: `task ${t.taskId} could not start: ${(err as Error).message}` };
  }
  const fields = { dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber };
  return runBody(p, rc, t, ti, async (ctx) => {
    const input = compute ? await compute(ctx) : renderDeep(op.input, await secretVarsFor(p, rc, ti.taskId, op.input));
    let sub;
    try {
      sub = await driver.submit(input, { ...fields, name: jobName(ti.dagId, ti.runId, ti.taskId, ti.tryNumber), signal: ctx.signal });
    } catch (err) {
      const message = oneLine(`${op.type}: ${(err as Error)?.message ?? String(err)}`);
      // A validation error, a missing grant, an unknown cluster: no retry storm.
      if (err instanceof AirlessError && !err.retryable) throw { __airless: 'fail', reason: message } satisfies FailRequest;
      throw new AirlessError(message, { cause: err, retryable: true });
    }
    p.log.info(`submitted ${jobLabel(sub.ref)}`, { ...fields, job: sub.ref.id, ...sub.links });
    const value = sub.links ? { ...sub.value, links: sub.links } : sub.value;
    if (op.waitForCompletion === false) return value;
    return { __airless: 'defer', event: sub.wait, job: sub.ref, resume: JOB_RESUME, kwargs: { submitted: value }, timeout: op.timeoutMs } satisfies DeferRequest;
  });
}

/** The resume of a job's task: its status as the try's outcome. */
function jobOutcome(p: Ports, ti: TaskInstance): Outcome {
  const job = isEventTrigger(ti.trigger) ? ti.trigger.job : undefined;
  if (!job) return { kind: 'failed', error: `task ${ti.taskId} resumed without its job`, noRetry: true };
  const end = (ti.triggerEvent?.payload ?? {}) as JobEnd;
  const status: JobStatus | undefined = end.jobStatus ?? (end.jobEvent ? p.jobs?.[job.type]?.fromEvent(job, end.jobEvent) : undefined);
  const submitted = (ti.nextKwargs?.submitted ?? {}) as Record<string, unknown>;
  const fields = { dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber, job: job.id };
  const links = status ? p.jobs?.[job.type]?.endLinks?.(job, status) : undefined;
  if (links) p.log.info(`${jobLabel(job)} ended`, { ...fields, ...links });
  switch (status?.state) {
    case 'succeeded': {
      const merged = links ? { ...submitted, ...status.value, links: { ...(submitted.links as object | undefined), ...links } } : { ...submitted, ...status.value };
      return { kind: 'success', value: merged };
    }
    case 'failed':
      return { kind: 'failed', error: oneLine(`${jobLabel(job)} failed: ${status.reason}`) };
    case 'gone':
      return { kind: 'failed', error: oneLine(`${jobLabel(job)} vanished: ${status.reason}`) };
    default:
      return { kind: 'failed', error: `${jobLabel(job)}: the task resumed before the job ended` };
  }
}

/** Errors are one line where the user sees them. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 1000 ? `${flat.slice(0, 997)}...` : flat;
}
