/**
 * Retry timing as in Airflow's `next_retry_datetime`: a fixed delay, or with
 * exponential backoff `delay * 2^(try-1)` plus a deterministic jitter of up to the same
 * amount (hashed from the task instance, so every scheduler computes the same time),
 * capped by `maxRetryDelayMs` (24 hours when unset, as Airflow caps it).
 */
import { hashInt } from './hash.js';
import type { RetryPolicy } from '../model/types.js';

export const MAX_BACKOFF_MS = 24 * 3600_000;

/**
 * Delay before the retry that follows failed try `tryNumber` (1-based).
 *
 * @example
 * retryDelayMs({ retries: 3, retryDelayMs: 1000, retryExponentialBackoff: false }, 2, 'k'); // 1000
 */
export function retryDelayMs(policy: RetryPolicy, tryNumber: number, jitterKey: string): number {
  if (!policy.retryExponentialBackoff) return policy.retryDelayMs;
  const cap = policy.maxRetryDelayMs ?? MAX_BACKOFF_MS;
  const exp = Math.min(Math.max(tryNumber - 1, 0), 40);
  const min = Math.ceil(policy.retryDelayMs * 2 ** exp);
  if (min <= 0) return 0;
  if (min >= cap) return cap;
  const jitter = hashInt(`${jitterKey}#${tryNumber}`) % min;
  return Math.min(min + jitter, cap);
}

/** True when a failed try may be retried. */
export function canRetry(policy: RetryPolicy, tryNumber: number): boolean {
  return tryNumber <= policy.retries;
}
