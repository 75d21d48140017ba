/**
 * A DAG's versions (the bundle versions its runs and its record name, numbered in build
 * order) and its warnings (a task whose pool the store does not hold), read from the store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import etl from '../../examples/dags/etl_daily.js';
import { apiOverRuntime } from './support.js';

let h: Awaited<ReturnType<typeof apiOverRuntime>>;
beforeAll(async () => { h = await apiOverRuntime([etl]); });
afterAll(async () => { await h.api.close(); });

describe('dagVersions', () => {
  it('lists the bundle versions of the DAG\'s runs and its current one, numbered by build time', async () => {
    const store = h.rt.ports.store;
    const dag = (await store.getDag('etl_daily'))!;
    const r = await h.rt.trigger('etl_daily');
    await h.rt.runToCompletion('etl_daily', r.runId);
    // A run made by an older bundle (its manifest gone: dated by the run's queue time).
    const old = (await store.getRun('etl_daily', r.runId))!;
    await store.createRun({ ...old, runId: 'older_bundle_run', bundleVersion: 'sha-old', queuedAt: Date.parse('2020-01-01T00:00:00Z'), state: 'success' });
    const listed = await h.call('GET', '/api/v2/dags/etl_daily/dagVersions?order_by=version_number');
    expect(listed.json.total_entries).toBe(2);
    expect(listed.json.dag_versions.map((v: { version_number: number; bundle_version: string }) => [v.version_number, v.bundle_version])).toEqual([[1, 'sha-old'], [2, dag.bundleVersion]]);
    expect(listed.json.dag_versions[0]).toMatchObject({ created_at: '2020-01-01T00:00:00.000Z', bundle_name: 'airless', dag_id: 'etl_daily' });
    const two = await h.call('GET', '/api/v2/dags/etl_daily/dagVersions/2');
    expect(two.json).toEqual(listed.json.dag_versions[1]);
    expect((await h.call('GET', '/api/v2/dags/etl_daily/dagVersions/3')).status).toBe(404);
  });
});

describe('dagWarnings', () => {
  it('warns of a task whose pool the store does not hold, and of nothing else', async () => {
    expect((await h.call('GET', '/api/v2/dagWarnings')).json).toEqual({ dag_warnings: [], total_entries: 0 });
    const dag = (await h.rt.ports.store.getDag('etl_daily'))!;
    // A new bundle version: the DynamoDB store caches a spec by its version.
    await h.rt.ports.store.putDag({ ...dag, bundleVersion: 'with-warehouse', spec: { ...dag.spec, tasks: dag.spec.tasks.map((t) => (t.taskId === 'load' ? { ...t, pool: 'warehouse' } : t)) } });
    const r = await h.call('GET', '/api/v2/dagWarnings?dag_id=etl_daily');
    expect(r.json.dag_warnings).toEqual([expect.objectContaining({ dag_id: 'etl_daily', warning_type: 'non-existent pool', message: expect.stringContaining('warehouse') })]);
  });
});
