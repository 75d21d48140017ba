/**
 * External events feeding assets (watchers), on both stores: S3 notifications through
 * EventBridge, EventBridge patterns and SQS messages, each matched to its watchers and
 * recorded once per dedup key, so a redelivery (concurrent or late) makes no second event
 * or run. The edge's parsing of what Lambda receives is checked here too.
 */
import { describe, expect, it } from 'vitest';
import { ingestExternalEvent } from '../../../lib/engine/index.js';
import { parseAssetSourceInput } from '../../../lib/adapters/aws/eventbridge/asset-sources.js';
import type { EmbeddedRuntime } from '../../../lib/runtime/embedded.js';
import { allOf, asset, dag, watch } from '../../../lib/sdk/index.js';
import { makeRuntime as baseRuntime } from '../../helpers/runtime.js';

const makeRuntime: typeof baseRuntime = (dags, opts = {}) => baseRuntime(dags, { ...opts, config: { runRetentionMs: 0, ...opts.config } });

const landing = asset('s3://lake/landing', { watchers: [watch.s3({ bucket: 'lake', prefix: 'landing/', suffix: '.csv' })] });
const invoices = asset('invoices', { watchers: [watch.eventBridge({ pattern: { source: ['billing'], 'detail-type': ['Invoice Closed'] }, dedupField: 'detail.invoiceId' })] });
const orders = asset('orders', { watchers: [watch.sqs({ queue: 'arn:aws:sqs:us-east-1:123456789012:orders-in' })] });

/** An S3 "Object Created" event as EventBridge delivers it (AWS's shape). */
function s3Created(key: string, etag: string, id = `ev-${key}-${etag}`) {
  return {
    version: '0', id, 'detail-type': 'Object Created', source: 'aws.s3', account: '123456789012', time: '2026-01-01T00:00:00Z', region: 'us-east-1',
    resources: ['arn:aws:s3:::lake'],
    detail: { version: '0', bucket: { name: 'lake' }, object: { key, size: 12, etag, sequencer: '00' }, 'request-id': 'r', requester: '123456789012', reason: 'PutObject' },
  };
}

/** The one event of an EventBridge delivery. */
function ebEvent(x: unknown) {
  const input = parseAssetSourceInput(x, 0);
  if (input.kind !== 'eventbridge') throw new Error('expected an EventBridge event');
  return input.event;
}

async function settle(rt: EmbeddedRuntime) {
  await rt.runUntil(async () => rt.queue.size === 0 && rt.timer.size === 0 && (await rt.ports.store.listActiveRuns()).length === 0);
}

const runsOf = async (rt: EmbeddedRuntime, dagId: string) => rt.ports.store.listRuns(dagId);

