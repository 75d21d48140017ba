/**
 * An in-process queue with SQS semantics: delays, visibility timeouts, receive counts,
 * redrive to a dead-letter list after `maxReceiveCount`, at-least-once delivery.
 * Time comes from the Clock port, so it works on a virtual clock.
 */
import type { Clock, Delivery, QueueMessage, ReceivingQueue } from '../../engine/index.js';

interface Entry {
  id: number;
  body: string;
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
    this.sendRaw(messages.map((m) => JSON.stringify(m)), opts.delayMs ?? 0);
  }

  /** Sends raw bodies (tests use it to send malformed messages). */
  sendRaw(bodies: readonly string[], delayMs = 0): void {
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
        this.deadLetters.push(parse(e.body));
        continue;
      }
      e.visibleAt = now + visibilityMs;
      e.receipt = `${e.id}:${e.receiveCount}`;
      out.push({ message: parse(e.body), receiptHandle: e.receipt, receiveCount: e.receiveCount });
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

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
