/**
 * What EventBridge Scheduler does with a target it could not invoke: retry with back-off
 * while the schedule's RetryPolicy allows (MaximumRetryAttempts, MaximumEventAgeInSeconds;
 * AWS defaults 185 and 86,400 s), then send the target's input to the DeadLetterConfig
 * queue, with the schedule's role, carrying the attributes AWS documents (ERROR_CODE,
 * ERROR_MESSAGE, EXECUTION_ID, EXHAUSTED_RETRY_CONDITION, IS_PAYLOAD_TRUNCATED,
 * RETRY_ATTEMPTS, SCHEDULED_TIME, SCHEDULE_ARN, TARGET_ARN). An error that retrying cannot
 * cure (`retryable: false`: a denied target, a target that does not exist) goes to the
 * queue at once, without EXHAUSTED_RETRY_CONDITION.
 *
 * AWS adds jitter to its exponential back-off and does not publish the base; the emulator
 * waits 10 s, 20 s, 40 s ... (capped at 5 minutes) so a rehearsal is repeatable.
 */
import { randomUUID } from 'node:crypto';
import type { ScheduleFire } from './types.js';

export const RETRY_BASE_MS = 10_000;
export const RETRY_CAP_MS = 5 * 60_000;
const DEFAULT_ATTEMPTS = 185;
const DEFAULT_AGE_S = 86_400;

/** A fire waiting for its next delivery attempt. */
export interface PendingRetry {
  fire: ScheduleFire;
  /** Retries made so far (0 before the first retry). */
  attempt: number;
  /** When to try again (clock ms). */
  at: number;
}

/** The dead-letter event: the target's input as body, the attributes as String message attributes. */
export interface DeadLetter {
  fire: ScheduleFire;
  queueArn: string;
  body: string;
  attributes: Record<string, string>;
}

export type Exhausted = 'MaximumRetryAttempts' | 'MaximumEventAgeInSeconds';

/**
 * After a failed attempt: the time of the next one, or why there is none.
 *
 * @example
 * nextAttempt(fire, 0, now, true); // { retryAt: now + 10_000 } under the default policy
 */
export function nextAttempt(fire: ScheduleFire, attempt: number, now: number, retryable: boolean): { retryAt: number } | { exhausted?: Exhausted } {
  if (!retryable) return {};
  const policy = fire.target.RetryPolicy ?? {};
  if (attempt >= (policy.MaximumRetryAttempts ?? DEFAULT_ATTEMPTS)) return { exhausted: 'MaximumRetryAttempts' };
  const retryAt = now + Math.min(RETRY_BASE_MS * 2 ** attempt, RETRY_CAP_MS);
  if (retryAt > fire.fireTime + (policy.MaximumEventAgeInSeconds ?? DEFAULT_AGE_S) * 1000) return { exhausted: 'MaximumEventAgeInSeconds' };
  return { retryAt };
}

/**
 * The dead-letter event of a fire given up on, or undefined when the target has no
 * DeadLetterConfig (AWS then drops the event).
 *
 * @example
 * deadLetterOf(fire, err, 2, 'MaximumRetryAttempts')?.attributes.RETRY_ATTEMPTS; // '2'
 */
export function deadLetterOf(fire: ScheduleFire, error: unknown, retries: number, exhausted?: Exhausted): DeadLetter | undefined {
  const queueArn = fire.target.DeadLetterConfig?.Arn;
  if (!queueArn) return undefined;
  const e = error as { name?: string; code?: string; message?: string } | undefined;
  return {
    fire,
    queueArn,
    body: fire.target.Input ?? '{}',
    attributes: {
      ERROR_CODE: String(e?.code ?? e?.name ?? 'Error'),
      ERROR_MESSAGE: String(e?.message ?? error),
      EXECUTION_ID: randomUUID(),
      ...(exhausted ? { EXHAUSTED_RETRY_CONDITION: exhausted } : {}),
      IS_PAYLOAD_TRUNCATED: 'false',
      RETRY_ATTEMPTS: String(retries),
      SCHEDULED_TIME: new Date(Math.floor(fire.fireTime / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
      SCHEDULE_ARN: fire.scheduleArn,
      TARGET_ARN: fire.target.Arn,
    },
  };
}

/** Retryable unless the error says otherwise (`retryable: false`, as Airless errors and denials do). */
export function isRetryable(error: unknown): boolean {
  return (error as { retryable?: boolean } | undefined)?.retryable !== false;
}
