/**
 * The Timer port in process: one-time timers keyed by id (idempotent), delivered to the
 * queue when due. The runtime calls `deliverDue()`; `nextAt()` lets a virtual clock jump.
 */
import type { Clock, Queue, QueueMessage, Timer } from '../../engine/index.js';

export class MemoryTimer implements Timer {
  private timers = new Map<string, { at: number; message: QueueMessage }>();
  scheduled = 0;

  constructor(private clock: Clock, private queue: Queue) {}

  async schedule(id: string, at: number, message: QueueMessage): Promise<void> {
    if (this.timers.has(id)) return;
    this.timers.set(id, { at, message });
    this.scheduled++;
  }

  /** Sends every due timer's message to the queue; returns how many. */
  async deliverDue(): Promise<number> {
    const now = this.clock.now();
    const due = [...this.timers].filter(([, t]) => t.at <= now).sort((a, b) => a[1].at - b[1].at);
    for (const [id] of due) this.timers.delete(id);
    if (due.length) await this.queue.send(due.map(([, t]) => t.message));
    return due.length;
  }

  nextAt(): number | undefined {
    let min: number | undefined;
    for (const t of this.timers.values()) if (min === undefined || t.at < min) min = t.at;
    return min;
  }

  get size(): number {
    return this.timers.size;
  }
}
