/**
 * An in-process queue with SQS semantics: delays, visibility timeouts, receive counts,
 * redrive to a dead-letter list after `maxReceiveCount`, at-least-once delivery.
 * Time comes from the Clock port, so it works on a virtual clock.
 */
import type { Clock, Delivery, QueueMessage, ReceivingQueue } from '../../engine/index.js';
import { deepFreeze } from '../../engine/index.js';
import { jsonClone } from './records.js';

interface Entry {
  id: number;
  /** A JSON copy of what was sent, frozen (every delivery hands out the same one), or a raw body. */
  body: unknown;
  visibleAt: number;
  receiveCount: number;
  receipt?: string;
}

export class MemoryQueue implements ReceivingQueue {
  private entries = new Map<number, Entry>();
  private seq = 0;
  /** Messages that exceeded maxReceiveCount, as SQS moves them to a DLQ. */
  readonly deadLetters: unknown[] = [];
  /** Called after every send, so a runtime can wake up. */
  onSend?: () => void;
  sent = 0;

  constructor(
    private clock: Clock,
    private opts: { maxReceiveCount?: number } = {},
  ) {}

  async send(messages: readonly QueueMessage[], opts: { delayMs?: number } = {}): Promise<void> {
    // What SQS would carry (a JSON copy), without writing and parsing a string per message.
    this.enqueue(messages.map((m) => deepFreeze(jsonClone(m))), opts.delayMs ?? 0);
  }

  /** Sends raw bodies (tests use it to send malformed messages): each is parsed as JSON when received, as SQS's body would be. */
  sendRaw(bodies: readonly string[], delayMs = 0): void {
    this.enqueue(bodies.map((b) => new RawBody(b)), delayMs);
  }

  private enqueue(bodies: readonly unknown[], delayMs: number): void {
    const at = this.clock.now() + Math.max(0, delayMs);
    for (const body of bodies) {
      const id = ++this.seq;
      this.entries.set(id, { id, body, visibleAt: at, receiveCount: 0 });
      this.sent++;
    }
    this.onSend?.();
  }

  async receive(max: number, visibilityMs: number): Promise<Delivery[]> {
    const now = this.clock.now();
    const out: Delivery[] = [];
    for (const e of this.entries.values()) {
      if (out.length >= max) break;
      if (e.visibleAt > now) continue;
      e.receiveCount++;
      if (this.opts.maxReceiveCount && e.receiveCount > this.opts.maxReceiveCount) {
        this.entries.delete(e.id);
        this.deadLetters.push(messageOf(e.body));
        continue;
      }
      e.visibleAt = now + visibilityMs;
      e.receipt = `${e.id}:${e.receiveCount}`;
      out.push({ message: messageOf(e.body), receiptHandle: e.receipt, receiveCount: e.receiveCount });
    }
    return out;
  }

  async ack(d: Delivery): Promise<void> {
    const e = this.entries.get(Number(d.receiptHandle.split(':')[0]));
    if (e && e.receipt === d.receiptHandle) this.entries.delete(e.id);
  }

  async release(d: Delivery, delayMs: number): Promise<void> {
    const e = this.entries.get(Number(d.receiptHandle.split(':')[0]));
    if (e && e.receipt === d.receiptHandle) e.visibleAt = this.clock.now() + Math.max(0, delayMs);
  }

  /** Messages waiting or in flight. */
  get size(): number {
    return this.entries.size;
  }

  /** Earliest time a message becomes visible, if any. */
  nextVisibleAt(): number | undefined {
    let min: number | undefined;
    for (const e of this.entries.values()) if (min === undefined || e.visibleAt < min) min = e.visibleAt;
    return min;
  }
}

/** A body sent raw, parsed when received (not JSON: the string itself). */
class RawBody {
  constructor(readonly text: string) {}
}

function messageOf(body: unknown): unknown {
  if (!(body instanceof RawBody)) return body;
  try {
    return JSON.parse(body.text);
  } catch {
    return body.text;
  }
}
