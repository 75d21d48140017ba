/**
 * The API's side of issue 23 §2: a run whose conf breaks a param's schema is refused with
 * 400 naming the param (Airflow answers ParamValidationError with 400), nothing stored;
 * the DAG's params carry their schemas, and display names and docs are served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dag, param } from '../../lib/sdk/index.js';
import { apiOverRuntime } from './support.js';

const report = dag('report', {
  tags: ['daily'],
  displayName: 'Daily report 📊',
  doc: '# Report\nCounts **rows**.',
  params: {
    count: param(5, { type: 'integer', minimum: 1, maximum: 100, description: 'Rows to read' }),
    ticket: param<string>(undefined as unknown as string, { type: 'string', pattern: '^OPS-[0-9]+$' }),
  },
}, ({ task }) => {
  task('count_rows', (ctx) => ctx.params.count, { displayName: 'Count the rows', doc: 'Reads the table' });
});

/** A scheduled DAG with a display name, for the backfill's `dag_display_name`. */
const nightly = dag('nightly', { schedule: '@daily', displayName: 'Nightly load' }, ({ task }) => { task('load', () => 1); });

let h: Awaited<ReturnType<typeof apiOverRuntime>>;
beforeAll(async () => { h = await apiOverRuntime([report, nightly]); });
afterAll(async () => { await h.api.close(); });

describe('POST /api/v2/dags/{dag_id}/dagRuns with params that have schemas', () => {
  it('refuses a conf that breaks a schema with 400 naming the param, and stores nothing', async () => {
    for (const [conf, name] of [[{ count: 3 }, 'ticket'], [{ ticket: 'OPS-1', count: 0 }, 'count'], [{ ticket: 'nope' }, 'ticket']] as const) {
      const r = await h.call('POST', '/api/v2/dags/report/dagRuns', { conf });
      expect(r.status).toBe(400);
      expect(r.text).toContain(`Invalid input for param \\"${name}\\"`);
    }
    expect((await h.call('GET', '/api/v2/dags/report/dagRuns')).json.total_entries).toBe(0);
  });

  it('accepts a conf that fits', async () => {
    const r = await h.call('POST', '/api/v2/dags/report/dagRuns', { conf: { ticket: 'OPS-9', count: 7 } });
    expect(r.status).toBe(200);
    expect(r.json.conf).toEqual({ ticket: 'OPS-9', count: 7 });
  });
});

describe('GET /api/v2/dags/{dag_id}/details', () => {
  it('serves the display name, the doc and each param with its schema', async () => {
    const d = (await h.call('GET', '/api/v2/dags/report/details')).json;
    expect(d.dag_display_name).toBe('Daily report 📊');
    expect(d.doc_md).toBe('# Report\nCounts **rows**.');
    expect(d.params.count).toEqual({ value: 5, description: 'Rows to read', schema: { type: 'integer', minimum: 1, maximum: 100, description: 'Rows to read' } });
    expect(d.params.ticket).toEqual({ value: null, description: null, schema: { type: 'string', pattern: '^OPS-[0-9]+$' } });
  });
});

describe('edge labels', () => {
  it('are in the manifest and on the edges of the graph structure', async () => {
    const labelled = dag('labelled', {}, ({ task, branch }) => {
      const pick = branch('pick', () => 'a');
      pick.before(task('a', () => 1), { label: 'yes' });
      task('b', () => 2).after(pick, { label: 'no' });
      task('c', () => 3).after(pick);
    });
    expect(labelled.spec.edgeLabels).toEqual({ pick: { a: 'yes', b: 'no' } });
    const g = await apiOverRuntime([labelled]);
    try {
      const s = (await g.call('GET', '/ui/structure/labelled')).json;
      expect(s.edges).toEqual([
        { source_id: 'pick', target_id: 'a', label: 'yes' },
        { source_id: 'pick', target_id: 'b', label: 'no' },
        { source_id: 'pick', target_id: 'c' },
      ]);
    } finally {
      await g.api.close();
    }
  });
});

describe('task display names', () => {
  it('label the task in the graph structure and in task instances', async () => {
    const s = (await h.call('GET', '/ui/structure/report')).json;
    expect(s.nodes.find((n: { id: string }) => n.id === 'count_rows').label).toBe('Count the rows');
    const runId = (await h.call('POST', '/api/v2/dags/report/dagRuns', { dag_run_id: 'display_run', conf: { ticket: 'OPS-3' } })).json.dag_run_id;
    const r = await h.call('GET', `/api/v2/dags/report/dagRuns/${runId}/taskInstances`);
    expect(r.status).toBe(200);
    const tis = r.json;
    expect(tis.task_instances.find((t: { task_id: string }) => t.task_id === 'count_rows').task_display_name).toBe('Count the rows');
  });
});

describe('display names everywhere the API names a DAG or a task', () => {
  it('runs, run listings, task instances, tries, XCom, tasks, tags, stats and backfills send the display names, not the ids', async () => {
    const runId = (await h.call('POST', '/api/v2/dags/report/dagRuns', { dag_run_id: 'named_run', conf: { ticket: 'OPS-4' } })).json.dag_run_id;
    await h.rt.runToCompletion('report', runId);
    const RUN = `/api/v2/dags/report/dagRuns/${runId}`;
    const dagNamed = { dag_display_name: 'Daily report 📊' };
    expect((await h.call('GET', RUN)).json).toMatchObject(dagNamed);
    for (const path of ['/api/v2/dags/report/dagRuns', '/api/v2/dags/~/dagRuns']) {
      expect((await h.call('GET', path)).json.dag_runs.map((r: { dag_display_name: string }) => r.dag_display_name)).toContain('Daily report 📊');
    }
    const taskNamed = { ...dagNamed, task_display_name: 'Count the rows' };
    expect((await h.call('GET', `${RUN}/taskInstances/count_rows`)).json).toMatchObject(taskNamed);
    expect((await h.call('GET', `${RUN}/taskInstances/count_rows/tries`)).json.task_instances[0]).toMatchObject(taskNamed);
    expect((await h.call('GET', '/api/v2/dags/~/dagRuns/~/taskInstances?dag_id_pattern=report')).json.task_instances[0]).toMatchObject(taskNamed);
    expect((await h.call('GET', `${RUN}/taskInstances/count_rows/xcomEntries`)).json.xcom_entries[0]).toMatchObject(taskNamed);
    expect((await h.call('GET', '/api/v2/dags/report/tasks/count_rows')).json.task_display_name).toBe('Count the rows');
    expect((await h.call('GET', '/api/v2/dags/report')).json.tags).toEqual([{ name: 'daily', dag_id: 'report', ...dagNamed }]);
    expect((await h.call('GET', '/api/v2/dagStats?dag_ids=report')).json.dags[0]).toMatchObject(dagNamed);
    const bf = await h.call('POST', '/api/v2/backfills', { dag_id: 'nightly', from_date: '2025-10-01T00:00:00Z', to_date: '2025-10-02T00:00:00Z' });
    expect(bf.status, bf.text).toBe(200);
    expect(bf.json.dag_display_name).toBe('Nightly load');
    expect((await h.call('GET', '/api/v2/backfills?dag_id=nightly')).json.backfills[0].dag_display_name).toBe('Nightly load');
    expect((await h.call('GET', `/api/v2/backfills/${bf.json.id}`)).json.dag_display_name).toBe('Nightly load');
  });
});
