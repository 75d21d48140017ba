/**
 * The events path (memory store and DynamoDB Local): a wait on an EventBridge pattern is
 * resumed once by a matching event however often it is delivered; an event that arrives
 * before its wait is stored is kept and matched when the wait registers, also when the
 * two really race; a malformed event is dropped and counted, an event for nobody is
 * counted; a pattern with no usable key is refused at defer.
 */
import { describe, expect, it } from 'vitest';
import { handleMessage, type AwsEvent, type Store } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import type { DagDefinition } from '../../../lib/sdk/types.js';
import { makeRuntime, T0 } from '../../helpers/runtime.js';

const MIN = 60_000;
const shipped = (orderId: string, extra: Record<string, unknown> = {}): AwsEvent => ({
  version: '0', id: `ev-${orderId}`, source: 'com.acme.orders', 'detail-type': 'Order Shipped', account: '123456789012',
  time: '2026-01-01T00:00:00Z', region: 'us-east-1', resources: [], detail: { orderId, carrier: 'ups', ...extra },
});

/** `n` tasks, task `t<i>` waiting for order `o-<i>` shipped by ups, returning the event's carrier and id. */
function ordersDag(n: number, calls: string[] = []): DagDefinition {
  return dag('orders', {}, ({ task }) => {
    for (let i = 0; i < n; i++) {
      task(`t${i}`, {
        execute: (ctx) => ctx.defer({ event: { source: 'com.acme.orders', detailType: 'Order Shipped', detail: { orderId: `o-${i}`, carrier: ['ups', 'dhl'] } }, resume: 'done', timeout: '1d' }),
        done: (ctx, input) => {
          calls.push(ctx.taskId);
          return { carrier: input.event.payload.detail.carrier, id: input.event.payload.id };
        },
      });
    }
  });
}

async function states(rt: { ports: { store: Store } }, runId: string) {
  return Object.fromEntries((await rt.ports.store.listTasks('orders', runId)).map((t) => [t.taskId, t.state]));
}

