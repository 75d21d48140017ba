/**
 * EventBridge Scheduler names: `[0-9a-zA-Z-_.]{1,64}`, unique per group. Timer ids and
 * DAG ids are mapped to names deterministically, so a retry targets the same schedule
 * (creation is idempotent and cancel finds what schedule created).
 */
import { createHash } from 'node:crypto';

export const SCHEDULE_NAME_MAX = 64;
const VALID = /^[0-9a-zA-Z_.-]{1,64}$/;
const HASH_HEX = 16;
/** Every hashed name ends like this; an id that already ends like this is hashed too, so a kept id never equals a hashed one. */
const HASHED_SUFFIX = /--[0-9a-f]{16}$/;

/**
 * The schedule name for an id: the id itself when it is a valid name, otherwise a
 * sanitized, truncated prefix plus `--` and 16 hex of sha256(id). Distinct ids give
 * distinct names (up to a 64-bit hash collision).
 *
 * @example
 * scheduleName('etl');                        // 'etl'
 * scheduleName('etl/run:1/extract/retry-2');  // 'etl-run-1-extract-retry-2--3f9c0a1b2c3d4e5f'
 */
export function scheduleName(id: string): string {
  if (VALID.test(id) && !HASHED_SUFFIX.test(id)) return id;
  const suffix = `--${createHash('sha256').update(id, 'utf8').digest('hex').slice(0, HASH_HEX)}`;
  const prefix = id.replace(/[^0-9a-zA-Z_.-]/g, '-').slice(0, SCHEDULE_NAME_MAX - suffix.length);
  return `${prefix}${suffix}`;
}