describe('external events feeding assets', () => {
  it('an S3 object under the prefix triggers the DAG once, even when the notification is delivered twice or races', async () => {
    const { rt, clock } = await makeRuntime([dag('on_landing', { schedule: landing }, ({ task }) => { task('t', (ctx) => ctx.triggeringAssetEvents[landing.uri]!.map((e) => e.extra.key)); })]);
    const ev = parseAssetSourceInput(s3Created('landing/a.csv', '"e1"'), 0);
    expect(ev.kind).toBe('eventbridge');
    const e = ev.kind === 'eventbridge' ? ev.event : undefined!;
    expect(e).toMatchObject({ source: 's3', bucket: 'lake', key: 'landing/a.csv', etag: '"e1"', size: 12 });
    const reports = await Promise.all([ingestExternalEvent(rt.ports, e), ingestExternalEvent(rt.ports, e), ingestExternalEvent(rt.ports, e)]);
    expect(reports.reduce((n, r) => n + r.recorded, 0)).toBe(1);
    expect(reports.reduce((n, r) => n + r.duplicates, 0)).toBe(2);
    await settle(rt);
    expect(await ingestExternalEvent(rt.ports, e)).toMatchObject({ recorded: 0, duplicates: 1, evaluating: 0 });
    // Outside the prefix or the suffix: no event. A new version of the object: a new event.
    expect(await ingestExternalEvent(rt.ports, ebEvent(s3Created('other/b.csv', '"x"')))).toMatchObject({ recorded: 0 });
    expect(await ingestExternalEvent(rt.ports, ebEvent(s3Created('landing/a.json', '"x"')))).toMatchObject({ recorded: 0 });
    clock.advanceTo(clock.now() + 1000);
    expect(await ingestExternalEvent(rt.ports, ebEvent(s3Created('landing/a.csv', '"e2"')))).toMatchObject({ recorded: 1 });
    await settle(rt);
    const runs = await runsOf(rt, 'on_landing');
    expect(runs.map((r) => r.runType)).toEqual(['asset_triggered', 'asset_triggered']);
    const [event] = await rt.ports.store.listAssetEvents(landing.uri, { limit: 1 });
    expect(event).toMatchObject({ origin: 's3', extra: { bucket: 'lake', key: 'landing/a.csv', etag: '"e2"', size: 12 } });
  });

  it('EventBridge events match by pattern and dedup on the field the watcher names; SQS messages on their id', async () => {
    const { rt } = await makeRuntime([dag('billing', { schedule: allOf(invoices, orders) }, ({ task }) => { task('t', () => 1); })]);
    const invoice = (id: string, invoiceId: string) => ({ version: '0', id, 'detail-type': 'Invoice Closed', source: 'billing', account: '1', time: '2026-01-01T00:00:00Z', region: 'us-east-1', resources: [], detail: { invoiceId } });
    const ingest = (x: unknown) => {
      const input = parseAssetSourceInput(x, 0);
      return Promise.all((input.kind === 'sqs' ? input.records.map((r) => r.event) : [input.event]).map((e) => ingestExternalEvent(rt.ports, e)));
    };
    // The same invoice published twice (two event ids): one event.
    expect((await ingest(invoice('a', 'inv-1')))[0]).toMatchObject({ recorded: 1 });
    expect((await ingest(invoice('b', 'inv-1')))[0]).toMatchObject({ recorded: 0, duplicates: 1 });
    expect((await ingest({ ...invoice('c', 'inv-2'), source: 'shop' }))[0]).toMatchObject({ recorded: 0, duplicates: 0 });
    expect((await ingest({ ...invoice('d', 'x'), detail: {} }))[0]).toMatchObject({ recorded: 0, missingKey: 1 });
    await settle(rt);
    expect(await runsOf(rt, 'billing')).toEqual([]);
    const sqs = (messageId: string, body: string) => ({ Records: [{ eventSource: 'aws:sqs', messageId, body, eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:orders-in', attributes: { SentTimestamp: '1767225600000' } }] });
    expect((await ingest(sqs('m-1', '{"orderId":1}')))[0]).toMatchObject({ recorded: 1, evaluating: 1 });
    expect((await ingest(sqs('m-1', '{"orderId":1}')))[0]).toMatchObject({ recorded: 0, duplicates: 1 });
    await settle(rt);
    const [run] = await runsOf(rt, 'billing');
    expect(Object.keys(run!.assetEvents!).sort()).toEqual(['invoices', 'orders']);
    const [ev] = await rt.ports.store.listAssetEvents('orders', { limit: 1 });
    expect(ev).toMatchObject({ origin: 'sqs', extra: { messageId: 'm-1', body: { orderId: 1 } } });
  });

  it('the edge refuses what is neither an EventBridge event nor an SQS batch, in one line', () => {
    expect(() => parseAssetSourceInput('x', 0)).toThrow(/not a JSON object/);
    expect(() => parseAssetSourceInput({ Records: [{ eventSource: 'aws:s3' }] }, 0)).toThrow(/record 0 is not an SQS message/);
    expect(() => parseAssetSourceInput({ hello: 1 }, 0)).toThrow(/neither an EventBridge event nor an SQS batch/);
  });
});
