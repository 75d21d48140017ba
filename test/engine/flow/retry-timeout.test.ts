import { describe, expect, it } from 'vitest';
import type { StateEvent } from '../../../lib/adapters/memory/observe.js';
import type { RetryPolicy } from '../../../lib/engine/index.js';
import { MAX_BACKOFF_MS, retryDelayMs } from '../../../lib/engine/rules/retry.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';

const MIN = 60_000;

/** Records, per task, the virtual times at which each try was queued. */
/**
 * When each try was queued. A retry goes through `queued`; a first try of a plain task is
 * created already `running` by the worker that takes its message, with the time it was
 * queued at (docs/adr/0020): one entry per try either way.
 */
function queueLog() {
  const queued: Record<string, { at: number; tryNumber: number }[]> = {};
  const onEvent = (e: StateEvent) => {
    if (e.type !== 'task' || (e.ti.state !== 'queued' && e.ti.state !== 'running')) return;
    const tries = (queued[e.ti.taskId] ??= []);
    if (!tries.some((t) => t.tryNumber === e.ti.tryNumber)) tries.push({ at: e.ti.queuedAt!, tryNumber: e.ti.tryNumber });
  };
  return { queued, onEvent };
}

describe('retry delay (pure)', () => {
  const backoff: RetryPolicy = { retries: 10, retryDelayMs: 1000, retryExponentialBackoff: true };

  it('fixed delay ignores the try number', () => {
    const p: RetryPolicy = { retries: 3, retryDelayMs: 7000, retryExponentialBackoff: false };
    expect([1, 2, 3].map((n) => retryDelayMs(p, n, 'k'))).toEqual([7000, 7000, 7000]);
  });

  it('backoff is base*2^(try-1) plus a jitter below the same amount, deterministic per key', () => {
    const seen = new Set<number>();
    for (let k = 0; k < 50; k++) {
      for (let n = 1; n <= 6; n++) {
        const min = 1000 * 2 ** (n - 1);
        const d = retryDelayMs(backoff, n, `key${k}`);
        expect(d).toBeGreaterThanOrEqual(min);
        expect(d).toBeLessThan(2 * min);
        expect(retryDelayMs(backoff, n, `key${k}`)).toBe(d);
        if (n === 3) seen.add(d);
      }
    }
    // The jitter really varies between task instances (it spreads a thundering herd).
    expect(seen.size).toBeGreaterThan(25);
  });

  it('caps at maxRetryDelay, and at 24h when unset', () => {
    const capped = { ...backoff, maxRetryDelayMs: 5000 };
    expect(retryDelayMs(capped, 3, 'k')).toBeLessThanOrEqual(5000); // min 4000
    expect(retryDelayMs(capped, 4, 'k')).toBe(5000); // min 8000 >= cap
    expect(retryDelayMs(capped, 30, 'k')).toBe(5000);
    expect(retryDelayMs(backoff, 60, 'k')).toBe(MAX_BACKOFF_MS);
  });
});

describe('retry timing on the virtual clock', () => {
  it('fixed delay: tries re-queued exactly retryDelay after each failure', async () => {
    let calls = 0;
    const d = dag('fixed', { defaultArgs: { retries: 3, retryDelay: '10m' } }, ({ task }) => {
      task('a', () => { if (++calls < 4) throw new Error(`fail ${calls}`); return 'ok'; });
    });
    const log = queueLog();
    const { rt, clock } = await makeRuntime([d], { onEvent: log.onEvent });
    const t0 = clock.now();
    const r = await runOnce(rt, 'fixed');
    expect(r.states.a).toBe('success');
    expect(r.tasks.a.tryNumber).toBe(4);
    expect(log.queued.a).toEqual([
      { at: t0, tryNumber: 1 },
      { at: t0 + 10 * MIN, tryNumber: 2 },
      { at: t0 + 20 * MIN, tryNumber: 3 },
      { at: t0 + 30 * MIN, tryNumber: 4 },
    ]);
  });

  it('exponential backoff with a cap: gaps double, carry jitter, and stop at maxRetryDelay', async () => {
    const d = dag('exp', {
      defaultArgs: { retries: 4, retryDelay: '1m', retryExponentialBackoff: true, maxRetryDelay: '5m' },
    }, ({ task }) => {
      task('a', () => { throw new Error('always'); });
    });
    const log = queueLog();
    const { rt } = await makeRuntime([d], { onEvent: log.onEvent });
    const r = await runOnce(rt, 'exp');
    expect(r.states.a).toBe('failed');
    expect(r.tasks.a.tryNumber).toBe(5);
    const at = log.queued.a.map((q) => q.at);
    expect(log.queued.a.map((q) => q.tryNumber)).toEqual([1, 2, 3, 4, 5]);
    const gaps = at.slice(1).map((x, i) => x - at[i]);
    const spec = (await rt.ports.bundles.manifest((await rt.ports.store.getDag('exp'))!.bundleVersion)).dags[0].tasks[0];
    const key = `exp#a#${r.run.logicalDate}`;
    expect(gaps).toEqual([1, 2, 3, 4].map((n) => retryDelayMs(spec, n, key)));
    expect(gaps[0]).toBeGreaterThanOrEqual(1 * MIN);
    expect(gaps[0]).toBeLessThan(2 * MIN);
    expect(gaps[1]).toBeGreaterThanOrEqual(2 * MIN);
    expect(gaps[1]).toBeLessThan(4 * MIN);
    expect(gaps[2]).toBeGreaterThanOrEqual(4 * MIN);
    expect(gaps[2]).toBeLessThanOrEqual(5 * MIN);
    expect(gaps[3]).toBe(5 * MIN);
  });

  it('retries count afresh per task: two tasks with the same policy retry independently', async () => {
    let b = 0;
    const d = dag('two', { defaultArgs: { retries: 1, retryDelay: '2m' } }, ({ task }) => {
      task('a', () => 1);
      task('b', () => { if (++b === 1) throw new Error('once'); });
    });
    const log = queueLog();
    const { rt, clock } = await makeRuntime([d], { onEvent: log.onEvent });
    const t0 = clock.now();
    const r = await runOnce(rt, 'two');
    expect(r.states).toEqual({ a: 'success', b: 'success' });
    expect(log.queued.a).toEqual([{ at: t0, tryNumber: 1 }]);
    expect(log.queued.b).toEqual([{ at: t0, tryNumber: 1 }, { at: t0 + 2 * MIN, tryNumber: 2 }]);
  });
});

