/**
 * `AIRLESS_MAX_MAP_LENGTH`: the most instances one `expand` may create (EngineConfig.maxMapLength).
 */
import { DEFAULT_CONFIG, InvalidInputError } from '../engine/index.js';

/**
 * @example
 * maxMapLengthFrom({ AIRLESS_MAX_MAP_LENGTH: '50000' }); // 50000
 * @throws InvalidInputError when the value is not a whole number of at least 1.
 */
export function maxMapLengthFrom(env: Record<string, string | undefined>): number {
  const raw = env.AIRLESS_MAX_MAP_LENGTH;
  if (raw === undefined || raw === '') return DEFAULT_CONFIG.maxMapLength ?? 10_000;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidInputError(`AIRLESS_MAX_MAP_LENGTH must be a whole number of at least 1, got ${JSON.stringify(raw)}`);
  return n;
}
