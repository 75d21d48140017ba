/**
 * Coalescing of writes that can be merged (SQS sends, idempotent set additions): while a
 * request for a key is in flight, further calls for that key wait and then go out
 * together in the next request. A lone call goes out at once, so nothing waits when the
 * system is quiet; under load (a worker running a batch of ten messages at once) ten
 * sends become one or two requests. Each caller resolves with the result of the request
 * that carried its part, and only after it was written: nothing is acknowledged early.
 */

interface Waiting<E, R> {
  entries: E[];
  settle: Array<{ resolve: (r: R) => void; reject: (e: unknown) => void }>;
}

/**
 * @example
 * const sends = new Coalescer<string, void>();
 * await sends.run('queue', ['a'], (bodies) => sendBatch(bodies));
 */
export class Coalescer<E, R> {
  private readonly inFlight = new Set<string>();
  private readonly waiting = new Map<string, Waiting<E, R>>();

  /** Writes `entries` now, or with the next request for `key` if one is in flight. */
  run(key: string, entries: readonly E[], write: (entries: E[]) => Promise<R>): Promise<R> {
    if (!this.inFlight.has(key)) return this.start(key, [...entries], write);
    let w = this.waiting.get(key);
    if (!w) this.waiting.set(key, (w = { entries: [], settle: [] }));
    w.entries.push(...entries);
    return new Promise<R>((resolve, reject) => w!.settle.push({ resolve, reject }));
  }

  private async start(key: string, entries: E[], write: (entries: E[]) => Promise<R>): Promise<R> {
    this.inFlight.add(key);
    try {
      return await write(entries);
    } finally {
      this.inFlight.delete(key);
      const next = this.waiting.get(key);
      if (next) {
        this.waiting.delete(key);
        this.start(key, next.entries, write).then(
          (r) => { for (const s of next.settle) s.resolve(r); },
          (e) => { for (const s of next.settle) s.reject(e); },
        );
      }
    }
  }
}
