/**
 * The asset endpoints of the REST API, each response validated against Airflow 3.2.1's own
 * JSON schemas (test/fixtures/airflow-openapi/asset-schemas.json, copied from the spec) with
 * ajv's JSON Schema 2020-12, `nullable: true` read as `anyOf [X, null]` as the spec means it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { allOf, asset, dag } from '../../lib/sdk/index.js';
import { apiOverRuntime } from './support.js';

const spec = JSON.parse(readFileSync(path.join(__dirname, '../fixtures/airflow-openapi/asset-schemas.json'), 'utf8')) as { schemas: Record<string, unknown> };

/** OpenAPI 3.0's `nullable` to JSON Schema's null type; `$ref`s to this document's `$defs`. */
function toJsonSchema(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(toJsonSchema);
  if (typeof x !== 'object' || x === null) return x;
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) {
    if (k === 'nullable') continue;
    o[k] = k === '$ref' ? String(v).replace('#/components/schemas/', '#/$defs/') : toJsonSchema(v);
  }
  return (x as { nullable?: boolean }).nullable ? { anyOf: [o, { type: 'null' }] } : o;
}

const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
(addFormats as unknown as typeof addFormats.default)(ajv);
ajv.addSchema({ $id: 'airflow', $defs: toJsonSchema(spec.schemas) as Record<string, unknown> });
function expectShape(name: string, value: unknown): void {
  const validate = ajv.getSchema(`airflow#/$defs/${name}`)!;
  const ok = validate(value);
  expect(ok ? [] : validate.errors).toEqual([]);
}

const raw = asset('s3://lake/raw', { name: 'raw', group: 'lake', extra: { owner: 'data' } });
const other = asset('customers');

describe('asset endpoints (Airflow shapes)', () => {
  let api: Awaited<ReturnType<typeof apiOverRuntime>>;
  beforeAll(async () => {
    const producer = dag('producer', {}, ({ task }) => { task('write', (ctx) => { ctx.outletEvents(raw).extra = { rows: 3 }; }, { outlets: [raw] }); });
    const consumer = dag('consumer', { schedule: raw }, ({ task }) => { task('read', () => 1, { inlets: [raw] }); });
    const both = dag('both', { schedule: allOf(raw, other) }, ({ task }) => { task('t', () => 1); });
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
    expect((await api.call('GET', '/api/v2/assets/nope')).status).toBe(422);
    expect((await api.call('GET', '/api/v2/assets?order_by=bogus')).status).toBe(400);
  });

  it('lists events with their source task and the runs they triggered', async () => {
    const r = await api.call('GET', '/api/v2/assets/events');
    expect(r.status).toBe(200);
    expectShape('AssetEventCollectionResponse', r.json);
    const [e] = r.json.asset_events;
    expect(e).toMatchObject({ uri: raw.uri, name: 'raw', extra: { rows: 3 }, source_dag_id: 'producer', source_task_id: 'write', source_map_index: -1 });
    expect(e.created_dagruns).toEqual([expect.objectContaining({ dag_id: 'consumer', state: 'success' })]);
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
    expect(q.json.queued_events).toEqual([expect.objectContaining({ dag_id: 'both', asset_id: rawId })]);
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

  it('bad input is a 4xx naming the field, as HTTPExceptionResponse', async () => {
    for (const [body, status, detail] of [
      [{ asset_id: 'x' }, 422, /asset_id: must be an integer/],
      [{ asset_id: 1, extra: [1] }, 422, /extra: extra must be a JSON object/],
      [{ asset_id: 1, surprise: true }, 422, /surprise: unknown field/],
      [{ asset_id: 1, partition_key: 'p' }, 422, /partition_key/],
      [{ asset_id: 12345 }, 404, /Asset with ID: `12345` was not found/],
    ] as const) {
      const r = await api.call('POST', '/api/v2/assets/events', body);
      expect(r.status).toBe(status);
      expectShape('HTTPExceptionResponse', r.json);
      expect(r.json.detail).toMatch(detail);
    }
    expect((await api.call('GET', '/api/v2/dags/nope/assets/queuedEvents')).status).toBe(404);
    expect((await api.call('DELETE', '/api/v2/dags/both/assets/queuedEvents?before=2026-01-01')).status).toBe(422);
  });
});
