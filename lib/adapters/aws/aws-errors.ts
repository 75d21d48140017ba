/**
 * Mapping SDK errors to {@link AirlessError}: the edge only needs to know whether
 * trying again can help.
 */
import { AirlessError } from '../../engine/index.js';

interface SdkErrorShape {
  name?: string;
  message?: string;
  $fault?: string;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: number };
}

const RETRYABLE_NAMES = /Throttl|TooManyRequests|InternalServer|ServiceUnavailable|SlowDown|RequestTimeout|TimeoutError|ECONNRESET|ECONNREFUSED/;

/** True when `e` is an SDK error with this name (or `Code`). */
export function isAwsError(e: unknown, ...names: string[]): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const err = e as SdkErrorShape & { Code?: string };
  return names.includes(err.name ?? '') || names.includes(err.Code ?? '');
}

/**
 * Wraps an SDK error, naming the service call; server faults, throttling and network
 * errors are retryable.
 *
 * @example
 * try { await s3.send(cmd); } catch (e) { throw wrapAwsError('S3 GetObject s3://b/k', e); }
 */
export function wrapAwsError(what: string, cause: unknown): AirlessError {
  if (cause instanceof AirlessError) return cause;
  const e = (typeof cause === 'object' && cause !== null ? cause : {}) as SdkErrorShape;
  const name = e.name ?? 'Error';
  const retryable =
    e.$fault === 'server' ||
    e.$retryable !== undefined ||
    (e.$metadata?.httpStatusCode ?? 0) >= 500 ||
    RETRYABLE_NAMES.test(name) ||
    RETRYABLE_NAMES.test(e.message ?? '');
  return new AirlessError(`${what} failed: ${name}: ${e.message ?? String(cause)}`, { cause, retryable });
}
