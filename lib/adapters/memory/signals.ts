/**
 * The memory store's signals: events that may arrive before anyone waits for them, kept
 * until their expiry (the DynamoDB store keeps them in its kv table with a TTL).
 */
import type { SignalRecord } from '../../engine/index.js';
import { isExpired } from '../expiry.js';
import { compact, jsonClone } from './records.js';

export class MemorySignals {
  private readonly signals = new Map<string, SignalRecord>();

  put(sig: SignalRecord): void {
    this.signals.set(sig.key, compact({ ...sig, payload: jsonClone(sig.payload) }));
  }

  /** `expiresAt` is epoch seconds, as every expiry; a signal at or past it is gone. */
  get(key: string, now: number): SignalRecord | undefined {
    const s = this.signals.get(key);
    if (!s) return undefined;
    if (isExpired(s.expiresAt, now)) {
      this.signals.delete(key);
      return undefined;
    }
    return { ...s, payload: jsonClone(s.payload) };
  }
}
