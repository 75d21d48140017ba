/**
 * Record expiry, one unit everywhere: `expiresAt` is epoch SECONDS, the unit DynamoDB's
 * TTL reads, on runs, tasks, XComs, poke claims and signals alike. Signals written before
 * issue 10 carried epoch milliseconds; a signal lives a day by default, so such rows can
 * still be read after a deploy: {@link expiresAtSeconds} tells the units apart by size.
 */

/** Epoch seconds of year 5138, or epoch milliseconds of 1973: no expiry of either unit lies between. */
const MS_FROM = 100_000_000_000;

/**
 * An `expiresAt` as read from storage, in epoch seconds (an old millisecond value is converted).
 *
 * @example
 * expiresAtSeconds(1_767_225_600); // 1_767_225_600
 * expiresAtSeconds(1_767_225_600_000); // 1_767_225_600 (a row written before issue 10)
 */
export function expiresAtSeconds(expiresAt: number): number {
  return expiresAt >= MS_FROM ? Math.ceil(expiresAt / 1000) : expiresAt;
}

/**
 * True when a record with this `expiresAt` is gone at `nowMs` (epoch milliseconds, the
 * engine's clock): at or past its second.
 *
 * @example
 * isExpired(100, 100_000); // true
 * isExpired(100, 99_999); // false
 */
export function isExpired(expiresAt: number, nowMs: number): boolean {
  return expiresAtSeconds(expiresAt) * 1000 <= nowMs;
}
