/**
 * Airflow's tasks of a DAG and a mapped instance's tries, from the DAG's spec and the store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import etl from '../../examples/dags/etl_daily.js';
import { probeDags } from './coverage-requests.js';
import { apiOverRuntime, errorText } from './support.js';

let h: Awaited<ReturnType<typeof apiOverRuntime>>;
beforeAll(async () => { h = await apiOverRuntime([etl, ...probeDags()]); });
afterAll(async () => { await h.api.close(); });

describe('tasks of a DAG', () => {
  it('lists each task with its retry policy, trigger rule and downstream, as Airflow\'s TaskResponse', async () => {
    const r = await h.call('GET', '/api/v2/dags/etl_daily/tasks');
    expect(r.json.total_entries).toBe(7);
    const byId = Object.fromEntries(r.json.tasks.map((t: { task_id: string }) => [t.task_id, t]));
    expect(byId.extract).toMatchObject({
      retries: 2, retry_delay: { days: 0, seconds: 30, microseconds: 0 }, execution_timeout: { days: 0, seconds: 300, microseconds: 0 },
      retry_exponential_backoff: 2, downstream_task_ids: expect.arrayContaining(['transform', 'audit']), operator_name: 'PythonOperator', is_mapped: false,
    });
    expect(byId.audit.retries).toBe(0);
    expect(byId.load.trigger_rule).toBe('none_failed');
    expect((await h.call('GET', '/api/v2/dags/probe_mapped/tasks/size')).json).toMatchObject({ task_id: 'size', is_mapped: true, pool: 'probe_pool' });
    expect((await h.call('GET', '/api/v2/dags/etl_daily/tasks?order_by=-task_id')).json.tasks[0].task_id).toBe('transform');
    const missing = await h.call('GET', '/api/v2/dags/etl_daily/tasks/nope');
    expect(missing.status).toBe(404);
    expect(errorText(missing)).toMatch(/^task_id: /);
  });

  it('serves a mapped instance\'s tries by its map index', async () => {
    const run = await h.rt.trigger('probe_mapped');
    await h.rt.runToCompletion('probe_mapped', run.runId);
    const base = `/api/v2/dags/probe_mapped/dagRuns/${encodeURIComponent(run.runId)}/taskInstances/size`;
    const tries = await h.call('GET', `${base}/2/tries`);
    expect(tries.json).toMatchObject({ total_entries: 1, task_instances: [{ task_id: 'size', map_index: 2, try_number: 1, state: 'success' }] });
    expect((await h.call('GET', `${base}/2/tries/1`)).json).toMatchObject({ map_index: 2, try_number: 1 });
    expect((await h.call('GET', `${base}/2/tries/2`)).status).toBe(404);
    expect((await h.call('GET', `${base}/7/tries`)).status).toBe(404);
  });

  it('says what keeps a task instance from running, in Airflow\'s dependency names, until it has run', async () => {
    const run = await h.rt.trigger('etl_daily', { logicalDate: Date.parse('2025-05-01T00:00:00Z') });
    const deps = `/api/v2/dags/etl_daily/dagRuns/${encodeURIComponent(run.runId)}/taskInstances/load/dependencies`;
    const waiting = (await h.call('GET', deps)).json.dependencies;
    expect(waiting).toContainEqual({ name: 'Trigger Rule', reason: expect.stringMatching(/'none_failed' requires its upstream tasks to be done, but 2 are not: (transform, audit|audit, transform)$/) });
    await h.rt.runToCompletion('etl_daily', run.runId);
    expect((await h.call('GET', deps)).json).toEqual({ dependencies: [] });
    expect((await h.call('GET', deps.replace('/load/', '/nope/'))).status).toBe(404);
  });

  it('lists task instances across DAGs and runs with ~, filtered by state and task, ordered and paged', async () => {
    const run = await h.rt.trigger('probe_mapped', { logicalDate: Date.parse('2025-04-01T00:00:00Z') });
    await h.rt.runToCompletion('probe_mapped', run.runId);
    const etlRun = await h.rt.trigger('etl_daily', { logicalDate: Date.parse('2025-04-01T00:00:00Z') });
    await h.rt.runToCompletion('etl_daily', etlRun.runId);
    const list = async (q: string) => (await h.call('GET', `/api/v2/dags/~/dagRuns/~/taskInstances?${q}`)).json;
    const done = await list('state=success&state=skipped');
    expect(done.total_entries).toBeGreaterThanOrEqual(8);
    expect(done.task_instances.every((t: { state: string }) => t.state === 'success' || t.state === 'skipped')).toBe(true);
    const sizes = (await h.call('GET', `/api/v2/dags/~/dagRuns/${encodeURIComponent(run.runId)}/taskInstances?task_id=size&order_by=-map_index&limit=2`)).json;
    expect(sizes.total_entries).toBe(3);
    expect(sizes.task_instances.map((t: { map_index: number }) => t.map_index)).toEqual([2, 1]);
    const successes = await list('state=success&dag_id_pattern=etl%');
    expect(new Set(successes.task_instances.map((t: { dag_id: string }) => t.dag_id))).toEqual(new Set(['etl_daily']));
    // The batch form takes the same filters in its body, and dag_ids / dag_run_ids.
    const batch = (await h.call('POST', '/api/v2/dags/~/dagRuns/~/taskInstances/list', { dag_run_ids: [run.runId], task_ids: ['size'], order_by: '-map_index', page_limit: 2 })).json;
    expect(batch).toEqual(sizes);
    const etlOnly = (await h.call('POST', '/api/v2/dags/~/dagRuns/~/taskInstances/list', { dag_ids: ['etl_daily'], state: ['success'] })).json;
    expect(etlOnly.total_entries).toBeGreaterThan(0);
    expect(etlOnly.task_instances.every((t: { dag_id: string; state: string }) => t.dag_id === 'etl_daily' && t.state === 'success')).toBe(true);
    const bad = await h.call('GET', '/api/v2/dags/~/dagRuns/~/taskInstances?state=done');
    expect(bad.status).toBe(422);
    expect(errorText(bad)).toMatch(/^state: "done" is not one of/);
  });

  it('lists runs across DAGs with ~ and in the batch form, filtered by state, type and dates', async () => {
    const run = await h.rt.trigger('probe_mapped', { logicalDate: Date.parse('2025-03-01T00:00:00Z') });
    await h.rt.runToCompletion('probe_mapped', run.runId);
    const all = (await h.call('GET', '/api/v2/dags/~/dagRuns?limit=1000')).json;
    expect(new Set(all.dag_runs.map((r: { dag_id: string }) => r.dag_id))).toEqual(new Set(['etl_daily', 'probe_mapped']));
    const probe = (await h.call('GET', '/api/v2/dags/~/dagRuns?dag_id_pattern=probe%&run_type=manual&logical_date_lte=2025-03-01T00:00:00Z')).json;
    expect(probe.dag_runs.map((r: { dag_run_id: string }) => r.dag_run_id)).toEqual([run.runId]);
    const batch = (await h.call('POST', '/api/v2/dags/~/dagRuns/list', { dag_ids: ['probe_mapped'], states: ['success'], logical_date_lte: '2025-03-01T00:00:00Z' })).json;
    expect(batch).toEqual(probe);
    expect((await h.call('GET', '/api/v2/dags/~/dagRuns?run_type=cron')).status).toBe(422);
  });
});
