/**
 * The asset endpoints of the REST API. Every response is checked against Airflow 3.2.1's
 * spec by the client of test/api/support.ts (status, content type, body schema); the
 * named schemas below are checked again with the spec's own validator (test/helpers/openapi.ts,
 * the vendored spec/airflow copy) so a test says which shape it expects.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { allOf, asset, dag } from '../../lib/sdk/index.js';
import { openApiValidator } from '../helpers/openapi.js';
import { apiOverRuntime, errorText } from './support.js';

const check = openApiValidator();
function expectShape(name: string, value: unknown): void {
  expect(check(name, value)).toEqual([]);
}

const raw = asset('s3://lake/raw', { name: 'raw', group: 'lake', extra: { owner: 'data' } });
const other = asset('customers');

describe('asset endpoints (Airflow shapes)', () => {
  let api: Awaited<ReturnType<typeof apiOverRuntime>>;
  beforeAll(async () => {
    const producer = dag('producer', {}, ({ task }) => { task('write', (ctx) => { ctx.outletEvents(raw).extra = { rows: 3 }; }, { outlets: [raw] }); });
    const consumer = dag('consumer', { schedule: raw }, ({ task }) => { task('read', () => 1, { inlets: [raw] }); });
    const both = dag('both', { schedule: allOf(raw, other), displayName: 'Both assets' }, ({ task }) => { task('t', () => 1); });
    api = await apiOverRuntime([producer, consumer, both], { config: { runRetentionMs: 0 } });
    await api.rt.trigger('producer');
    await api.rt.runUntil(async () => (await api.rt.ports.store.listActiveRuns()).length === 0 && api.rt.queue.size === 0);
  });

  it('lists and gets assets with producers, consumers, inlets and the last event', async () => {
    const list = await api.call('GET', '/api/v2/assets');
    expect(list.status).toBe(200);
    expectShape('AssetCollectionResponse', list.json);
    expect(list.json.total_entries).toBe(2);
    const a = list.json.assets.find((x: { uri: string }) => x.uri === raw.uri);
    expect(a).toMatchObject({
      name: 'raw', group: 'lake', extra: { owner: 'data' },
      producing_tasks: [{ dag_id: 'producer', task_id: 'write' }], consuming_tasks: [{ dag_id: 'consumer', task_id: 'read' }],
      last_asset_event: { id: expect.any(Number) },
    });
    expect(a.scheduled_dags.map((d: { dag_id: string }) => d.dag_id).sort()).toEqual(['both', 'consumer']);
    const one = await api.call('GET', `/api/v2/assets/${a.id}`);
    expectShape('AssetResponse', one.json);
    expect(one.json.uri).toBe(raw.uri);
    expect((await api.call('GET', '/api/v2/assets?uri_pattern=%25custom%25')).json.assets.map((x: { uri: string }) => x.uri)).toEqual(['customers']);
    expect((await api.call('GET', '/api/v2/assets?order_by=-name&limit=1')).json.assets.map((x: { name: string }) => x.name)).toEqual(['raw']);
    expect(await api.call('GET', '/api/v2/assets/12')).toMatchObject({ status: 404 });
    const nope = await api.call('GET', '/api/v2/assets/nope');
    expect(nope.status).toBe(422);
    expect(nope.json.detail[0]).toMatchObject({ loc: ['path', 'asset_id'], input: 'nope' });
    const bogus = await api.call('GET', '/api/v2/assets?order_by=bogus');
    expect(bogus.status).toBe(422);
    expectShape('HTTPValidationError', bogus.json);
    expect(bogus.json.detail[0].loc).toEqual(['query', 'order_by']);
  });

  it('lists events with their source task and the runs they triggered, and a run\'s upstream events', async () => {
    const r = await api.call('GET', '/api/v2/assets/events');
    expect(r.status).toBe(200);
    expectShape('AssetEventCollectionResponse', r.json);
    const [e] = r.json.asset_events;
    expect(e).toMatchObject({ uri: raw.uri, name: 'raw', extra: { rows: 3 }, source_dag_id: 'producer', source_task_id: 'write', source_map_index: -1 });
    expect(e.created_dagruns).toEqual([expect.objectContaining({ dag_id: 'consumer', state: 'success' })]);
    const consumerRun = e.created_dagruns[0].run_id;
    const upstream = await api.call('GET', `/api/v2/dags/consumer/dagRuns/${encodeURIComponent(consumerRun)}/upstreamAssetEvents`);
    expectShape('AssetEventCollectionResponse', upstream.json);
    expect(upstream.json.asset_events.map((x: { id: number }) => x.id)).toEqual([e.id]);
    const producerRun = (await api.call('GET', '/api/v2/dags/producer/dagRuns')).json.dag_runs[0].dag_run_id;
    expect((await api.call('GET', `/api/v2/dags/producer/dagRuns/${encodeURIComponent(producerRun)}/upstreamAssetEvents`)).json).toEqual({ asset_events: [], total_entries: 0 });
    expect((await api.call('GET', '/api/v2/dags/consumer/dagRuns/nope/upstreamAssetEvents')).status).toBe(404);
    expect((await api.call('GET', '/api/v2/assets/events?source_dag_id=nobody')).json.total_entries).toBe(0);
    expect((await api.call('GET', '/api/v2/assets/events?timestamp_gte=2000-01-01T00:00:00Z')).json.total_entries).toBe(1);
    expect((await api.call('GET', '/api/v2/assets/events?timestamp_lt=2000-01-01T00:00:00Z')).json.total_entries).toBe(0);
  });

  it('POST /assets/events records an event; queued events show what a DAG waits on; DELETE clears them', async () => {
    const id = (await api.call('GET', '/api/v2/assets')).json.assets.find((x: { uri: string }) => x.uri === 'customers').id;
    const rawId = (await api.call('GET', '/api/v2/assets')).json.assets.find((x: { uri: string }) => x.uri === raw.uri).id;
    // `both` has raw queued since the producer ran; customers completes it.
    const q = await api.call('GET', '/api/v2/dags/both/assets/queuedEvents');
    expectShape('QueuedEventCollectionResponse', q.json);
    expect(q.json.queued_events).toEqual([expect.objectContaining({ dag_id: 'both', dag_display_name: 'Both assets', asset_id: rawId })]);
    const one = await api.call('GET', `/api/v2/dags/both/assets/${rawId}/queuedEvents`);
    expectShape('QueuedEventResponse', one.json);
    expectShape('QueuedEventCollectionResponse', (await api.call('GET', `/api/v2/assets/${rawId}/queuedEvents`)).json);
    const posted = await api.call('POST', '/api/v2/assets/events', { asset_id: id, extra: { from: 'api' } });
    expect(posted.status).toBe(200);
    expectShape('AssetEventResponse', posted.json);
    expect(posted.json).toMatchObject({ asset_id: id, extra: { from: 'api' }, source_dag_id: null, created_dagruns: [] });
    await api.rt.runUntil(async () => (await api.rt.ports.store.listActiveRuns()).length === 0 && api.rt.queue.size === 0);
    const runs = await api.call('GET', '/api/v2/dags/both/dagRuns');
    expect(runs.json.dag_runs.map((r: { run_type: string; triggered_by: string }) => [r.run_type, r.triggered_by])).toEqual([['asset_triggered', 'asset']]);
    expect((await api.call('GET', '/api/v2/dags/both/assets/queuedEvents')).json.total_entries).toBe(0);
    expect((await api.call('GET', `/api/v2/dags/both/assets/${rawId}/queuedEvents`)).status).toBe(404);
    // Queue raw for `both` again, then an operator drops it.
    await api.call('POST', '/api/v2/assets/events', { asset_id: rawId });
    expect((await api.call('GET', '/api/v2/dags/both/assets/queuedEvents')).json.total_entries).toBe(1);
    expect((await api.call('DELETE', '/api/v2/dags/both/assets/queuedEvents')).status).toBe(204);
    expect((await api.call('GET', '/api/v2/dags/both/assets/queuedEvents')).json.total_entries).toBe(0);
  });

  it('bad input is a 4xx naming the field: 422 as HTTPValidationError at its location, 404 as HTTPExceptionResponse', async () => {
    for (const [body, status, detail, loc] of [
      [{ asset_id: 'x' }, 422, /asset_id: must be an integer/, ['body', 'asset_id']],
      [{ asset_id: 1.5 }, 422, /asset_id: must be an integer/, ['body', 'asset_id']],
      [{ asset_id: 1, extra: [1] }, 422, /extra: extra must be a JSON object/, ['body', 'extra']],
      [{ asset_id: 1, surprise: true }, 422, /surprise: unknown field/, ['body', 'surprise']],
      [{ asset_id: 1, partition_key: 'p' }, 422, /partition_key/, ['body', 'partition_key']],
      [{ asset_id: 12345 }, 404, /Asset with ID: `12345` was not found/, undefined],
    ] as const) {
      const r = await api.call('POST', '/api/v2/assets/events', body);
      expect(r.status).toBe(status);
      expectShape(status === 422 ? 'HTTPValidationError' : 'HTTPExceptionResponse', r.json);
      expect(errorText(r)).toMatch(detail);
      if (loc) expect(r.json.detail[0].loc).toEqual(loc);
    }
    // The spec lists no 404 for these listings: an unknown DAG or asset has none queued.
    expect((await api.call('GET', '/api/v2/dags/nope/assets/queuedEvents')).json).toEqual({ queued_events: [], total_entries: 0 });
    expect((await api.call('GET', '/api/v2/assets/12345/queuedEvents')).json).toEqual({ queued_events: [], total_entries: 0 });
    expect((await api.call('DELETE', '/api/v2/dags/nope/assets/queuedEvents')).status).toBe(404);
    const before = await api.call('DELETE', '/api/v2/dags/both/assets/queuedEvents?before=2026-01-01');
    expect(before.status).toBe(422);
    expect(before.json.detail[0].loc).toEqual(['query', 'before']);
    const badDate = await api.call('GET', '/api/v2/assets/events?timestamp_gte=yesterday');
    expect(badDate.status).toBe(422);
    expect(badDate.json.detail[0].loc).toEqual(['query', 'timestamp_gte']);
  });
});
