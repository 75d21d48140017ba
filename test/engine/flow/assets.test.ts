/**
 * Assets and data-aware scheduling on the engine (ADR 0018), on both stores (the vitest
 * projects): outlets emit one event each with the task's extra; a DAG scheduled on assets
 * runs once its condition holds, consuming the queued events (Airflow's AssetDagRunQueue);
 * `allOf`, `anyOf`, lists; paused DAGs queue nothing; a redelivered key records nothing.
 */
import { describe, expect, it } from 'vitest';
import type { DagRun } from '../../../lib/engine/index.js';
import { evaluateAssetQueue, recordAssetEvent, setPaused } from '../../../lib/engine/index.js';
import type { EmbeddedRuntime } from '../../../lib/runtime/embedded.js';
import { allOf, anyOf, asset, dag } from '../../../lib/sdk/index.js';
import { makeRuntime as baseRuntime, runOnce } from '../../helpers/runtime.js';

// No retention: DynamoDB Local's TTL sweep runs on real time, and the virtual 2026 is past for it.
const makeRuntime: typeof baseRuntime = (dags, opts = {}) => baseRuntime(dags, { ...opts, config: { runRetentionMs: 0, ...opts.config } });

const orders = asset('s3://lake/orders', { name: 'orders' });
const customers = asset('s3://lake/customers');

/** Runs until nothing is left to do (messages, timers, runs). */
async function settle(rt: EmbeddedRuntime) {
  await rt.runUntil(async () => rt.queue.size === 0 && rt.timer.size === 0 && (await rt.ports.store.listActiveRuns()).length === 0);
}

async function runsOf(rt: EmbeddedRuntime, dagId: string): Promise<DagRun[]> {
  return (await rt.ports.store.listRuns(dagId)).sort((a, b) => a.queuedAt - b.queuedAt || (a.runId < b.runId ? -1 : 1));
}

const seen: Record<string, unknown[]> = {};
function consumer(dagId: string, schedule: Parameters<typeof dag>[1]['schedule']) {
  return dag(dagId, { schedule }, ({ task }) => {
    task('read', (ctx) => { (seen[`${ctx.dagId}/${ctx.runId}`] ??= []).push(ctx.triggeringAssetEvents); return Object.keys(ctx.triggeringAssetEvents).length; });
  });
}

