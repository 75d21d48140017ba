/**
 * Airflow 3's `/api/v2/backfills` over the embedded runtime: create, dry run, list, get,
 * pause, unpause, cancel, each response validated against the spec's own schema (ajv,
 * JSON Schema 2020-12), and the spec's status codes for bad input (404, 409, 422 with
 * FastAPI's HTTPValidationError) with nothing created.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillRuns } from '../../lib/engine/index.js';
import { dag } from '../../lib/sdk/index.js';
import { openApiValidator, specPath } from '../helpers/openapi.js';
import { apiOverRuntime } from './support.js';

const spec = specPath();
if (!spec && process.env.CI) throw new Error('shared/airflow-openapi/v2-rest-api-generated.yaml is missing beside the repository');
if (!spec) console.warn('[airless] the Airflow API spec is not beside this checkout: skipping the backfill API schema checks');

const NOW = Date.parse('2026-03-01T00:00:00Z');

describe.skipIf(!spec)('/api/v2/backfills', () => {
  const check = spec ? openApiValidator(spec) : () => [];
  let env: Awaited<ReturnType<typeof apiOverRuntime>>;
  const daily = dag('bf_api', { schedule: '@daily', maxActiveRuns: 3 }, ({ task }) => { task('a', () => 1); });
  const manual = dag('bf_api_manual', { schedule: null }, ({ task }) => { task('a', () => 1); });
  const body = { dag_id: 'bf_api', from_date: '2026-01-01T00:00:00Z', to_date: '2026-01-05T00:00:00Z' };

  beforeAll(async () => {
    env = await apiOverRuntime([daily, manual], { start: NOW });
  });
  afterAll(async () => {
    await env?.api.close();
  });

  it('dry run: the dates in DryRunBackfillCollectionResponse, with the cost estimate; nothing created', async () => {
    const r = await env.call('POST', '/api/v2/backfills/dry_run', body);
    expect(r.status).toBe(200);
    expect(check('DryRunBackfillCollectionResponse', r.json)).toEqual([]);
    expect(r.json.total_entries).toBe(5);
    expect(r.json.backfills[0]).toEqual({ logical_date: '2026-01-01T00:00:00.000Z', partition_key: null, partition_date: null });
    expect(r.json.estimate).toMatchObject({ tasks: 5, requests: expect.any(Number), usd: expect.any(Number) });
    // The validator is not vacuous: it refuses what the spec refuses (a null id, a missing field, a bad date).
    expect(check('BackfillResponse', { ...r.json, id: null })).not.toEqual([]);
    expect(check('DryRunBackfillCollectionResponse', { backfills: [{ logical_date: 'soon' }] }).join('; ')).toMatch(/total_entries.*|format/);
    expect(await env.rt.ports.store.listBackfills('bf_api')).toEqual([]);
  });

  it('create (max_active_runs defaults to 10, as the spec), get, list, pause, unpause, cancel', async () => {
    const created = await env.call('POST', '/api/v2/backfills', { ...body, dag_run_conf: { full: true }, reprocess_behavior: 'failed' });
    expect(created.status).toBe(200);
    expect(check('BackfillResponse', created.json)).toEqual([]);
    expect(created.json).toMatchObject({
      id: 1, dag_id: 'bf_api', dag_display_name: 'bf_api', from_date: '2026-01-01T00:00:00.000Z', to_date: '2026-01-05T00:00:00.000Z',
      dag_run_conf: { full: true }, is_paused: false, reprocess_behavior: 'failed', max_active_runs: 10, completed_at: null,
      progress: { state: 'running', total: 5, handled: 5, created: 5, running: 5 },
    });
    const runs = await backfillRuns(env.rt.ports, { id: 1, dagId: 'bf_api' });
    expect(runs.map((x) => [x.runType, x.conf])).toEqual(Array(5).fill(['backfill', { full: true }]));

    const got = await env.call('GET', '/api/v2/backfills/1');
    expect(got.status).toBe(200);
    expect(check('BackfillResponse', got.json)).toEqual([]);
    const list = await env.call('GET', '/api/v2/backfills?dag_id=bf_api');
    expect(list.status).toBe(200);
    expect(check('BackfillCollectionResponse', list.json)).toEqual([]);
    expect(list.json).toMatchObject({ total_entries: 1, backfills: [{ id: 1 }] });

    const paused = await env.call('PUT', '/api/v2/backfills/1/pause');
    expect(paused.status).toBe(200);
    expect(check('BackfillResponse', paused.json)).toEqual([]);
    expect(paused.json).toMatchObject({ is_paused: true, progress: { state: 'paused' } });
    expect((await env.call('PUT', '/api/v2/backfills/1/unpause')).json).toMatchObject({ is_paused: false });
    const cancelled = await env.call('PUT', '/api/v2/backfills/1/cancel');
    expect(cancelled.status).toBe(200);
    expect(check('BackfillResponse', cancelled.json)).toEqual([]);
    expect(cancelled.json).toMatchObject({ is_paused: true, completed_at: expect.any(String), progress: { state: 'cancelled' } });
    // Completed: pausing, unpausing or cancelling again is a conflict.
    for (const action of ['pause', 'unpause', 'cancel']) {
      const again = await env.call('PUT', `/api/v2/backfills/1/${action}`);
      expect(again.status).toBe(409);
      expect(check('HTTPExceptionResponse', again.json)).toEqual([]);
    }
  });

  it('bad input: 404 unknown DAG or backfill, 409 a second running backfill, 422 in the HTTPValidationError shape; nothing created', async () => {
    const fresh = await apiOverRuntime([daily, manual], { start: NOW });
    try {
      const before = await fresh.call('POST', '/api/v2/backfills', body);
      expect(before.status).toBe(200);
      const cases: Array<[string, string, unknown, number, RegExp]> = [
        ['POST', '/api/v2/backfills', { ...body, dag_id: 'nope' }, 404, /unknown dag nope/],
        ['POST', '/api/v2/backfills', body, 409, /dag bf_api has a backfill running already \(backfill 1\)/],
        ['POST', '/api/v2/backfills', { ...body, from_date: '2026-02-01T00:00:00Z' }, 422, /from \(2026-02-01T00:00:00.000Z\) is after to/],
        ['POST', '/api/v2/backfills/dry_run', { ...body, dag_id: 'bf_api_manual' }, 422, /has no schedule \(schedule: null\)/],
        ['POST', '/api/v2/backfills/dry_run', { ...body, from_date: '2027-01-01T00:00:00Z', to_date: '2027-02-01T00:00:00Z' }, 422, /no schedule tick/],
        ['POST', '/api/v2/backfills/dry_run', { ...body, reprocess_behavior: 'all' }, 422, /must be one of none, failed, completed/],
        ['POST', '/api/v2/backfills/dry_run', { ...body, max_active_runs: 0 }, 422, /max_active_runs|whole number/],
        ['POST', '/api/v2/backfills/dry_run', { ...body, extra: 1 }, 422, /unknown field/],
        ['POST', '/api/v2/backfills/dry_run', { dag_id: 'bf_api', from_date: 'yesterday', to_date: body.to_date }, 422, /ISO-8601/],
        ['GET', '/api/v2/backfills', undefined, 422, /required/],
        ['GET', '/api/v2/backfills/99', undefined, 404, /backfill 99 not found/],
        ['GET', '/api/v2/backfills/x1', undefined, 422, /whole number/],
        ['PUT', '/api/v2/backfills/99/cancel', undefined, 404, /not found/],
      ];
      for (const [method, path, payload, status, msg] of cases) {
        const r = await fresh.call(method, path, payload);
        expect([path, r.status]).toEqual([path, status]);
        expect(check(status === 422 ? 'HTTPValidationError' : 'HTTPExceptionResponse', r.json)).toEqual([]);
        expect(JSON.stringify(r.json)).toMatch(msg);
      }
      expect((await fresh.rt.ports.store.listBackfills('bf_api')).map((b) => b.id)).toEqual([1]);
      expect(await fresh.rt.ports.store.listBackfills('bf_api_manual')).toEqual([]);
    } finally {
      await fresh.api.close();
    }
  });
});