describe('waiting for an event', () => {
  it('resumes the waiting task with the event; the resume method sees it; nothing is due while it waits', async () => {
    const calls: string[] = [];
    const { rt, clock } = await makeRuntime([ordersDag(1, calls)]);
    const run = await rt.trigger('orders');
    await rt.runUntil(async () => (await states(rt, run.runId)).t0 === 'deferred');
    // Looked at once more a minute later (the index gap), then off the due index until its timeout.
    await rt.runUntil(async () => clock.now() >= T0 + 5 * MIN);
    const ti = (await rt.ports.store.getTask({ dagId: 'orders', runId: run.runId, taskId: 't0' }))!;
    expect(ti.dueAt).toBe(ti.deferTimeoutAt);
    expect((await rt.putEvent(shipped('o-9'))).outcome).toBe('unmatched');
    expect((await rt.putEvent(shipped('o-0', { carrier: 'fedex' }))).outcome).toBe('unmatched');
    const r = await rt.putEvent(shipped('o-0'));
    expect(r).toMatchObject({ outcome: 'matched', matched: 1, resumed: 1 });
    expect(await rt.runToCompletion('orders', run.runId)).toBe('done');
    expect(calls).toEqual(['t0']);
    expect(await rt.ports.store.getXcom({ dagId: 'orders', runId: run.runId, taskId: 't0', key: 'return_value' })).toEqual({ carrier: 'ups', id: 'ev-o-0' });
    expect(rt.metrics.get('EventsUnmatched')).toBe(2);
    // The wait's row is gone: the same event again finds nobody.
    expect((await rt.putEvent(shipped('o-0'))).outcome).toBe('unmatched');
  });

  it('a delivery repeated at once resumes the task once', async () => {
    const calls: string[] = [];
    const { rt } = await makeRuntime([ordersDag(1, calls)]);
    const run = await rt.trigger('orders');
    await rt.runUntil(async () => (await states(rt, run.runId)).t0 === 'deferred');
    const reports = await Promise.all([1, 2, 3, 4].map(() => rt.putEvent(shipped('o-0'))));
    expect(reports.reduce((n, r) => n + r.resumed, 0)).toBe(1);
    expect(await rt.runToCompletion('orders', run.runId)).toBe('done');
    expect(calls).toEqual(['t0']);
    expect((await rt.ports.store.getTask({ dagId: 'orders', runId: run.runId, taskId: 't0' }))!.tryNumber).toBe(1);
  });

  it('an event that arrived before its wait was stored is kept and matched when the wait registers', async () => {
    const calls: string[] = [];
    const { rt } = await makeRuntime([ordersDag(1, calls)]);
    expect((await rt.putEvent(shipped('o-0'))).outcome).toBe('unmatched');
    const run = await rt.trigger('orders');
    expect(await rt.runToCompletion('orders', run.runId)).toBe('done');
    expect(calls).toEqual(['t0']);
    expect(rt.metrics.get('EarlyEventsMatched')).toBe(1);
  });

  it('events and waits racing: every task resumes exactly once, at whatever step of its wait\'s registration its event lands', async () => {
    const n = 12;
    const calls: string[] = [];
    const inFlight: Promise<unknown>[] = [];
    let rt!: Awaited<ReturnType<typeof makeRuntime>>['rt'];
    // Task t<i>'s event is sent, without waiting for it, at step i % 5 of its wait's
    // registration: before the write to deferred, the old row's delete, the row's put or the
    // read of kept events, or just after that read. Both then run at once (on DynamoDB Local
    // with real I/O between steps).
    const steps = ['updateTask', 'deleteTrigger', 'putTrigger', 'keptEvents', 'keptEvents'];
    const fired = new Set<number>();
    const taskOf = (method: string, a: any[]): number | undefined => {
      const text = method === 'updateTask' ? (a[2]?.state === 'deferred' ? a[0].taskId : undefined)
        : method === 'putTrigger' ? a[0].taskId : method === 'deleteTrigger' ? String(a[0]).split('/').pop()
        : method === 'keptEvents' ? `t${/o-(\d+)/.exec(String(a[0]))?.[1]}` : undefined;
      const m = /^t(\d+)$/.exec(text ?? '');
      return m ? Number(m[1]) : undefined;
    };
    const racing = (s: Store): Store => new Proxy(s, {
      get: (t, k) => {
        const v = (t as any)[k];
        if (typeof v !== 'function' || !steps.includes(String(k))) return typeof v === 'function' ? v.bind(t) : v;
        return (...a: any[]) => {
          const i = taskOf(String(k), a);
          const fire = () => {
            fired.add(i!);
            inFlight.push(rt.putEvent(shipped(`o-${i}`)));
          };
          if (i === undefined || fired.has(i) || steps[i % 5] !== k) return v.apply(t, a);
          if (i % 5 < 4) fire();
          return i % 5 < 4 ? v.apply(t, a) : v.apply(t, a).then((r: unknown) => (fire(), r));
        };
      },
    });
    ({ rt } = await makeRuntime([ordersDag(n, calls)], { wrapStore: racing }));
    const run = await rt.trigger('orders');
    const deliveries = await rt.queue.receive(n, 60_000);
    expect(deliveries).toHaveLength(n);
    await Promise.all(deliveries.map((d) => handleMessage(rt.ports, d.message).then(() => rt.queue.ack(d))));
    await Promise.all(inFlight);
    expect(fired.size).toBe(n);
    expect(await rt.runToCompletion('orders', run.runId)).toBe('done');
    expect(calls.sort()).toEqual(Array.from({ length: n }, (_, i) => `t${i}`).sort());
    const tis = await rt.ports.store.listTasks('orders', run.runId);
    expect(tis.every((t) => t.state === 'success' && t.tryNumber === 1)).toBe(true);
    expect(rt.metrics.get('TriggersFired')).toBe(n);
    // Both orders happened: events kept before their wait was stored, and waits found by their event.
    expect(rt.metrics.get('EarlyEventsMatched')).toBeGreaterThan(0);
    expect(rt.metrics.get('EarlyEventsMatched')).toBeLessThan(n);
  });

  it('an event the index did not show the events path yet is matched by the wait\'s one recheck a minute later', async () => {
    const calls: string[] = [];
    let blind = false;
    const { rt, clock } = await makeRuntime([ordersDag(1, calls)], {
      // DynamoDB's index is eventually consistent: the events path may not list a wait written a moment before.
      wrapStore: (s) => new Proxy(s, { get: (t, k) => (k === 'listEventTriggers' && blind ? async () => [] : (t as any)[k]?.bind?.(t) ?? (t as any)[k]) }),
    });
    const run = await rt.trigger('orders');
    await rt.runUntil(async () => (await states(rt, run.runId)).t0 === 'deferred');
    blind = true;
    expect((await rt.putEvent(shipped('o-0'))).outcome).toBe('unmatched');
    blind = false;
    expect(await rt.runToCompletion('orders', run.runId)).toBe('done');
    expect(calls).toEqual(['t0']);
    expect(clock.now() - T0).toBeLessThan(3 * MIN);
  });

  it('a malformed event is dropped and counted, and blocks nothing', async () => {
    const { rt } = await makeRuntime([ordersDag(1)]);
    for (const bad of [null, 'text', [], { source: 'x' }, { source: 'x', 'detail-type': 'y', detail: 'z' }]) {
      expect((await rt.putEvent(bad)).outcome).toBe('dropped');
    }
    expect(rt.metrics.get('EventsDropped')).toBe(5);
    expect((await rt.putEvent(shipped('o-0'))).outcome).toBe('unmatched');
  });

  it('a wait whose pattern has no usable key, or cannot be evaluated, fails the try at defer, not retried', async () => {
    const d = dag('nokey', {}, ({ task }) => {
      task('loose', { execute: (ctx) => ctx.defer({ event: { source: 'com.acme', detailType: 'Tick', detail: { n: [{ numeric: ['>', 1] }] } } }) }, { retries: 2 });
      task('cidr', { execute: (ctx) => ctx.defer({ event: { source: 'com.acme', detailType: 'Tick', detail: { id: 'a', ip: [{ cidr: '10.0.0.0/8' }] } } }) }, { retries: 2 });
    });
    const { rt } = await makeRuntime([d]);
    const run = await rt.trigger('nokey');
    expect(await rt.runToCompletion('nokey', run.runId)).toBe('done');
    const tis = Object.fromEntries((await rt.ports.store.listTasks('nokey', run.runId)).map((t) => [t.taskId, t]));
    expect(tis.loose.error).toBe('invalid deferral: event wait com.acme/Tick has no usable key: it needs one top-level detail field pinned to one exact value (e.g. detail: { orderId: "o-1" }), or no event could find it');
    expect(tis.cidr.error).toBe('invalid deferral: event pattern of com.acme/Tick: detail.ip: "cidr" is not supported by Airless\'s pattern matcher');
    expect([tis.loose.tryNumber, tis.cidr.tryNumber]).toEqual([1, 1]);
  });

  it('times out like any deferral when no event comes', async () => {
    const { rt } = await makeRuntime([ordersDag(1)]);
    const run = await rt.trigger('orders');
    expect(await rt.runToCompletion('orders', run.runId)).toBe('done');
    const ti = (await rt.ports.store.getTask({ dagId: 'orders', runId: run.runId, taskId: 't0' }))!;
    expect(ti.state).toBe('failed');
    expect(ti.error).toBe('timed out waiting for event com.acme.orders/Order Shipped with orderId="o-0" (deadline 2026-01-02T00:00:00.000Z)');
  });
});