describe('execution timeout', () => {
  it('a body that never resolves fails the try with a timeout, is retried, and other tasks keep running', async () => {
    const tries: number[] = [];
    const done: Record<string, number> = {};
    const d = dag('hang', {}, ({ task }) => {
      task('stuck', (ctx) => { tries.push(ctx.tryNumber); return new Promise(() => {}); }, {
        executionTimeout: '30m', retries: 1, retryDelay: '1m',
      });
      const x = task('x', (ctx) => { done.x = Date.parse(ctx.logicalDate); });
      const y = task('y', () => 1);
      x.before(y);
    });
    const ends: Record<string, number> = {};
    const { rt, clock } = await makeRuntime([d], {
      onEvent: (e) => { if (e.type === 'task' && e.ti.state === 'success') ends[e.ti.taskId] = e.ti.endedAt!; },
    });
    const t0 = clock.now();
    const r = await runOnce(rt, 'hang');
    expect(r.outcome).toBe('done');
    expect(tries).toEqual([1, 2]);
    expect(r.states).toEqual({ stuck: 'failed', x: 'success', y: 'success' });
    expect(r.tasks.stuck.error).toMatch(/execution timeout/);
    expect(r.tasks.stuck.tryNumber).toBe(2);
    // Other tasks finished at once, while the stuck one was still running.
    expect(ends.x).toBe(t0);
    expect(ends.y).toBe(t0);
    // Two tries of 30m and a 1m retry delay.
    expect(r.tasks.stuck.endedAt).toBe(t0 + 61 * MIN);
    expect(r.run.state).toBe('failed');
  });

  it('a body awaiting ctx.signal is aborted at the timeout; the next try succeeds', async () => {
    let aborted = 0;
    const d = dag('sig', {}, ({ task }) => {
      task('a', async (ctx) => {
        if (ctx.tryNumber === 1) {
          await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => { aborted++; resolve(); }));
          return 'too late';
        }
        return 'second';
      }, { executionTimeout: '10s', retries: 2, retryDelay: '5s' });
    });
    const { rt, clock } = await makeRuntime([d]);
    const t0 = clock.now();
    const r = await runOnce(rt, 'sig');
    expect(aborted).toBe(1);
    expect(r.states.a).toBe('success');
    expect(r.tasks.a.tryNumber).toBe(2);
    expect(r.tasks.a.endedAt).toBe(t0 + 15_000);
    expect(await rt.ports.store.getXcom({ dagId: 'sig', runId: r.run.runId, taskId: 'a', key: 'return_value' })).toBe('second');
  });
  it('a stuck task does not delay another task\'s retry on the virtual clock', async () => {
    let b = 0;
    const d = dag('mix', {}, ({ task }) => {
      task('stuck', () => new Promise(() => {}), { executionTimeout: '1h' });
      task('b', () => { if (++b === 1) throw new Error('once'); }, { retries: 1, retryDelay: '1m' });
    });
    const log = queueLog();
    const { rt, clock } = await makeRuntime([d], { onEvent: log.onEvent });
    const t0 = clock.now();
    const r = await runOnce(rt, 'mix');
    expect(r.states).toEqual({ stuck: 'failed', b: 'success' });
    expect(log.queued.b.map((q) => q.at - t0)).toEqual([0, 60_000]);
  });
});
