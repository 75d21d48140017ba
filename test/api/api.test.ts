/**
 * The REST API v2 subset over an embedded runtime: status codes, Airflow's shapes, auth,
 * cross-site protection and bad input (a 4xx naming the field, never a 500).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import branching from '../../examples/dags/branching.js';
import etl from '../../examples/dags/etl_daily.js';
import { apiOverRuntime, errorText, TOKEN } from './support.js';

let h: Awaited<ReturnType<typeof apiOverRuntime>>;
let runId: string;
const RUNS = '/api/v2/dags/etl_daily/dagRuns';

beforeAll(async () => {
  h = await apiOverRuntime([etl, branching]);
  const r = await h.call('POST', RUNS, { logical_date: '2026-01-01T00:00:00Z', conf: { full: true } });
  expect(r.status).toBe(200);
  runId = r.json.dag_run_id;
  expect(await h.rt.runToCompletion('etl_daily', runId)).toBe('done');
});
afterAll(async () => { await h.api.close(); });

describe('auth', () => {
  it('refuses a request without a token, or with a wrong one, as Airflow does (HTTPExceptionResponse)', async () => {
    const none = await fetch(`${h.api.url}/api/v2/dags`);
    expect(none.status).toBe(401);
    expect(none.headers.get('content-type')).toBe('application/json');
    expect(await none.json()).toEqual({ detail: expect.stringMatching(/Authorization/) });
    const wrong = await h.call('GET', '/api/v2/dags', undefined, { authorization: 'Bearer nope-nope-nope' });
    expect(wrong.status).toBe(401);
  });

  it('serves the page and its assets without the token, and none of them holds it', async () => {
    for (const p of ['/', '/index.html', '/assets/app.js']) {
      const r = await fetch(`${h.api.url}${p}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('set-cookie')).toBeNull();
      expect(await r.text()).not.toContain(TOKEN);
    }
  });

  it('turns an old ?token= address into /#token= without setting any cookie', async () => {
    const r = await fetch(`${h.api.url}/?token=${TOKEN}`, { redirect: 'manual' });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`/#token=${TOKEN}`);
    expect(r.headers.get('set-cookie')).toBeNull();
    expect((await fetch(`${h.api.url}/?token=wrong-token-x`)).status).toBe(401);
  });

  it('accepts the token in the Authorization header only: a cookie (which every port of 127.0.0.1 receives) does not authenticate', async () => {
    const cookie = { cookie: `airless_token=${TOKEN}`, authorization: '' };
    const withCookie = await fetch(`${h.api.url}/api/v2/dags`, { headers: { cookie: cookie.cookie } });
    expect(withCookie.status).toBe(401);
    const patch = await fetch(`${h.api.url}/api/v2/dags/branching`, {
      method: 'PATCH', headers: { 'content-type': 'application/json', cookie: cookie.cookie, 'x-airless-csrf': '1', origin: h.api.url }, body: '{"is_paused":false}',
    });
    expect(patch.status).toBe(401);
    expect((await h.call('PATCH', '/api/v2/dags/branching', { is_paused: false })).status).toBe(200);
  });
});

describe('DAGs', () => {
  it('lists DAGs with Airflow field names', async () => {
    const r = await h.call('GET', '/api/v2/dags');
    expect(r.status).toBe(200);
    expect(r.json.total_entries).toBe(2);
    const d = r.json.dags.find((x: any) => x.dag_id === 'etl_daily');
    expect(d).toMatchObject({ dag_id: 'etl_daily', is_paused: false, timetable_summary: '0 2 * * *', max_active_runs: 1, fileloc: expect.any(String) });
    expect(d.tags).toEqual([]);
    expect((await h.call('GET', '/api/v2/dags?dag_id_pattern=etl')).json.dags.map((x: any) => x.dag_id)).toEqual(['etl_daily']);
    expect((await h.call('GET', '/api/v2/dags?limit=1&offset=1')).json.dags).toHaveLength(1);
  });

  it('pauses and unpauses with PATCH is_paused', async () => {
    const p = await h.call('PATCH', '/api/v2/dags/branching', { is_paused: true });
    expect(p.status).toBe(200);
    expect(p.json.is_paused).toBe(true);
    expect((await h.call('GET', '/api/v2/dags/branching')).json.is_paused).toBe(true);
    expect((await h.call('PATCH', '/api/v2/dags/branching?update_mask=is_paused', { is_paused: false })).json.is_paused).toBe(false);
  });

  it('answers bad input with a 4xx naming the field', async () => {
    const cases: [string, string, unknown, number, RegExp][] = [
      ['GET', '/api/v2/dags/nope', undefined, 404, /^dag_id: /],
      ['PATCH', '/api/v2/dags/etl_daily', { is_paused: 'yes' }, 422, /^is_paused: /],
      ['PATCH', '/api/v2/dags/etl_daily', { owner: 'x' }, 422, /^owner: unknown field/],
      ['PATCH', '/api/v2/dags/etl_daily?update_mask=owners', { is_paused: true }, 400, /^update_mask: /],
      ['GET', '/api/v2/dags?limit=-1', undefined, 422, /^limit: /],
      ['GET', '/api/v2/dags?paused=maybe', undefined, 422, /^paused: /],
      ['POST', RUNS, { conf: [1, 2] }, 422, /^conf: must be a JSON object/],
      ['POST', RUNS, { conf: 'x' }, 422, /^conf: /],
      ['POST', RUNS, { logical_date: 'yesterday' }, 422, /^logical_date: /],
      ['POST', RUNS, '{"conf": {', 422, /^body: malformed JSON/],
      ['POST', RUNS, { dag_run_id: 'a/b' }, 400, /^dag_run_id: run id "a\/b" is not valid/],
      ['POST', '/api/v2/dags/nope/dagRuns', {}, 404, /^dag_id: /],
      ['GET', `${RUNS}?state=done`, undefined, 422, /^state: /],
      ['GET', `${RUNS}/nope`, undefined, 404, /^dag_run_id: /],
      ['GET', `${RUNS}/nope/taskInstances`, undefined, 404, /^dag_run_id: /],
      ['DELETE', '/api/v2/dags/etl_daily', undefined, 405, /DELETE is not allowed/],
      ['GET', '/api/v2/nothing-here', undefined, 404, /^path: /],
      ['POST', '/api/v2/dags/etl_daily/clearTaskInstances', { task_ids: ['nope'] }, 404, /^task_ids\[0\]: /],
      ['POST', '/api/v2/dags/etl_daily/clearTaskInstances', { task_ids: 'extract' }, 422, /^task_ids: /],
      ['POST', '/api/v2/dags/etl_daily/clearTaskInstances', { dry_run: 'no' }, 422, /^dry_run: /],
      ['POST', '/ui/signals', { payload: 1 }, 422, /^key: /],
    ];
    for (const [method, path, body, status, detail] of cases) {
      const r = await h.call(method, path, body);
      expect({ method, path, status: r.status }).toEqual({ method, path, status });
      expect(errorText(r)).toMatch(detail);
      expect(r.headers.get('content-type')).toBe('application/json');
    }
    // FastAPI's answer to a body it cannot decode: a json_invalid error at the position it stopped.
    expect((await h.call('POST', RUNS, '{"conf": {')).json.detail).toEqual([expect.objectContaining({ type: 'json_invalid', loc: ['body', expect.any(Number)] })]);
  });
});

describe('runs and task instances', () => {
  it('returns runs with Airflow field names, newest first when asked', async () => {
    const one = await h.call('GET', `${RUNS}/${encodeURIComponent(runId)}`);
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({
      dag_run_id: runId, dag_id: 'etl_daily', state: 'success', run_type: 'manual', conf: { full: true },
      logical_date: '2026-01-01T00:00:00.000Z', start_date: expect.any(String), end_date: expect.any(String), duration: expect.any(Number),
    });
    const list = await h.call('GET', `${RUNS}?order_by=-logical_date`);
    expect(list.json.total_entries).toBe(1);
    expect(list.json.dag_runs[0].dag_run_id).toBe(runId);
    expect((await h.call('GET', `${RUNS}?state=failed`)).json.total_entries).toBe(0);
  });

  it('refuses a duplicate run id with 409', async () => {
    const r = await h.call('POST', RUNS, { dag_run_id: runId });
    expect(r.status).toBe(409);
    expect(r.json.detail).toMatch(/^dag_run_id: .*exists already/);
  });

  it('lists task instances with map_index, tries and states', async () => {
    const r = await h.call('GET', `${RUNS}/${encodeURIComponent(runId)}/taskInstances`);
    expect(r.status).toBe(200);
    const byId = Object.fromEntries(r.json.task_instances.map((t: any) => [t.task_id, t]));
    expect(r.json.total_entries).toBe(7);
    expect(byId.extract).toMatchObject({ state: 'success', try_number: 2, max_tries: 2, map_index: -1, dag_run_id: runId, operator: 'PythonOperator' });
    expect(byId.full.state).toBe('success');
    expect(byId.delta.state).toBe('skipped');
  });

  it('serves each try log, as JSON or NDJSON', async () => {
    const base = `${RUNS}/${encodeURIComponent(runId)}/taskInstances/extract/logs`;
    const first = await h.call('GET', `${base}/1`);
    expect(first.status).toBe(200);
    // A root's first try is created already running by the worker that takes its message (docs/adr/0020).
    expect(first.json.content.map((l: any) => l.event).join('\n')).toMatch(/^state running\n[\s\S]*task up for retry/);
    expect(JSON.stringify(first.json.content)).toMatch(/source not ready/);
    const second = await h.call('GET', `${base}/2`);
    expect(second.json.content.map((l: any) => l.event)).toContain('state running -> success');
    expect(JSON.stringify(second.json.content)).not.toMatch(/source not ready/);
    const lines = await h.call('GET', `${base}/2`, undefined, { accept: 'application/x-ndjson' });
    expect(lines.headers.get('content-type')).toBe('application/x-ndjson');
    expect(lines.text.trimEnd().split('\n').map((l) => JSON.parse(l).event)).toEqual(second.json.content.map((l: any) => l.event));
    expect((await h.call('GET', `${base}/3`)).status).toBe(404);
    expect(errorText(await h.call('GET', `${base}/x`))).toMatch(/^try_number: /);
    const audit = await h.call('GET', `${RUNS}/${encodeURIComponent(runId)}/taskInstances/audit/logs/1`);
    expect(audit.json.content.map((l: any) => l.event)).toContain('for 2026-01-01 in eu');
  });

  it('serves XCom entries, rendered fields and tries', async () => {
    const ti = `${RUNS}/${encodeURIComponent(runId)}/taskInstances/transform`;
    const x = await h.call('GET', `${ti}/xcomEntries`);
    expect(x.json).toMatchObject({ total_entries: 1, xcom_entries: [{ key: 'return_value', task_id: 'transform', map_index: -1, value: 84 }] });
    expect((await h.call('GET', `${ti}/xcomEntries/return_value`)).json.value).toBe(84);
    expect((await h.call('GET', `${ti}/xcomEntries/other`)).status).toBe(404);
    const one = await h.call('GET', ti);
    expect(one.json).toMatchObject({ task_id: 'transform', state: 'success', rendered_fields: {} });
    const tries = await h.call('GET', `${RUNS}/${encodeURIComponent(runId)}/taskInstances/extract/tries`);
    expect(tries.json.task_instances.map((t: any) => [t.try_number, t.state])).toEqual([[1, 'up_for_retry'], [2, 'success']]);
    expect((await h.call('GET', `${RUNS}/${encodeURIComponent(runId)}/taskInstances/nope`)).json.detail).toMatch(/^task_id: /);
  });

  it('serves the grid in one response: runs × tasks as state numbers', async () => {
    const g = await h.call('GET', '/ui/grid/etl_daily?limit=10');
    expect(g.status).toBe(200);
    expect(g.json.dag_runs.map((r: any) => r.dag_run_id)).toEqual([runId]);
    expect(g.json.rows).toHaveLength(7);
    const extract = g.json.rows.find((r: any) => r.task_id === 'extract');
    expect(g.json.state_names[extract.states[0]]).toBe('success');
    expect(extract).toMatchObject({ tries: [2], mapped: false, groups: [] });
    const s = await h.call('GET', '/ui/structure/etl_daily');
    expect(s.json.edges).toContainEqual({ source_id: 'extract', target_id: 'transform' });
  });
});

describe('clear', () => {
  it('dry-runs by default, then clears a task and its downstream so they run again', async () => {
    const path = '/api/v2/dags/etl_daily/clearTaskInstances';
    const dry = await h.call('POST', path, { dag_run_id: runId, task_ids: ['load'], include_downstream: true, only_failed: false });
    expect(dry.json.task_instances.map((t: any) => t.task_id).sort()).toEqual(['delta', 'full', 'load', 'pick']);
    expect((await h.rt.ports.store.getTask({ dagId: 'etl_daily', runId, taskId: 'load' }))!.state).toBe('success');
    const real = await h.call('POST', path, { dry_run: false, dag_run_id: runId, task_ids: ['load'], include_downstream: true, only_failed: false });
    expect(real.json.total_entries).toBe(4);
    expect((await h.rt.ports.store.getTask({ dagId: 'etl_daily', runId, taskId: 'extract' }))!.state).toBe('success');
    expect((await h.rt.ports.store.getRun('etl_daily', runId))!.state).not.toBe('success');
    expect(await h.rt.runToCompletion('etl_daily', runId)).toBe('done');
    const load = (await h.call('GET', `${RUNS}/${encodeURIComponent(runId)}/taskInstances/load`)).json;
    expect(load).toMatchObject({ state: 'success', try_number: 2, start_date: expect.any(String) });
  });

  it('sends a signal', async () => {
    const r = await h.call('POST', '/ui/signals', { key: 'approve-x', payload: { by: 'test' } });
    expect(r.json).toEqual({ key: 'approve-x', resumed: 0 });
  });
});
