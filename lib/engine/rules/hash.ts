/**
 * Stable hashing for sensor targets and deterministic jitter. `node:crypto` is pure
 * computation (no clock, no I/O), so the engine may use it.
 */
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal values serialize equally. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/** Hex sha256 of a string (UTF-8) or bytes: the one definition (bundles hash their bytes with it too). */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A non-negative integer below 2^48 derived from the text. */
export function hashInt(text: string): number {
  return parseInt(sha256Hex(text).slice(0, 12), 16);
}
