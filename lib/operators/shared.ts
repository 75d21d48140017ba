/**
 * What the job drivers share: SDK client settings, AWS errors as one-line try failures
 * (validation errors and missing grants not retryable), console and CloudWatch links, and
 * the shape of a service for the drivers, the mocks and the tests.
 */
import { AirlessError, sha256Hex, type AwsEvent, type JobContext, type JobDriver, type JobRef, type JobStatus, type JobSubmission } from '../engine/index.js';

/** Where the drivers' SDK clients point (default: the SDK's own chain: Lambda's role, AWS_REGION, AWS_ENDPOINT_URL). */
export interface JobClientOptions {
  region?: string;
  /** One endpoint for every service: a rehearsal or LocalStack. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** @default 3 */
  maxAttempts?: number;
}

/** How a simulated job ends (mocks, tests): `fail` is the reason it fails with, `output` what it produced. */
export interface SimulatedEnd {
  fail?: string;
  output?: unknown;
}

/** One AWS job service: its real driver, and the pure parts the mocks use too. */
export interface JobService {
  type: string;
  driver(opts?: JobClientOptions): JobDriver;
  /** What a submit of `input` would give, without calling AWS (mocks): ids made from `n`. */
  fake(input: Record<string, any>, ctx: JobContext, n: number, region: string): JobSubmission;
  /** The end event AWS publishes for a job that ends so (documented shape). */
  endEvent(ref: JobRef, end: SimulatedEnd, at: number): AwsEvent;
  fromEvent(ref: JobRef, event: AwsEvent): JobStatus;
}

/** SDK client settings from the options. */
export function clientConfig(o: JobClientOptions = {}) {
  return {
    maxAttempts: o.maxAttempts ?? 3,
    ...(o.region ? { region: o.region } : o.endpoint ? { region: 'us-east-1' } : {}),
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    ...(o.credentials ? { credentials: o.credentials } : o.endpoint ? { credentials: { accessKeyId: 'test', secretAccessKey: 'test' } } : {}),
  };
}

/**
 * Loads a service's SDK module and makes its client on first use: importing the seven job
 * clients takes over a second of a cold start, which a function that never starts a job
 * should not pay.
 *
 * @example
 * const ecs = lazySdk(() => import('@aws-sdk/client-ecs'), (m) => new m.ECSClient(clientConfig(opts)));
 * const { sdk, client } = await ecs();
 */
export function lazySdk<M, C>(load: () => Promise<M>, make: (sdk: M) => C): () => Promise<{ sdk: M; client: C }> {
  let v: Promise<{ sdk: M; client: C }> | undefined;
  return () => (v ??= load().then((sdk) => ({ sdk, client: make(sdk) })));
}

/** The region a client signs for. */
export async function regionOf(client: { config: { region: unknown } }): Promise<string> {
  const r = client.config.region;
  return String(typeof r === 'function' ? await (r as () => Promise<string>)() : r);
}

const THROTTLED = /throttl|toomanyrequests|requestlimitexceeded|ratelimit|slowdown|concurrentrunsexceeded|serviceunavailable|internal/i;

/**
 * An AWS error as the try shows it: `Call refused: Name: message`, retryable only when
 * trying again can help (throttling, a server error, the network). A missing grant says
 * where grants come from.
 *
 * @example
 * throw awsFailure('ecs:RunTask', err);
 */
export function awsFailure(call: string, err: unknown): AirlessError {
  const e = err as { name?: string; message?: string; $fault?: string; $metadata?: { httpStatusCode?: number } };
  const name = e?.name ?? 'Error';
  const status = e?.$metadata?.httpStatusCode;
  const retryable = THROTTLED.test(name) || e?.$fault === 'server' || (status !== undefined && status >= 500) || (status === undefined && e?.$fault === undefined);
  const denied = /accessdenied|unauthorized|not authorized/i.test(`${name} ${e?.message ?? ''}`);
  const hint = denied ? ' (name this resource in new Airless(…, { jobs }) so the worker may use it)' : '';
  return new AirlessError(`${call} refused: ${name}: ${e?.message ?? String(err)}${hint}`, { cause: err, retryable: retryable && !denied });
}

/**
 * One AWS call, its error as the try shows it ({@link awsFailure}).
 *
 * @example
 * const out = await call('ecs:RunTask', () => client.send(new RunTaskCommand(input)));
 */
export async function call<T>(name: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    throw awsFailure(name, err);
  }
}

/** A refusal the caller decides is final (a job that is gone, an input that cannot work). */
export function finalFailure(message: string): AirlessError {
  return new AirlessError(message, { retryable: false });
}

/** An idempotency token of a try (services want 32 to 64 characters). */
export function tokenOf(ctx: JobContext, length = 64): string {
  return sha256Hex(ctx.name).slice(0, length);
}

/** A console page. */
export function consoleUrl(region: string, service: string, fragment: string): string {
  return `https://${region}.console.aws.amazon.com/${service}/home?region=${region}#${fragment}`;
}

/** CloudWatch escapes path parts twice, `%` written as `$`. */
const cw = (s: string) => encodeURIComponent(encodeURIComponent(s)).replace(/%/g, '$');

/** The CloudWatch console page of one log stream. */
export function logStreamUrl(region: string, group: string, stream: string): string {
  return consoleUrl(region, 'cloudwatch', `logsV2:log-groups/log-group/${cw(group)}/log-events/${cw(stream)}`);
}

/** The CloudWatch console page of a log group. */
export function logGroupUrl(region: string, group: string): string {
  return consoleUrl(region, 'cloudwatch', `logsV2:log-groups/log-group/${cw(group)}`);
}

/** The event envelope AWS wraps a detail in. */
export function envelope(source: string, detailType: string, detail: Record<string, unknown>, ref: JobRef, at: number, resources: string[] = []): AwsEvent {
  return {
    version: '0', id: sha256Hex(`${ref.id}\n${detailType}\n${at}`).slice(0, 36), 'detail-type': detailType, source,
    account: ref.account ?? '123456789012', time: new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'), region: ref.region ?? 'us-east-1', resources, detail,
  };
}

/** A JSON value of a service field (Step Functions output, Lambda payload): parsed when it is JSON text. */
export function parsed(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Text of a field for a reason: absent parts left out. */
export function reasonOf(...parts: Array<string | number | undefined | null | false>): string {
  return parts.filter((x) => x !== undefined && x !== null && x !== false && x !== '').join(': ');
}
