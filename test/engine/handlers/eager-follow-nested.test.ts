/**
 * Eager follow on nested paths: the follow-up can be claimed deep in the settle chain (an
 * upstream-failed or skip cascade, a mapped task completed by its last instance), not only
 * by the finished task's direct downstream. It comes back up the chain as a return value
 * (flow/eager-follow.ts), so the worker that claimed it runs it at once: never a task left
 * `running` under a claim nobody holds until its lease expires.
 */
import { describe, expect, it } from 'vitest';
import { chain, dag } from '../../../lib/sdk/index.js';
import { recordSends, taskMessages } from '../../helpers/observe.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';
import type { QueueMessage } from '../../../lib/engine/index.js';

const ran: string[] = [];
const body = (ctx: { taskId: string; tryNumber: number }) => { ran.push(`${ctx.taskId}#${ctx.tryNumber}`); };
// A 1-minute timeout: an orphaned claim would hold its task `running` for 2 minutes (lease).
const opts = { defaultArgs: { executionTimeout: '1m', retries: 1, retryDelay: '1m' } };

const taskIds = (sent: readonly QueueMessage[]) => sent.filter((m) => m.kind === 'task').map((m) => (m as { taskId: string }).taskId);

describe('eager follow on nested paths', () => {
  it('an upstream-failed cascade: the all_done task below it is claimed in the cascade and run by the same worker', async () => {
    ran.length = 0;
    const d = dag('cascade', opts, ({ task }) => {
      chain(
        task('a', () => { throw new Error('boom'); }, { retries: 0 }),
        task('b', body),
        task('c', body, { triggerRule: 'all_done' }),
      );
    });
    const { rt } = await makeRuntime([d]);
    const sent = recordSends(rt.queue);
    const r = await runOnce(rt, 'cascade');
    expect(r.states).toEqual({ a: 'failed', b: 'upstream_failed', c: 'success' });
    // c was created already claimed while b's outcome was passed on (b ended inside a's settle).
    expect(taskIds(sent)).toEqual(['a']);
    expect(rt.metrics.get('EagerFollows')).toBe(1);
    expect(ran).toEqual(['c#1']);
    expect(r.tasks.c.tryNumber).toBe(1);
    expect(rt.metrics.get('ExpiredLeases') ?? 0).toBe(0);
  });

  it('a skip cascade below a branch: the join claimed under the skipped task runs at once', async () => {
    ran.length = 0;
    const d = dag('skips', opts, ({ task, branch }) => {
      const pick = branch('pick', () => []);
      const x = task('x', body);
      const y = task('y', body, { triggerRule: 'none_failed' });
      pick.before(x);
      x.before(y);
    });
    const { rt } = await makeRuntime([d]);
    const sent = recordSends(rt.queue);
    const r = await runOnce(rt, 'skips');
    expect(r.states).toEqual({ pick: 'success', x: 'skipped', y: 'success' });
    expect(taskIds(sent)).toEqual(['pick']);
    expect(rt.metrics.get('EagerFollows')).toBe(1);
    expect(ran).toEqual(['y#1']);
    expect(rt.metrics.get('ExpiredLeases') ?? 0).toBe(0);
  });

  it('a mapped instance ending: the upstream-failed cascade it starts claims the all_done task below, run by that worker', async () => {
    ran.length = 0;
    const d = dag('mapped', opts, ({ task }) => {
      const each = task('each', async (_ctx, x: number) => { if (x === 2) throw new Error('two'); return x; }, { retries: 0 }).expand([1, 2, 3]);
      chain(each, task('after', body), task('last', body, { triggerRule: 'all_done' }));
    });
    const { rt } = await makeRuntime([d]);
    const sent = recordSends(rt.queue);
    const r = await runOnce(rt, 'mapped');
    // The failed instance's flag decides `after` (upstream_failed) inside the instance's settle
    // (mapping-settle.ts recordFlag), and `last` is claimed below it.
    expect([r.states.each, r.states.after, r.states.last]).toEqual(['failed', 'upstream_failed', 'success']);
    expect(taskMessages(sent, 'last')).toEqual([]);
    expect(rt.metrics.get('EagerFollows')).toBe(1);
    expect(ran).toEqual(['last#1']);
    expect(r.tasks.last.tryNumber).toBe(1);
    expect(rt.metrics.get('ExpiredLeases') ?? 0).toBe(0);
  });

  it('a path handed no allowance never claims: with a budget of 0 the same cascades go through the queue', async () => {
    ran.length = 0;
    const d = dag('cascade0', opts, ({ task }) => {
      chain(task('a', () => { throw new Error('boom'); }, { retries: 0 }), task('b', body), task('c', body, { triggerRule: 'all_done' }));
    });
    const { rt } = await makeRuntime([d], { config: { maxEagerFollows: 0 } });
    const sent = recordSends(rt.queue);
    const r = await runOnce(rt, 'cascade0');
    expect(r.states).toEqual({ a: 'failed', b: 'upstream_failed', c: 'success' });
    expect(taskIds(sent)).toEqual(['a', 'c']);
    expect(rt.metrics.get('EagerFollows') ?? 0).toBe(0);
  });
});
