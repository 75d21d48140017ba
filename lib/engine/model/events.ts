/**
 * Waiting for an event, and the jobs that end with one: the types the engine, the operators
 * and the runtimes share. A task that waits for an EventBridge event is `deferred` with an
 * {@link EventTrigger}; an operator's task also carries the {@link JobRef} of the job it
 * started, which a {@link JobDriver} (a port: the AWS SDK on AWS, mocks in tests) can
 * describe and stop. docs/adr/0017-events-and-jobs.md.
 */
/** A parsed EventBridge event pattern: field names to condition lists, nested objects, `$or` (rules/event-pattern.ts checks and matches it). */
export type EventPattern = { readonly [field: string]: unknown };

/** An EventBridge event as a rule's target receives it (field names as AWS writes them). */
export interface AwsEvent {
  version?: string;
  id?: string;
  'detail-type': string;
  source: string;
  account?: string;
  time?: string;
  region?: string;
  resources?: string[];
  detail: Record<string, unknown>;
}

/**
 * What a task waits for: `ctx.defer({ event: { source, detailType, detail } })`. `detail` is
 * an EventBridge pattern of the event's detail; a bare value stands for a one-value list
 * (`{ orderId: 'o-1' }` is `{ orderId: ['o-1'] }`).
 */
export interface EventWait {
  source: string;
  /** One detail-type; a job service's end events may be several (`['… - Success', '… - Failure']`). */
  detailType: string | readonly string[];
  detail?: Record<string, unknown>;
}

/** The job an operator started: enough for its driver to describe and stop it. */
export interface JobRef {
  /** Operator type (`ecs_run_task`...): which driver owns the job. */
  type: string;
  /** The job's own id (task ARN, job id, run id, execution ARN, query id, request id). */
  id: string;
  /** Whatever else describe and stop need (cluster, job name, application id...). */
  [field: string]: string;
}

/** The trigger of a task waiting for an event (stored on the task instance). */
export interface EventTrigger {
  /** The EventBridge pattern the event must match. */
  pattern: EventPattern;
  /** Index key: source, detail-type and one identifying detail field (rules/event-key.ts). */
  key: string;
  /** The job whose completion this is, for an operator's task. */
  job?: JobRef;
}

/** What a job's end event (or a describe) says. */
export type JobStatus =
  | { state: 'running' }
  | { state: 'succeeded'; value: Record<string, unknown> }
  | { state: 'failed'; reason: string; value?: Record<string, unknown> }
  /** The service no longer knows the job (deleted by hand, expired). */
  | { state: 'gone'; reason: string };

/** A submitted job: its reference, what the task returns about it, and the event that ends it. */
export interface JobSubmission {
  ref: JobRef;
  /** Ids, ARNs and locations known at submit (part of the task's XCom). */
  value: Record<string, unknown>;
  /** The event that ends the job. */
  wait: EventWait;
  /** Where to read the job's logs or see it (console and CloudWatch URLs), by name. */
  links?: Record<string, string>;
}

/** The task a job is submitted for: names and tags the job so that it can be traced back. */
export interface JobContext {
  dagId: string;
  runId: string;
  taskId: string;
  tryNumber: number;
  /** A name for the job, unique per try, within the services' name limits. */
  name: string;
  signal?: AbortSignal;
}

/**
 * One AWS job service as the engine uses it. Errors thrown by `submit` fail the try:
 * an AirlessError with `retryable: false` (a validation error, a missing grant) fails it
 * without retries.
 */
export interface JobDriver {
  submit(input: unknown, ctx: JobContext): Promise<JobSubmission>;
  /** The status an end event gives (`running` for an event that does not end the job). */
  fromEvent(ref: JobRef, event: AwsEvent): JobStatus;
  /** The status now (the safety net when no event arrived); absent when the service has no describe call. */
  describe?(ref: JobRef): Promise<JobStatus>;
  /** Stops the job; absent when the service cannot (an asynchronous Lambda invocation). */
  stop?(ref: JobRef, reason: string): Promise<void>;
  /** Links known once the job ended (a log stream created when it started). */
  endLinks?(ref: JobRef, status: JobStatus): Record<string, string> | undefined;
}

/** Drivers by operator type. */
export type JobDrivers = Readonly<Record<string, JobDriver>>;

/** An event kept for tasks that start waiting after it arrived. */
export interface KeptEvent {
  event: AwsEvent;
  receivedAt: number;
}

/**
 * Store operations of events that arrive before their wait is stored (part of the Store
 * port): kept under an index key until they expire (DynamoDB TTL), several per key.
 */
export interface EventStore {
  /** Keeps an event under `key` until `expiresAtSec` (epoch seconds); a key keeps its newest few. */
  keepEvent(key: string, kept: KeptEvent, expiresAtSec: number): Promise<void>;
  /** The unexpired events kept under `key`, oldest first. */
  keptEvents(key: string, now: number): Promise<KeptEvent[]>;
}

/** A static description of an operator task, in the manifest (TaskSpec.operator). */
export interface OperatorSpec {
  /** `ecs_run_task`, `batch_submit_job`, `glue_start_job_run`, `sfn_start_execution`, `athena_query`, `emr_serverless_job_run`, `lambda_invoke`, or `wait_for_event`. */
  type: string;
  /** The SDK input, string leaves templated; absent when the task computes it (`execute` in the bundle). */
  input?: unknown;
  /** For `wait_for_event`: the event, string leaves templated. */
  event?: EventWait;
  /** False: succeed once the job is submitted. @default true */
  waitForCompletion?: boolean;
  /** The job fails its try (and is stopped) when it has not ended this long after it was submitted. */
  timeoutMs?: number;
  /** Without an event, the job is described this long after submit and every such interval after. */
  safetyNetMs?: number;
}
