/**
 * Mark success/failed/skipped through Airflow's PATCH of a task instance: a finished
 * task's downstream is decided again on the new outcome; an unfinished one ends now.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import etl from '../../examples/dags/etl_daily.js';
import fanOutIn from '../../examples/dags/fan_out_in.js';
import { defineDag } from './mark-dags.js';
import { apiOverRuntime, errorText } from './support.js';

let h: Awaited<ReturnType<typeof apiOverRuntime>>;
beforeAll(async () => { h = await apiOverRuntime([fanOutIn, defineDag(), etl]); });
afterAll(async () => { await h.api.close(); });

const ti = (dag: string, run: string, task: string) => `/api/v2/dags/${dag}/dagRuns/${encodeURIComponent(run)}/taskInstances/${task}`;
const states = async (dag: string, run: string) => Object.fromEntries((await h.rt.ports.store.listTasks(dag, run)).map((t) => [t.taskId, t.state]));

describe('mark a task instance', () => {
  it('marks a failed task success: its downstream runs again on the new outcome', async () => {
    const run = await h.rt.trigger('fan_out_in', { logicalDate: Date.parse('2026-01-01T00:00:00Z') });
    await h.rt.runToCompletion('fan_out_in', run.runId);
    expect(await states('fan_out_in', run.runId)).toMatchObject({ shard_c: 'failed', publish: 'upstream_failed', alert: 'success' });
    const r = await h.call('PATCH', ti('fan_out_in', run.runId, 'shard_c'), { new_state: 'success' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ total_entries: 1, task_instances: [{ task_id: 'shard_c', state: 'success' }] });
    expect(await h.rt.runToCompletion('fan_out_in', run.runId)).toBe('done');
    expect(await states('fan_out_in', run.runId)).toMatchObject({ shard_c: 'success', publish: 'success', alert: 'skipped', report: 'success' });
    expect((await h.rt.ports.store.getRun('fan_out_in', run.runId))!.state).toBe('success');
    const log = await h.call('GET', `${ti('fan_out_in', run.runId, 'shard_c')}/logs/1`);
    expect(log.json.content.map((l: { event: string }) => l.event)).toContain('marked success');
  });

  it('marks a succeeded task failed: the cleared downstream is upstream_failed and the run fails', async () => {
    const run = await h.rt.trigger('etl_daily', { logicalDate: Date.parse('2026-01-04T00:00:00Z') });
    await h.rt.runToCompletion('etl_daily', run.runId);
    await h.call('PATCH', ti('etl_daily', run.runId, 'audit'), { new_state: 'failed' });
    await h.rt.runToCompletion('etl_daily', run.runId);
    expect(await states('etl_daily', run.runId)).toMatchObject({ transform: 'success', audit: 'failed', load: 'upstream_failed', pick: 'upstream_failed', delta: 'upstream_failed' });
    expect((await h.rt.ports.store.getRun('etl_daily', run.runId))!.state).toBe('failed');
  });

  it('marks a task that waits for a signal failed: it ends now and its downstream follows', async () => {
    const run = await h.rt.trigger('wait_then_report', { logicalDate: Date.parse('2026-01-02T00:00:00Z') });
    expect(await h.rt.runToCompletion('wait_then_report', run.runId, { maxVirtualMs: 60_000 })).toBe('stalled');
    expect((await states('wait_then_report', run.runId)).wait).toBe('deferred');
    const r = await h.call('PATCH', ti('wait_then_report', run.runId, 'wait'), { new_state: 'failed' });
    expect(r.json.task_instances[0]).toMatchObject({ state: 'failed', error: 'marked failed' });
    expect(await h.rt.runToCompletion('wait_then_report', run.runId)).toBe('done');
    expect(await states('wait_then_report', run.runId)).toMatchObject({ wait: 'failed', report: 'upstream_failed' });
    expect(await h.rt.ports.store.getTrigger(`wait_then_report/${run.runId}/wait`)).toBeUndefined();
  });

  it('answers bad input with a 4xx naming the field', async () => {
    const [run] = await h.rt.ports.store.listRuns('fan_out_in', { limit: 1 });
    const path = ti('fan_out_in', run.runId, 'merge');
    for (const [body, status, detail] of [
      [{ new_state: 'running' }, 422, /^new_state: /],
      [{}, 422, /^new_state: /],
      [{ new_state: 'success', include_downstream: true }, 422, /^include_downstream: not supported/],
      [{ new_state: 'success', color: 'red' }, 422, /^color: unknown field/],
    ] as const) {
      const r = await h.call('PATCH', path, body);
      expect(r.status).toBe(status);
      expect(errorText(r)).toMatch(detail);
    }
    expect((await h.call('PATCH', ti('fan_out_in', run.runId, 'nope'), { new_state: 'success' })).json.detail).toMatch(/^task_id: /);
    expect((await h.call('PATCH', ti('fan_out_in', 'nope', 'merge'), { new_state: 'success' })).status).toBe(404);
  });
});
