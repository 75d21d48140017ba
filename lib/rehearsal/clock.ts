/**
 * The rehearsal's clock: real time plus an offset that `--time-warp` raises. The offset
 * lives in a SharedArrayBuffer, so every simulated container (worker thread) and the
 * SQS server thread read the same virtual time without messages.
 */

/** Shared virtual clock. Index 0 of the Float64Array: offset in ms added to real time. */
export class RehearsalClock {
  readonly buffer: SharedArrayBuffer;
  private readonly offset: Float64Array;

  /**
   * @example
   * const clock = new RehearsalClock(Date.parse('2026-01-01T23:55:00Z'));
   */
  constructor(startAt?: number) {
    this.buffer = new SharedArrayBuffer(8);
    this.offset = new Float64Array(this.buffer);
    if (startAt !== undefined) this.offset[0] = startAt - realNow();
  }

  now(): number {
    return realNow() + this.offset[0];
  }

  /** Moves virtual time forward to `at` (never backwards). */
  jumpTo(at: number): void {
    const delta = at - this.now();
    if (delta > 0) this.offset[0] += delta;
  }
}

// Captured at load, before anything could patch Date in this thread.
const realNowFn = Date.now.bind(Date);
function realNow(): number {
  return realNowFn();
}
