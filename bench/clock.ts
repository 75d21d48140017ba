/**
 * A real clock with sub-millisecond resolution. `Date.now()` ticks in whole
 * milliseconds, which cannot show a per-step lag below 1 ms; `performance.now()` can.
 */
import { performance } from 'node:perf_hooks';
import type { Clock } from '../lib/engine/index.js';

/**
 * Epoch milliseconds with a fractional part, from the monotonic high-resolution timer.
 *
 * @example
 * const clock = new PerfClock();
 * const t = clock.now(); // 1767225600000.123
 */
export class PerfClock implements Clock {
  now(): number {
    return performance.timeOrigin + performance.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const t = setTimeout(resolve, Math.max(0, ms));
      signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
    });
  }
}
