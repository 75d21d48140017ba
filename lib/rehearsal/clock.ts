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

/** How long a scenario may wait for something. */
export interface WaitBounds {
  /**
   * Rehearsal (virtual) time that may pass first, the real bound: what the stack does is
   * timed in virtual time (schedules, delays, leases), and the warp moves it on only when
   * nothing is in flight, so a slow machine takes longer in real time but not in virtual.
   */
  virtualMs: number;
  /** A backstop in real time, for a rehearsal where nothing moves at all. @default 600_000 */
  wallMs?: number;
}

/**
 * Resolves when `done()` holds; rejects when `bounds.virtualMs` of rehearsal time have
 * passed first (a stuck system: the warp keeps moving time on through its ticks), or,
 * only as a backstop, `bounds.wallMs` of real time.
 *
 * @example
 * await waitOnClock(r.clock, async () => (await store.getRun(dagId, runId))?.state === 'success', 'the run to end', { virtualMs: 30 * 60_000 });
 */
export async function waitOnClock(
  clock: { now(): number }, done: () => Promise<boolean> | boolean, what: string, bounds: WaitBounds,
): Promise<void> {
  const fromVirtual = clock.now();
  const fromReal = realNow();
  const wallMs = bounds.wallMs ?? 600_000;
  while (!(await done())) {
    const passed = clock.now() - fromVirtual;
    if (passed > bounds.virtualMs) {
      throw new Error(`timed out waiting for ${what}: ${minutes(passed)} of rehearsal time passed (bound ${minutes(bounds.virtualMs)}; virtual time ${new Date(clock.now()).toISOString()})`);
    }
    if (realNow() - fromReal > wallMs) {
      throw new Error(`timed out waiting for ${what}: nothing came in ${Math.round(wallMs / 1000)} s of real time, while ${minutes(passed)} of rehearsal time passed (virtual time ${new Date(clock.now()).toISOString()})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;
