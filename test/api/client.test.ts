/**
 * A typed client generated from Airflow's spec drives the API, as a user's script would:
 * trigger, list, mark, clear, logs and XCom, on both stores (this file is in the vitest
 * projects' engine suites). openapi-typescript turns the spec into types
 * (test/api/generated/airflow-api.ts, `npm run api:client`) and openapi-fetch is a 6 kB
 * fetch wrapper over them: no generated runtime code to keep, paths and bodies typed from
 * the spec itself, and every response still checked against the spec (a middleware).
 */
import createClient, { type Middleware } from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import etl from '../../examples/dags/etl_daily.js';
import type { paths } from './generated/airflow-api.js';
import { apiOverRuntime, expectConforming, TOKEN } from './support.js';

let h: Awaited<ReturnType<typeof apiOverRuntime>>;
let client: ReturnType<typeof createClient<paths>>;

const conforming: Middleware = {
  async onResponse({ request, response }) {
    const text = await response.clone().text();
    let body: unknown = text || undefined;
    try { body = text ? JSON.parse(text) : undefined; } catch { /* not JSON: checked as text */ }
    expectConforming(request.method, request.url, response.status, response.headers.get('content-type'), body);
    return response;
  },
};

beforeAll(async () => {
  h = await apiOverRuntime([etl]);
  client = createClient<paths>({ baseUrl: h.api.url, headers: { authorization: `Bearer ${TOKEN}` } });
  client.use(conforming);
});
afterAll(async () => { await h.api.close(); });

describe('a client generated from the spec', () => {
  it('triggers a run, lists runs and task instances, marks, clears, and reads logs and XCom', async () => {
    const dag = { dag_id: 'etl_daily' };
    const trig = await client.POST('/api/v2/dags/{dag_id}/dagRuns', { params: { path: dag }, body: { logical_date: '2026-02-01T00:00:00Z', conf: { full: true } } });
    expect(trig.response.status).toBe(200);
    const runId = trig.data!.dag_run_id;
    await h.rt.runToCompletion('etl_daily', runId);

    const runs = await client.GET('/api/v2/dags/{dag_id}/dagRuns', { params: { path: dag, query: { state: ['success'], order_by: ['-logical_date'] } } });
    expect(runs.data!.dag_runs.map((r) => r.dag_run_id)).toContain(runId);
    const run = { ...dag, dag_run_id: runId };
    const tis = await client.GET('/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances', { params: { path: run } });
    const states = Object.fromEntries(tis.data!.task_instances.map((t) => [t.task_id, t.state]));
    expect(states).toMatchObject({ extract: 'success', transform: 'success', full: 'success', delta: 'skipped' });

    const marked = await client.PATCH('/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}', {
      params: { path: { ...run, task_id: 'full' } }, body: { new_state: 'failed' },
    });
    expect(marked.data!.task_instances[0]).toMatchObject({ task_id: 'full', state: 'failed' });

    const cleared = await client.POST('/api/v2/dags/{dag_id}/clearTaskInstances', {
      params: { path: dag }, body: { dry_run: false, dag_run_id: runId, task_ids: ['full'], only_failed: true },
    });
    expect(cleared.data!.task_instances.map((t) => t.task_id)).toEqual(['full']);
    await h.rt.runToCompletion('etl_daily', runId);
    const full = await client.GET('/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}', { params: { path: { ...run, task_id: 'full' } } });
    expect(full.data).toMatchObject({ state: 'success', try_number: 2 });

    const log = await client.GET('/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/logs/{try_number}', {
      params: { path: { ...run, task_id: 'full', try_number: 2 } },
    });
    const content = (log.data as { content: { event: string }[] }).content;
    expect(content.map((l) => l.event)).toContain('state running -> success');

    const xcom = await client.GET('/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/xcomEntries/{xcom_key}', {
      params: { path: { ...run, task_id: 'transform', xcom_key: 'return_value' } },
    });
    expect(xcom.data).toMatchObject({ key: 'return_value', task_id: 'transform', value: expect.anything() });

    const missing = await client.GET('/api/v2/dags/{dag_id}', { params: { path: { dag_id: 'nope' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toEqual({ detail: expect.stringMatching(/^dag_id: /) });
  });
});
