/**
 * Kept events in process (the EventStore part of the Store port, lib/engine/model/events.ts),
 * with the DynamoDB items' semantics (lib/adapters/aws/dynamo-events.ts): the newest
 * {@link KEEP_PER_KEY} events per key, each until its own expiry.
 */
import type { KeptEvent } from '../../engine/index.js';
import { isExpired } from '../expiry.js';
import { jsonClone } from './records.js';

/** Events kept per key; older ones are dropped. */
export const KEEP_PER_KEY = 10;

interface Entry { kept: KeptEvent; expiresAt: number }

/**
 * @example
 * const kept = new MemoryKeptEvents();
 * await kept.keepEvent('aws.batch…jobId="j-1"', { event, receivedAt: now }, nowSec + 86_400);
 */
export class MemoryKeptEvents {
  private readonly byKey = new Map<string, Entry[]>();

  async keepEvent(key: string, kept: KeptEvent, expiresAtSec: number): Promise<void> {
    const list = this.byKey.get(key) ?? [];
    list.push({ kept: jsonClone(kept), expiresAt: expiresAtSec });
    this.byKey.set(key, list.slice(-KEEP_PER_KEY));
  }

  async keptEvents(key: string, now: number): Promise<KeptEvent[]> {
    const list = (this.byKey.get(key) ?? []).filter((e) => !isExpired(e.expiresAt, now));
    if (list.length) this.byKey.set(key, list);
    else this.byKey.delete(key);
    return list.map((e) => jsonClone(e.kept));
  }
}
