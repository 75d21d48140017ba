/**
 * What the job services' modules share: the request they get, their API errors (the SDK raises
 * each by its code), and answers in each protocol's shape.
 */
import type { Check, Scope } from '../checks.js';
import { errorResponse, type GatewayResponse, type Service } from '../errors.js';
import type { JobRunner } from './sim.js';

/** An API error of a job service: `code` is the exception name the SDK raises, `status` its HTTP status. */
export class JobApiError extends Error {
  constructor(readonly code: string, message: string, readonly status = 400) {
    super(message);
    this.name = code;
  }
}

/** One request to a job service, routed. */
export interface JobRequest {
  service: Service;
  method: string;
  /** URL path (REST-JSON services route on it). */
  path: string;
  query: URLSearchParams;
  /** The JSON protocols' operation (`X-Amz-Target` after the dot). */
  target: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer | undefined;
  /** The caller: its principal name and the ARN AWS shows for it. */
  caller: { name: string; arn: string };
}

/** The IAM checks of a request and how to serve it once they pass. */
export interface JobHandling {
  checks: Check[];
  serve: () => Promise<GatewayResponse>;
}

/** A service module: routes a request to its checks and its answer (an API error thrown by either is answered as AWS answers it). */
export type JobModule = (r: JobRequest, runner: JobRunner, scope: Scope) => JobHandling;

/** The request's JSON body ({} when empty). */
export function jsonBody(r: JobRequest): Record<string, any> {
  if (!r.body || r.body.length === 0) return {};
  const v = JSON.parse(r.body.toString('utf8')) as unknown;
  return v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, any> : {};
}

/** A 200 answer in the service's protocol. */
export function ok(service: Service, body: unknown, status = 200, headers: Record<string, string> = {}): GatewayResponse {
  const type = service === 'states' ? 'application/x-amz-json-1.0' : ['ecs', 'glue', 'athena', 'events'].includes(service) ? 'application/x-amz-json-1.1' : 'application/json';
  return { status, headers: { 'content-type': type, 'x-amzn-requestid': 'rehearsal', ...headers }, body: body === undefined ? '' : JSON.stringify(body) };
}

/** The answer to an API error, or the error again when it is not one. */
export function apiErrorResponse(service: Service, err: unknown): GatewayResponse {
  if (err instanceof JobApiError) return errorResponse(service, err.status, err.code, err.message);
  throw err;
}

/** Wraps a serve function so API errors become answers. */
export function answering(service: Service, serve: () => Promise<GatewayResponse> | GatewayResponse): () => Promise<GatewayResponse> {
  return async () => {
    try {
      return await serve();
    } catch (err) {
      return apiErrorResponse(service, err);
    }
  };
}

/** Epoch seconds, as the JSON protocols send timestamps. */
export const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);
/** ISO 8601 with milliseconds, as ECS's events write timestamps. */
export const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** Requires a string parameter, as the services' validation does. */
export function required(body: Record<string, unknown>, key: string, code = 'InvalidParameterException'): string {
  const v = body[key];
  if (typeof v !== 'string' || v === '') throw new JobApiError(code, `1 validation error detected: Value null at '${key[0]!.toLowerCase()}${key.slice(1)}' failed to satisfy constraint: Member must not be null`);
  return v;
}

/** Drops undefined fields (the services leave unset fields out). */
export function compact<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
