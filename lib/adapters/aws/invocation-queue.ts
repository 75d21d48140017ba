/**
 * The ready queue as one worker invocation sees it. Lambda hands the worker up to ten
 * messages at once and it runs them together; each record that finishes a task sends the
 * next one's message. Here those sends wait until every record still running is waiting
 * on a send too (or `lingerMs` passed since the first), then go out together: one
 * SendMessageBatch for the invocation instead of one per record. A send returns once its
 * message is sent, so no record is acknowledged before its follow-up is on the queue.
 * Delayed sends (timers) and invocations of one record go straight through.
 */
import type { Queue, QueueMessage } from '../../engine/index.js';

interface Waiting {
  messages: readonly QueueMessage[];
  resolve: () => void;
  reject: (e: unknown) => void;
}

/**
 * @example
 * const queue = new InvocationQueue(ports.queue, event.Records.length);
 * const record = async (r) => { try { await handleMessage({ ...ports, queue }, r.body); } finally { queue.done(); } };
 */
export class InvocationQueue implements Queue {
  private running: number;
  private waiting: Waiting[] = [];
  private timer?: NodeJS.Timeout;

  constructor(private readonly inner: Queue, records: number, private readonly lingerMs = 10) {
    this.running = records;
  }

  send(messages: readonly QueueMessage[], opts: { delayMs?: number } = {}): Promise<void> {
    if ((opts.delayMs ?? 0) > 0 || this.running <= 1) return this.inner.send(messages, opts);
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ messages, resolve, reject });
      this.timer ??= setTimeout(() => this.flush(), this.lingerMs);
      this.check();
    });
  }

  /** A record is done: it sends nothing more. */
  done(): void {
    this.running -= 1;
    this.check();
  }

  private check(): void {
    if (this.waiting.length > 0 && this.waiting.length >= this.running) this.flush();
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    this.inner.send(batch.flatMap((w) => w.messages)).then(
      () => { for (const w of batch) w.resolve(); },
      (err: unknown) => { for (const w of batch) w.reject(err); },
    );
  }
}
