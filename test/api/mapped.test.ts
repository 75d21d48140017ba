/**
 * Mapped task instances over the REST API, as Airflow 3 lists them: each instance with its
 * `map_index`, `listMapped`, one instance by path, its XCom and logs by `map_index`.
 */
import { describe, expect, it } from 'vitest';
import { dag } from '../../lib/sdk/index.js';
import { apiOverRuntime } from './support.js';

const mapped = dag('mapped_api', { schedule: null }, ({ task }) => {
  const list = task('list_files', async () => ['a.csv', 'bb.csv', 'ccc.csv']);
  const size = task('size', async (ctx, file: string) => {
    ctx.log.info(`sizing ${file}`);
    return file.length;
  }).expand(list);
  size.before(task('total', async (ctx) => (await ctx.xcom.pull<number[]>('size')).reduce((s, n) => s + n, 0)));
});

describe('mapped task instances in the API', () => {
  it('lists instances with their map_index, serves one by path, its XCom and its own log lines', async () => {
    const h = await apiOverRuntime([mapped]);
    try {
      const run = await h.rt.trigger('mapped_api');
      expect(await h.rt.runToCompletion('mapped_api', run.runId)).toBe('done');
      const base = `/api/v2/dags/mapped_api/dagRuns/${encodeURIComponent(run.runId)}/taskInstances`;
      const list = (await h.call('GET', base)).json.task_instances;
      expect(list.map((t: any) => [t.task_id, t.map_index, t.state])).toEqual([
        ['list_files', -1, 'success'], ['size', 0, 'success'], ['size', 1, 'success'], ['size', 2, 'success'], ['total', -1, 'success'],
      ]);
      const listed = (await h.call('GET', `${base}/size/listMapped`)).json;
      expect(listed.total_entries).toBe(3);
      // The id is a name-based UUID (v5) of the instance's key: distinct per instance, the same on every read.
      expect(listed.task_instances[2]).toMatchObject({ task_id: 'size', map_index: 2, rendered_map_index: '2', id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/) });
      expect(new Set(listed.task_instances.map((t: any) => t.id)).size).toBe(3);
      expect((await h.call('GET', `${base}/size/2`)).json.id).toBe(listed.task_instances[2].id);
      expect((await h.call('GET', `${base}/size/1`)).json).toMatchObject({ task_id: 'size', map_index: 1, state: 'success', try_number: 1 });
      const missing = await h.call('GET', `${base}/size/7`);
      expect(missing.status).toBe(404);
      expect(missing.json.detail ?? missing.text).toMatch(/no mapped instance 7/);
      const xcom = (await h.call('GET', `${base}/size/xcomEntries/return_value?map_index=2`)).json;
      expect(xcom).toMatchObject({ map_index: 2, value: 7 });
      const logs = (await h.call('GET', `${base}/size/logs/1?map_index=1`)).json.content;
      expect(logs.map((e: any) => e.event)).toContain('sizing bb.csv');
      expect(logs.map((e: any) => e.event)).not.toContain('sizing a.csv');
      expect((await h.call('GET', `${base}/total/xcomEntries/return_value`)).json.value).toBe(18);
      const rows = (await h.call('GET', '/ui/grid/mapped_api')).json.rows;
      expect(rows.map((r: any) => r.task_id)).toEqual(['list_files', 'size', 'total']);
      expect(rows[1]).toMatchObject({ mapped: true, counts: [{ success: 3 }] });
      expect(rows[0].mapped).toBe(false);
      expect(rows[0].counts).toBeUndefined();
      const marked = await h.call('PATCH', `${base}/size?map_index=1`, { new_state: 'failed' });
      expect(marked.status).toBe(409);
      expect(marked.json.detail).toBe('map_index: mapped instance "size#1" has finished (success); mark or clear its task instead');
      expect((await h.call('GET', `${base}/size/1`)).json.state).toBe('success');
    } finally {
      await h.api.close();
    }
  });
});
