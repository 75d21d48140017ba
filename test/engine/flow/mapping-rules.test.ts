/**
 * Mapped instances as upstreams under trigger rules, and expansion under crashes and races.
 */
import { describe, expect, it } from 'vitest';
import { loadRunCtx, taskSpec, type QueueMessage, type Store, type TaskMessage, type UpstreamOutcome } from '../../../lib/engine/index.js';
import { expandTask } from '../../../lib/engine/flow/mapping-expand.js';
import { claimNew } from '../../../lib/engine/flow/claim.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime as makeRuntimeAt, runOnce } from '../../helpers/runtime.js';

// No retention TTL: items would carry a TTL computed from the virtual clock (2026-01-01),
// already past in real time, and DynamoDB Local deletes such items while the run reads them.
const makeRuntime = (dags: Parameters<typeof makeRuntimeAt>[0], opts: Parameters<typeof makeRuntimeAt>[1] = {}) =>
  makeRuntimeAt(dags, { ...opts, config: { runRetentionMs: 0, ...opts.config } });
import { onDynamo } from '../../helpers/stores.js';

describe('downstream of a mapped task', () => {
  it('all_success is upstream-failed, one_failed runs at the first failed instance (before the others end), all_done runs once all are done', async () => {
    let clock!: { now(): number };
    const at: Record<string, number> = {};
    const d = dag('rules', {}, ({ task }) => {
      const each = task('each', async (ctx, x: number) => {
        at[`each#${ctx.mapIndex}:${ctx.tryNumber}`] = clock.now();
        if (x === 1) ctx.fail('bad element');
        if (x === 3 && ctx.tryNumber === 1) throw new Error('flaky');
        return x;
      }, { retries: 1, retryDelay: '1h' }).expand([0, 1, 2, 3]);
      const mark = (id: string) => async () => { at[id] = clock.now(); return id; };
      each.before(task('all_success', mark('all_success')));
      each.before(task('one_failed', mark('one_failed'), { triggerRule: 'one_failed' }));
      each.before(task('all_done', mark('all_done'), { triggerRule: 'all_done' }));
      each.before(task('one_success', mark('one_success'), { triggerRule: 'one_success' }));
    });
    const made = await makeRuntime([d]);
    clock = made.clock;
    const r = await runOnce(made.rt, 'rules');
    expect(r.states).toMatchObject({
      each: 'failed', 'each#0': 'success', 'each#1': 'failed', 'each#2': 'success', 'each#3': 'success',
      all_success: 'upstream_failed', one_failed: 'success', all_done: 'success', one_success: 'success',
    });
    expect(r.tasks.each!.error).toBe('1 of 4 mapped instances failed');
    // one_failed and one_success did not wait for the retry of instance 3 an hour later; all_done did.
    expect(at.one_failed!).toBeLessThan(at['each#3:2']!);
    expect(at.one_success!).toBeLessThan(at['each#3:2']!);
    expect(at.all_done!).toBeGreaterThanOrEqual(at['each#3:2']!);
    expect(r.run.state).toBe('failed');
  });

  it('all_success runs once every instance succeeded, however many shards they span', async () => {
    const n = onDynamo ? 150 : 250;
    const d = dag('wide', {}, ({ task }) => {
      task('each', async (_ctx, x: number) => x).expand(Array.from({ length: n }, (_, i) => i))
        .before(task('sum', async (ctx) => (await ctx.xcom.pull<number[]>('each')).reduce((a, b) => a + b, 0)));
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'wide');
    expect(r.states.sum).toBe('success');
    expect(await rt.ports.store.getXcom({ dagId: 'wide', runId: r.run.runId, taskId: 'sum', key: 'return_value' })).toBe((n * (n - 1)) / 2);
  });
});

describe('expansion', () => {
  const n = onDynamo ? 130 : 530;
  const mapped = (ran: Map<number, number>) => dag('expand_race', {}, ({ task }) => {
    task('each', async (ctx) => { ran.set(ctx.mapIndex!, (ran.get(ctx.mapIndex!) ?? 0) + 1); return ctx.mapIndex; })
      .expand(Array.from({ length: n }, (_, i) => i))
      .before(task('count', async (ctx) => (await ctx.xcom.pull<number[]>('each')).length));
  });

  it('two expanders racing on the same mapped task create each instance once and send each message once', async () => {
    const ran = new Map<number, number>();
    const { rt } = await makeRuntime([mapped(ran)]);
    const sent: QueueMessage[] = [];
    const send = rt.ports.queue.send.bind(rt.ports.queue);
    rt.ports.queue.send = async (m, o) => { sent.push(...m); return send(m, o); };
    const run = await rt.trigger('expand_race');
    const rc = (await loadRunCtx(rt.ports, 'expand_race', run.runId))!;
    // Take the mapped task's message and claim it as a worker does (a root is created already running).
    const ds = await rt.queue.receive(100, 15 * 60_000);
    const d = ds.find((x) => (x.message as TaskMessage).taskId === 'each')!;
    for (const x of ds) if (x !== d) await rt.queue.release(x, 0);
    await rt.queue.ack(d);
    const claimed = await claimNew(rt.ports, rc, d.message as TaskMessage & { up: Record<string, UpstreamOutcome> });
    if (!claimed.ok) throw new Error('claim lost');
    const t = taskSpec(rc.spec, 'each');
    await Promise.all([expandTask(rt.ports, rc, t, claimed.item), expandTask(rt.ports, rc, t, claimed.item)]);
    const instanceMessages = sent.filter((m) => m.kind === 'task' && m.taskId.startsWith('each#'));
    expect(instanceMessages).toHaveLength(n);
    expect(new Set(instanceMessages.map((m) => (m as { taskId: string }).taskId)).size).toBe(n);
    await rt.runToCompletion('expand_race', run.runId);
    expect(ran.size).toBe(n);
    expect([...ran.values()].every((c) => c === 1)).toBe(true);
    expect(await rt.ports.store.getXcom({ dagId: 'expand_race', runId: run.runId, taskId: 'count', key: 'return_value' })).toBe(n);
  });

  it('a crash mid-expansion is resumed by reconcile once the lease ends, from the cursor, without duplicates', async () => {
    const ran = new Map<number, number>();
    let puts = 0;
    let crashed = false;
    const crashAt = onDynamo ? 120 : 150;
    const wrapStore = (s: Store): Store => new Proxy(s, {
      get(target, prop, recv) {
        const v = Reflect.get(target, prop, recv);
        if (prop !== 'putTask' || typeof v !== 'function') return typeof v === 'function' ? v.bind(target) : v;
        return async (ti: { taskId: string }) => {
          if (ti.taskId.startsWith('each#') && ++puts === crashAt && !crashed) {
            crashed = true;
            throw new Error('worker lost mid-expansion');
          }
          return v.call(target, ti);
        };
      },
    });
    const { rt } = await makeRuntime([mapped(ran)], { wrapStore });
    const r = await runOnce(rt, 'expand_race');
    expect(crashed).toBe(true);
    expect(r.run.state).toBe('success');
    expect(ran.size).toBe(n);
    expect([...ran.values()].every((c) => c === 1)).toBe(true);
    expect(r.tasks.each!.mapCursor).toBe(n);
    expect(Object.keys(r.tasks).filter((id) => id.startsWith('each#'))).toHaveLength(n);
  });

  it('an instance whose count a crash lost is counted by reconcile, and the mapped task and the run end', async () => {
    const ran = new Map<number, number>();
    let lost = 0;
    const wrapStore = (s: Store): Store => new Proxy(s, {
      get(target, prop, recv) {
        const v = Reflect.get(target, prop, recv);
        if (prop !== 'countMapped' || typeof v !== 'function') return typeof v === 'function' ? v.bind(target) : v;
        return async (...args: Parameters<Store['countMapped']>) => {
          if (args[2] === 7 && lost++ === 0) throw new Error('worker lost after its transition');
          return v.apply(target, args);
        };
      },
    });
    const { rt } = await makeRuntime([mapped(ran)], { wrapStore });
    const r = await runOnce(rt, 'expand_race');
    expect(lost).toBeGreaterThan(0);
    expect(r.run.state).toBe('success');
    expect(r.tasks['each#7']!.state).toBe('success');
    expect(ran.get(7)).toBe(1);
    expect(r.tasks.each!.state).toBe('success');
    expect(await rt.ports.store.getXcom({ dagId: 'expand_race', runId: r.run.runId, taskId: 'count', key: 'return_value' })).toBe(n);
  });
});
