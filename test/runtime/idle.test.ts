/**
 * The embedded runtime on a virtual clock moves time under in-flight work only when that
 * work is idle. A starved CPU makes each store call take real time: the idle window must
 * count from the end of the last store call, not from the last finished message, or a
 * task working between calls is jumped past its execution timeout (the API-over-DynamoDB
 * flake of the last session). Real time is a port here (`realNow`), so the slow machine
 * is simulated, not slept through.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../lib/adapters/memory/store.js';
import type { Store } from '../../lib/engine/index.js';
import { dag } from '../../lib/sdk/index.js';
import { makeRuntime, runOnce } from '../helpers/runtime.js';

/** A store whose every call takes `ms` of (simulated) real time and ends on a later macrotask. */
function slowStore(inner: Store, real: { now: number }, ms: number): Store {
  return new Proxy(inner, {
    get(target, prop) {
      const v = (target as unknown as Record<string | symbol, unknown>)[prop];
      if (typeof v !== 'function') return v;
      return async (...args: unknown[]) => {
        await new Promise<void>((r) => setImmediate(r));
        real.now += ms;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** Yields to the event loop for a few turns (as real I/O between two calls would), taking no real time. */
async function yieldTurns(n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await new Promise<void>((r) => setImmediate(r));
}

/** A task that pulls XCom five times, yielding to the event loop between pulls. */
const busy = dag('busy_between_calls', { schedule: null, defaultArgs: { executionTimeout: '1m', retries: 0 } }, ({ task }) => {
  const a = task('a', async () => 1);
  const b = task('b', async (ctx) => {
    let sum = 0;
    for (let i = 0; i < 5; i += 1) {
      sum += (await ctx.xcom.pull<number>('a')) ?? 0;
      await yieldTurns(3);
    }
    return sum;
  });
  a.before(b);
});

/** A task that hangs on real time: only its execution timeout can end it. */
const hung = dag('hung_on_time', { schedule: null, defaultArgs: { executionTimeout: '2m', retries: 0 } }, ({ task }) => {
  task('hang', async (ctx) => {
    await new Promise<void>((resolve) => ctx.signal?.addEventListener('abort', () => resolve(), { once: true }));
    return 'never';
  });
});

describe('embedded runtime: idle detection on a virtual clock', () => {
  it('does not jump time under a task whose store calls each take longer than the idle window', async () => {
    const real = { now: 0 };
    const { rt, clock } = await makeRuntime([busy], {
      store: slowStore(new MemoryStore(), real, 40),
      realNow: () => real.now,
    });
    const start = clock.now();
    const { states, tasks } = await runOnce(rt, 'busy_between_calls');
    expect(states).toEqual({ a: 'success', b: 'success' });
    expect(tasks.b.error).toBeUndefined();
    // Nothing waited on the clock: virtual time did not reach b's execution timeout.
    expect(clock.now() - start).toBeLessThan(60_000);
  });

  it('still moves time to the execution timeout of a task that waits on nothing but time', async () => {
    const real = { now: 0 };
    const { rt, clock } = await makeRuntime([hung], {
      realNow: () => (real.now += 5),
    });
    const start = clock.now();
    const { states, tasks } = await runOnce(rt, 'hung_on_time');
    expect(states).toEqual({ hang: 'failed' });
    expect(tasks.hang.error).toMatch(/execution timeout/);
    expect(clock.now() - start).toBeGreaterThanOrEqual(120_000);
  });
});
