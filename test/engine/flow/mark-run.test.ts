/**
 * Marking a whole run (engine flow/mark-run.ts) through Airflow's PATCH of a DAG run, its
 * note, and the clear of a run, on both stores (this folder runs in both vitest projects).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fanOutIn from '../../../examples/dags/fan_out_in.js';
import { defineDag } from '../../api/mark-dags.js';
import { apiOverRuntime, errorText } from '../../api/support.js';

let h: Awaited<ReturnType<typeof apiOverRuntime>>;
beforeAll(async () => { h = await apiOverRuntime([fanOutIn, defineDag()]); });
afterAll(async () => { await h.api.close(); });

const runPath = (dag: string, run: string) => `/api/v2/dags/${dag}/dagRuns/${encodeURIComponent(run)}`;
const states = async (dag: string, run: string) => Object.fromEntries((await h.rt.ports.store.listTasks(dag, run)).map((t) => [t.taskId, t.state]));

describe('PATCH a DAG run', () => {
  it('marks a waiting run failed: the deferred try fails, the task not reached is skipped, and nothing runs after', async () => {
    const run = await h.rt.trigger('wait_then_report');
    expect(await h.rt.runToCompletion('wait_then_report', run.runId, { maxVirtualMs: 60_000 })).toBe('stalled');
    expect(await states('wait_then_report', run.runId)).toEqual({ wait: 'deferred' });
    const r = await h.call('PATCH', runPath('wait_then_report', run.runId), { state: 'failed' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ dag_run_id: run.runId, state: 'failed', end_date: expect.any(String) });
    expect(await states('wait_then_report', run.runId)).toEqual({ wait: 'failed', report: 'skipped' });
    expect(await h.rt.ports.store.getTrigger(`wait_then_report/${run.runId}/wait`)).toBeUndefined();
    await h.rt.runToCompletion('wait_then_report', run.runId);
    expect((await h.rt.ports.store.getRun('wait_then_report', run.runId))!.state).toBe('failed');
  });

  it('marks a waiting run success: every task instance becomes success, those not reached included, and keeps a note', async () => {
    const run = await h.rt.trigger('wait_then_report', { logicalDate: Date.parse('2026-01-02T00:00:00Z') });
    expect(await h.rt.runToCompletion('wait_then_report', run.runId, { maxVirtualMs: 60_000 })).toBe('stalled');
    const r = await h.call('PATCH', runPath('wait_then_report', run.runId), { state: 'success', note: 'the signal came by mail' });
    expect(r.json).toMatchObject({ state: 'success', note: 'the signal came by mail' });
    expect(await states('wait_then_report', run.runId)).toEqual({ wait: 'success', report: 'success' });
    expect(await h.rt.runToCompletion('wait_then_report', run.runId)).toBe('done');
    expect((await h.rt.ports.store.getRun('wait_then_report', run.runId))!.state).toBe('success');
    // update_mask reads only the fields it names: the state in the body is ignored.
    const noted = await h.call('PATCH', `${runPath('wait_then_report', run.runId)}?update_mask=note`, { state: 'failed', note: null });
    expect(noted.json).toMatchObject({ state: 'success', note: null });
    expect((await h.call('GET', runPath('wait_then_report', run.runId))).json.note).toBeNull();
  });

  it('answers bad input in Airflow\'s shapes and changes nothing', async () => {
    const run = await h.rt.trigger('fan_out_in', { logicalDate: Date.parse('2026-01-03T00:00:00Z') });
    await h.rt.runToCompletion('fan_out_in', run.runId);
    for (const [path, body, status, detail] of [
      [runPath('fan_out_in', run.runId), { state: 'running' }, 422, /^state: must be one of queued, success, failed/],
      [runPath('fan_out_in', run.runId), { color: 'red' }, 422, /^color: unknown field/],
      [`${runPath('fan_out_in', run.runId)}?update_mask=conf`, {}, 400, /^update_mask: /],
      [runPath('fan_out_in', 'nope'), { state: 'success' }, 404, /^dag_run_id: /],
    ] as const) {
      const r = await h.call('PATCH', path, body);
      expect({ path, status: r.status }).toEqual({ path, status });
      expect(errorText(r)).toMatch(detail);
    }
    expect((await h.rt.ports.store.getRun('fan_out_in', run.runId))!.state).toBe('success');
  });
});

describe('clear a DAG run', () => {
  it('lists what it would clear by default, then clears the failed ones and the run runs them again', async () => {
    const run = await h.rt.trigger('fan_out_in', { logicalDate: Date.parse('2026-01-04T00:00:00Z') });
    await h.rt.runToCompletion('fan_out_in', run.runId);
    const before = await states('fan_out_in', run.runId);
    const dry = await h.call('POST', `${runPath('fan_out_in', run.runId)}/clear`, { only_failed: true });
    const failed = Object.keys(before).filter((k) => before[k] === 'failed' || before[k] === 'upstream_failed').sort();
    expect(dry.json.task_instances.map((t: { task_id: string }) => t.task_id).sort()).toEqual(failed);
    expect(await states('fan_out_in', run.runId)).toEqual(before);
    const done = await h.call('POST', `${runPath('fan_out_in', run.runId)}/clear`, { dry_run: false, only_failed: true });
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ dag_run_id: run.runId });
    expect(['queued', 'running']).toContain((await h.rt.ports.store.getRun('fan_out_in', run.runId))!.state);
    await h.rt.runToCompletion('fan_out_in', run.runId);
    const tries = (await h.rt.ports.store.listTasks('fan_out_in', run.runId)).filter((t) => failed.includes(t.taskId)).map((t) => t.tryNumber);
    expect(Math.max(...tries)).toBeGreaterThan(1);
  });
});