describe('outlets and asset-triggered runs', () => {
  it('a success emits one event per outlet with its extra; the consumer runs once with the events by asset', async () => {
    const producer = dag('producer', {}, ({ task }) => {
      const write = task('write', (ctx) => { ctx.outletEvents(orders).extra.rows = 42; ctx.outletEvents(customers.uri).extra = { file: 'c.csv' }; return 'ok'; }, { outlets: [orders, customers] });
      task('after', () => 1).after(write);
    });
    const { rt } = await makeRuntime([producer, consumer('on_orders', orders)]);
    const { run: p } = await runOnce(rt, 'producer');
    await settle(rt);
    const [c, ...more] = await runsOf(rt, 'on_orders');
    expect(more).toEqual([]);
    expect(c).toMatchObject({ runType: 'asset_triggered', state: 'success' });
    expect(c!.runId).toMatch(/^asset_triggered__2026-01-01T00:00:00\.000Z-1$/);
    const events = seen[`on_orders/${c!.runId}`]![0] as Record<string, any[]>;
    expect(Object.keys(events)).toEqual([orders.uri]);
    expect(events[orders.uri]).toEqual([expect.objectContaining({
      uri: orders.uri, name: 'orders', extra: { rows: 42 }, origin: 'task',
      source: { dagId: 'producer', runId: p.runId, taskId: 'write', mapIndex: -1 },
    })]);
    const [stored] = await rt.ports.store.listAssetEvents(orders.uri, { limit: 10 });
    expect(stored).toMatchObject({ extra: { rows: 42 }, queuedFor: ['on_orders'], consumedBy: [`on_orders/${c!.runId}`] });
    expect((await rt.ports.store.listAssetEvents(customers.uri, { limit: 10 })).map((e) => e.extra)).toEqual([{ file: 'c.csv' }]);
    expect(await rt.ports.store.getAssetRecord(orders.uri)).toMatchObject({ consumers: ['on_orders'], producers: [{ dagId: 'producer', taskId: 'write' }], active: true });
  });

  it('an outlet task created by its message, claimed at once (ADR 0020), emits its event', async () => {
    const producer = dag('producer_claimed', {}, ({ task }) => {
      const first = task('first', () => 1);
      task('write', (ctx) => { ctx.outletEvents(orders).extra.rows = 7; return 'ok'; }, { outlets: [orders] }).after(first);
    });
    const { rt } = await makeRuntime([producer, consumer('orders_claimed', [orders])]);
    const firstState: Record<string, string> = {};
    const put = rt.ports.store.putTask.bind(rt.ports.store);
    rt.ports.store.putTask = async (ti) => ((firstState[`${ti.dagId}.${ti.taskId}`] ??= ti.state), put(ti));
    await runOnce(rt, 'producer_claimed');
    await settle(rt);
    const [run] = await runsOf(rt, 'orders_claimed');
    expect(run).toMatchObject({ runType: 'asset_triggered', state: 'success' });
    expect(firstState).toMatchObject({ 'producer_claimed.first': 'running', 'producer_claimed.write': 'running', 'orders_claimed.read': 'running' });
    expect(seen[`orders_claimed/${run!.runId}`]![0]).toMatchObject({ [orders.uri]: [{ extra: { rows: 7 } }] });
  });

  it('events queue until the condition holds: allOf (and a list) waits for both, then one run consumes all queued', async () => {
    const { rt, clock } = await makeRuntime([consumer('both', allOf(orders, customers)), consumer('both_list', [orders, customers])]);
    const p = rt.ports;
    await recordAssetEvent(p, { uri: orders.uri, key: 'o1', origin: 'api' });
    clock.advanceTo(clock.now() + 60_000);
    await recordAssetEvent(p, { uri: orders.uri, key: 'o2', origin: 'api' });
    await settle(rt);
    expect(await runsOf(rt, 'both')).toEqual([]);
    expect(Object.keys((await p.store.getAssetQueue('both'))!.queued)).toEqual([orders.uri]);
    clock.advanceTo(clock.now() + 60_000);
    await recordAssetEvent(p, { uri: customers.uri, key: 'c1', origin: 'api' });
    await settle(rt);
    for (const id of ['both', 'both_list']) {
      const runs = await runsOf(rt, id);
      expect(runs.map((r) => [r.runType, r.state])).toEqual([['asset_triggered', 'success']]);
      const ev = seen[`${id}/${runs[0]!.runId}`]![0] as Record<string, unknown[]>;
      expect(ev[orders.uri]).toHaveLength(2);
      expect(ev[customers.uri]).toHaveLength(1);
      expect([runs[0]!.dataIntervalStart, runs[0]!.dataIntervalEnd]).toEqual([Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-01-01T00:02:00Z')]);
      expect((await p.store.getAssetQueue(id))!.queued).toEqual({});
    }
  });

  it('anyOf runs on either asset, once per event arriving alone', async () => {
    const { rt, clock } = await makeRuntime([consumer('either', anyOf(orders, customers))]);
    await recordAssetEvent(rt.ports, { uri: customers.uri, key: 'c1', origin: 'api' });
    await settle(rt);
    clock.advanceTo(clock.now() + 1000);
    await recordAssetEvent(rt.ports, { uri: orders.uri, key: 'o1', origin: 'api' });
    await settle(rt);
    const runs = await runsOf(rt, 'either');
    expect(runs.map((r) => Object.keys(r.assetEvents!))).toEqual([[customers.uri], [orders.uri]]);
    expect(runs.map((r) => r.runId.slice(-2))).toEqual(['-1', '-2']);
  });

  it('a redelivered key records nothing and triggers nothing more', async () => {
    const { rt } = await makeRuntime([consumer('once', orders)]);
    const first = await recordAssetEvent(rt.ports, { uri: orders.uri, key: 's3:lake/orders/a.csv@v1', origin: 's3' });
    await settle(rt);
    const again = await recordAssetEvent(rt.ports, { uri: orders.uri, key: 's3:lake/orders/a.csv@v1', origin: 's3' });
    await settle(rt);
    expect(first).toMatchObject({ created: true, queuedFor: ['once'], evaluating: ['once'] });
    expect(again).toMatchObject({ created: false, queuedFor: [], evaluating: [] });
    expect(again!.event.ref).toBe(first!.event.ref);
    expect(await runsOf(rt, 'once')).toHaveLength(1);
    expect(await recordAssetEvent(rt.ports, { uri: 'unknown', key: 'k', origin: 'api' })).toBeUndefined();
  });

  it('a paused DAG queues nothing; events queued before the pause run when it is unpaused', async () => {
    const { rt } = await makeRuntime([consumer('paused', allOf(orders, customers))]);
    await recordAssetEvent(rt.ports, { uri: orders.uri, key: 'o1', origin: 'api' });
    await rt.ports.store.updateDag('paused', { paused: true });
    await recordAssetEvent(rt.ports, { uri: customers.uri, key: 'c1', origin: 'api' });
    await settle(rt);
    expect(Object.keys((await rt.ports.store.getAssetQueue('paused'))!.queued)).toEqual([orders.uri]);
    await setPaused(rt.ports, 'paused', false);
    await recordAssetEvent(rt.ports, { uri: customers.uri, key: 'c2', origin: 'api' });
    await settle(rt);
    const runs = await runsOf(rt, 'paused');
    expect(runs).toHaveLength(1);
    expect(Object.values(runs[0]!.assetEvents!).map((r) => r.length)).toEqual([1, 1]);
  });

  it('an extra that cannot be stored, or an asset that is not an outlet, fails the try without retry', async () => {
    const d = dag('bad_extra', {}, ({ task }) => {
      task('fn', (ctx) => { ctx.outletEvents(orders).extra = { f: 'x'.repeat(40_000) }; }, { outlets: [orders], retries: 3 });
      task('other', (ctx) => { ctx.outletEvents(customers); }, { outlets: [orders], retries: 3 });
    });
    const { rt } = await makeRuntime([d]);
    const { tasks } = await runOnce(rt, 'bad_extra');
    expect(tasks.fn).toMatchObject({ state: 'failed', tryNumber: 1 });
    expect(tasks.fn!.error).toMatch(/outlet event of s3:\/\/lake\/orders: extra is \d+ bytes of JSON; an asset event holds at most 32768/);
    expect(tasks.other!.error).toMatch(/outletEvents: s3:\/\/lake\/customers is not an outlet of task other \(its outlets: s3:\/\/lake\/orders\)/);
    expect(await rt.ports.store.listAssetEvents(orders.uri, { limit: 5 })).toEqual([]);
  });
});

describe('crashes and races', () => {
  it('a worker that dies after the success write: the delayed check emits the events, once', async () => {
    const producer = dag('p', {}, ({ task }) => { task('w', (ctx) => { ctx.outletEvents(orders).extra.n = 1; }, { outlets: [orders] }); });
    let fail = true;
    const { rt } = await makeRuntime([producer, consumer('c', orders)], {
      wrapStore: (s) => new Proxy(s, {
        get: (t, k) => (k === 'putAssetEvent' ? async (...a: unknown[]) => { if (fail) { fail = false; throw new Error('crash after the write'); } return (t.putAssetEvent as any)(...a); } : (t as any)[k]?.bind?.(t) ?? (t as any)[k]),
      }),
    });
    await runOnce(rt, 'p');
    await settle(rt);
    const runs = await runsOf(rt, 'c');
    expect(runs.map((r) => r.state)).toEqual(['success']);
    expect((await rt.ports.store.listAssetEvents(orders.uri, { limit: 5 })).map((e) => e.extra)).toEqual([{ n: 1 }]);
  });

  it('an engine that dies between the run and the consumption: the retried look consumes with that run, no second run', async () => {
    let fail = true;
    const { rt } = await makeRuntime([consumer('c', orders)], {
      wrapStore: (s) => new Proxy(s, {
        get: (t, k) => (k === 'consumeAssetQueue' ? async (...a: unknown[]) => { if (fail) { fail = false; throw new Error('crash'); } return (t.consumeAssetQueue as any)(...a); } : (t as any)[k]?.bind?.(t) ?? (t as any)[k]),
      }),
    });
    await recordAssetEvent(rt.ports, { uri: orders.uri, key: 'o1', origin: 'api' });
    await settle(rt);
    expect(fail).toBe(false);
    expect(await rt.ports.store.getAssetQueue('c')).toMatchObject({ gen: 1, queued: {} });
    expect(await evaluateAssetQueue(rt.ports, 'c')).toEqual([]);
    expect((await runsOf(rt, 'c')).map((r) => r.state)).toEqual(['success']);
  });

  it('racing deliveries of one event make one event and one run', async () => {
    const { rt } = await makeRuntime([consumer('c', orders)]);
    const results = await Promise.all(Array.from({ length: 12 }, () => recordAssetEvent(rt.ports, { uri: orders.uri, key: 'same', origin: 'sqs' })));
    await Promise.all(Array.from({ length: 6 }, () => evaluateAssetQueue(rt.ports, 'c')));
    await settle(rt);
    expect(results.filter((r) => r!.created)).toHaveLength(1);
    expect(results.flatMap((r) => r!.queuedFor)).toEqual(['c']);
    expect(await runsOf(rt, 'c')).toHaveLength(1);
  });

  it('racing events and evaluations: every event is consumed by at most one run, and each run satisfies the condition', async () => {
    const { rt } = await makeRuntime([consumer('both', allOf(orders, customers)), consumer('either', anyOf(orders, customers))]);
    const p = rt.ports;
    const emits = Array.from({ length: 16 }, (_, i) => recordAssetEvent(p, { uri: i % 2 ? orders.uri : customers.uri, key: `k${i}`, origin: 'api' }));
    const evals = Array.from({ length: 8 }, (_, i) => evaluateAssetQueue(p, i % 2 ? 'both' : 'either'));
    await Promise.all([...emits, ...evals]);
    await settle(rt);
    for (const id of ['both', 'either']) {
      const runs = await runsOf(rt, id);
      const consumed = runs.flatMap((r) => Object.values(r.assetEvents!).flat());
      expect(new Set(consumed).size).toBe(consumed.length);
      const left = Object.values((await p.store.getAssetQueue(id))!.queued).flat();
      expect(consumed.length + left.length).toBe(16);
      for (const r of runs) {
        const assets = Object.keys(r.assetEvents!).filter((u) => r.assetEvents![u]!.length);
        if (id === 'both') expect(assets.sort()).toEqual([orders.uri, customers.uri].sort());
        else expect(assets.length).toBeGreaterThan(0);
      }
      expect(new Set(runs.map((r) => r.runId)).size).toBe(runs.length);
    }
    expect(Object.values((await p.store.getAssetQueue('either'))!.queued).flat()).toEqual([]);
  });
});
