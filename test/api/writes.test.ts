/**
 * The API's writes backed by the store (issue 24): XCom entries written and read back,
 * finished runs and task instances deleted with what they own, the run `/wait` stream on
 * the runtime's virtual clock, and the audit log (eventLogs) of the writes Airflow records.
 * In the vitest projects' engine suites: it runs on the memory store and DynamoDB Local.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import etl from '../../examples/dags/etl_daily.js';
import { apiOverRuntime, errorText } from './support.js';

let h: Awaited<ReturnType<typeof apiOverRuntime>>;
beforeAll(async () => { h = await apiOverRuntime([etl]); });
afterAll(async () => { await h.api.close(); });

const RUNS = '/api/v2/dags/etl_daily/dagRuns';
const E = encodeURIComponent;

async function finishedRun(conf: Record<string, unknown> = {}): Promise<string> {
  const r = await h.rt.trigger('etl_daily', { conf });
  await h.rt.runToCompletion('etl_daily', r.runId);
  return r.runId;
}

describe('XCom writes', () => {
  it('creates an entry a task and the API read back, refuses a second create, updates it, 404s an update of nothing, deletes one entry', async () => {
    const run = await finishedRun();
    const at = `${RUNS}/${E(run)}/taskInstances/transform/xcomEntries`;
    const made = await h.call('POST', at, { key: 'checked_by', value: { who: 'ops', rows: [1, 2] } });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ key: 'checked_by', task_id: 'transform', run_id: run, map_index: -1, value: { who: 'ops', rows: [1, 2] } });
    // In the store, where a task's ctx.xcom.pull reads it.
    expect(await h.rt.ports.store.getXcom({ dagId: 'etl_daily', runId: run, taskId: 'transform', key: 'checked_by' })).toEqual({ who: 'ops', rows: [1, 2] });
    const again = await h.call('POST', at, { key: 'checked_by', value: 1 });
    expect(again.status).toBe(400);
    expect(errorText(again)).toMatch(/already exists/);
    const updated = await h.call('PATCH', `${at}/return_value`, { value: 7 });
    expect(updated.json).toMatchObject({ key: 'return_value', value: 7 });
    expect((await h.call('GET', `${at}/return_value`)).json.value).toBe(7);
    expect((await h.call('PATCH', `${at}/never`, { value: 1 })).status).toBe(404);
    expect((await h.call('POST', at, { key: 'x' })).status).toBe(422);
    expect((await h.call('DELETE', `${at}/checked_by`)).status).toBe(204);
    expect((await h.call('GET', `${at}/checked_by`)).status).toBe(404);
    expect((await h.call('GET', `${at}/return_value`)).json.value).toBe(7);
    expect((await h.call('DELETE', `${at}/checked_by`)).status).toBe(404);
  });
});

describe('deletes', () => {
  it('deletes a finished run with its task instances and XComs; an unfinished run is refused and stays', async () => {
    const run = await finishedRun();
    expect((await h.call('DELETE', `${RUNS}/${E(run)}`)).status).toBe(204);
    expect((await h.call('GET', `${RUNS}/${E(run)}`)).status).toBe(404);
    expect(await h.rt.ports.store.listTasks('etl_daily', run)).toEqual([]);
    expect(await h.rt.ports.store.getXcom({ dagId: 'etl_daily', runId: run, taskId: 'transform', key: 'return_value' })).toBeUndefined();
    expect((await h.call('DELETE', `${RUNS}/${E(run)}`)).status).toBe(404);

    const open = await h.rt.trigger('etl_daily', { logicalDate: Date.parse('2025-03-01T00:00:00Z') });
    const refused = await h.call('DELETE', `${RUNS}/${E(open.runId)}`);
    expect(refused.status).toBe(400);
    expect(errorText(refused)).toMatch(/only a finished run can be deleted/);
    expect((await h.call('GET', `${RUNS}/${E(open.runId)}`)).status).toBe(200);
    await h.rt.runToCompletion('etl_daily', open.runId);
  });

  it('deletes a finished task instance and its XCom; the run and the other instances stay', async () => {
    const run = await finishedRun();
    const ti = `${RUNS}/${E(run)}/taskInstances/transform`;
    const gone = await h.call('DELETE', ti);
    expect(gone.status).toBe(200);
    expect(gone.json).toBeNull();
    expect(await h.rt.ports.store.getTask({ dagId: 'etl_daily', runId: run, taskId: 'transform' })).toBeUndefined();
    expect((await h.call('GET', `${ti}/xcomEntries/return_value`)).status).toBe(404);
    expect((await h.call('GET', `${RUNS}/${E(run)}/taskInstances/extract`)).json.state).toBe('success');
    expect((await h.call('DELETE', ti)).status).toBe(404);
  });
});

describe('bulk task instances', () => {
  it('marks and notes in one action, deletes finished instances in another, and reports a refused mark per action', async () => {
    const run = await finishedRun();
    const at = `${RUNS}/${E(run)}/taskInstances`;
    const r = await h.call('PATCH', at, { actions: [
      { action: 'update', entities: [{ task_id: 'delta', new_state: 'success', note: 'by hand' }] },
      { action: 'delete', entities: ['audit'] },
    ] });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ update: { success: [`etl_daily/${run}/delta`], errors: [] }, delete: { success: ['audit'], errors: [] } });
    expect(await h.rt.ports.store.getTask({ dagId: 'etl_daily', runId: run, taskId: 'delta' })).toMatchObject({ state: 'success', note: 'by hand' });
    expect(await h.rt.ports.store.getTask({ dagId: 'etl_daily', runId: run, taskId: 'audit' })).toBeUndefined();
    const missing = await h.call('PATCH', at, { actions: [{ action: 'delete', entities: ['audit'] }] });
    expect(missing.json.delete.errors).toEqual([{ error: expect.stringContaining('audit'), status_code: 404 }]);
    expect((await h.call('PATCH', at, { actions: [{ action: 'create', entities: [{ task_id: 'x' }] }] })).status).toBe(422);
  });
});

describe('the run /wait stream', () => {
  it('streams the state each interval on the runtime clock until the run ends, then the results asked for', async () => {
    const r = await h.rt.trigger('etl_daily', { conf: { full: true } });
    const res = await fetch(`${h.api.url}${RUNS}/${E(r.runId)}/wait?interval=30&result=transform&result=full`, { headers: { authorization: `Bearer ${(await import('./support.js')).TOKEN}` } });
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    await h.rt.runToCompletion('etl_daily', r.runId);
    // The waiter's last sleep ends on the clock too: no real time passes.
    h.clock.advanceBy(30_000);
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(1);
    expect(lines[0].state).toMatch(/queued|running/);
    expect(lines.slice(0, -1).every((l) => l.state === 'queued' || l.state === 'running')).toBe(true);
    expect(lines.at(-1)).toEqual({ state: 'success', results: { transform: 84, full: 1 } });
  });

  it('answers one line for a run that has ended, and 422 without an interval', async () => {
    const run = await finishedRun();
    const once = await h.call('GET', `${RUNS}/${E(run)}/wait?interval=5`);
    expect(once.text).toBe('{"state":"success"}\n');
    expect((await h.call('GET', `${RUNS}/${E(run)}/wait`)).status).toBe(422);
  });
});

describe('event logs', () => {
  it('records the writes Airflow records, with their DAG, run and task, secrets masked; a dry-run clear and a read are not recorded', async () => {
    const before = (await h.call('GET', '/api/v2/eventLogs?limit=1000')).json.total_entries as number;
    await h.call('PATCH', '/api/v2/dags/etl_daily', { is_paused: false });
    const trig = await h.call('POST', `${RUNS}`, { logical_date: null, conf: {} });
    const runId = trig.json.dag_run_id as string;
    await h.rt.runToCompletion('etl_daily', runId);
    await h.call('POST', `${RUNS}/${E(runId)}/clear`, {});
    await h.call('PATCH', `${RUNS}/${E(runId)}/taskInstances/load`, { new_state: 'failed' });
    await h.call('POST', '/api/v2/dags/etl_daily/clearTaskInstances', { dry_run: false, dag_run_id: runId, task_ids: ['load'] });
    await h.rt.runToCompletion('etl_daily', runId);
    await h.call('POST', '/api/v2/variables', { key: 'db_password', value: 'hunter2' });
    await h.call('DELETE', `${RUNS}/${E(runId)}`);
    await h.call('GET', '/api/v2/dags');

    const listed = await h.call('GET', `/api/v2/eventLogs?offset=${before}&limit=100`);
    expect(listed.json.event_logs.map((e: { event: string }) => e.event)).toEqual([
      'patch_dag', 'trigger_dag_run', 'patch_task_instance', 'post_clear_task_instances', 'post_variable', 'delete_dag_run',
    ]);
    const [pause, trigger, mark] = listed.json.event_logs;
    expect(pause).toMatchObject({ dag_id: 'etl_daily', run_id: null, owner: 'airless' });
    expect(JSON.parse(pause.extra)).toEqual({ is_paused: false, method: 'PATCH' });
    expect(trigger).toMatchObject({ dag_id: 'etl_daily', event: 'trigger_dag_run' });
    expect(mark).toMatchObject({ dag_id: 'etl_daily', run_id: runId, task_id: 'load' });
    const variable = listed.json.event_logs[4];
    expect(JSON.parse(variable.extra)).toMatchObject({ key: 'db_password', value: '***' });

    const one = await h.call('GET', `/api/v2/eventLogs/${mark.event_log_id}`);
    expect(one.json).toEqual(mark);
    const filtered = await h.call('GET', `/api/v2/eventLogs?run_id=${E(runId)}&excluded_events=patch_task_instance&order_by=-event_log_id`);
    expect(filtered.json.event_logs.map((e: { event: string }) => e.event)).toEqual(['delete_dag_run', 'post_clear_task_instances']);
    expect((await h.call('GET', '/api/v2/eventLogs/999999')).status).toBe(404);
  });
});
