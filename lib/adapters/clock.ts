/**
 * Clocks: the system clock for `airless dev`, and a virtual clock for tests and
 * `--time-warp`, whose time moves only when told to (so nothing sleeps for real).
 */
import type { Clock } from '../engine/index.js';

export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const t = setTimeout(resolve, Math.max(0, ms));
      signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
    });
  }
}

interface Sleeper {
  at: number;
  resolve: () => void;
}

/**
 * A clock whose time is moved by `advanceTo`/`advanceBy`; sleepers wake in time order.
 *
 * @example
 * const clock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
 * const done = clock.sleep(60_000);
 * clock.advanceBy(60_000); // `done` resolves
 */
export class VirtualClock implements Clock {
  private sleepers: Sleeper[] = [];
  private holds = 0;
  private calls = 0;
  constructor(private t: number) {}

  /**
   * Counts every hold taken and released: a runtime that sees it change knows in-flight
   * work is still reaching the outside world (a store call began or ended), which is
   * progress, however long each call took in real time.
   */
  get activity(): number {
    return this.calls;
  }

  /**
   * Marks real I/O in flight (a DynamoDB call): until the returned release is called,
   * {@link nextWakeAt} reports no sleeper, so a runtime that moves time when in-flight
   * work looks idle does not move it under a task that is only waiting for I/O.
   */
  hold(): () => void {
    this.holds += 1;
    this.calls += 1;
    let released = false;
    return () => {
      if (!released) {
        this.holds -= 1;
        this.calls += 1;
      }
      released = true;
    };
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const s: Sleeper = { at: this.t + Math.max(0, ms), resolve };
      this.sleepers.push(s);
      signal?.addEventListener('abort', () => {
        this.sleepers = this.sleepers.filter((x) => x !== s);
        resolve();
      }, { once: true });
    });
  }

  /** Earliest time a sleeper waits for, if any. */
  nextWakeAt(): number | undefined {
    if (this.holds > 0) return undefined;
    let min: number | undefined;
    for (const s of this.sleepers) if (min === undefined || s.at < min) min = s.at;
    return min;
  }

  advanceTo(t: number): void {
    if (t < this.t) return;
    this.t = t;
    const due = this.sleepers.filter((s) => s.at <= t).sort((a, b) => a.at - b.at);
    this.sleepers = this.sleepers.filter((s) => s.at > t);
    for (const s of due) s.resolve();
  }

  advanceBy(ms: number): void {
    this.advanceTo(this.t + ms);
  }
}

/**
 * Holds a virtual clock while each store call is in flight (see VirtualClock.hold): on a
 * real database (DynamoDB Local) a call takes real milliseconds, and the runtime must not
 * mistake a task waiting for its write for a task waiting on the clock, or it jumps time
 * past the task's lease.
 *
 * @example
 * const store = holdClockDuringCalls(new DynamoStore(...), clock);
 */
export function holdClockDuringCalls<S extends object>(store: S, clock: { hold(): () => void }): S {
  return new Proxy(store, {
    get(target, prop) {
      const v = (target as Record<string | symbol, unknown>)[prop];
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        const release = clock.hold();
        return Promise.resolve((v as (...a: unknown[]) => unknown).apply(target, args)).finally(release);
      };
    },
  });
}
