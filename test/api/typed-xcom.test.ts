/**
 * Typed TaskFlow's multiple_outputs over the REST API (issue 23 §1): a property other tasks
 * read (`e.rows`) is an XCom key of its own, listed beside return_value and served by key.
 */
import { describe, expect, it } from 'vitest';
import { dag } from '../../lib/sdk/index.js';
import { apiOverRuntime } from './support.js';

const typed = dag('typed_api', { schedule: null }, ({ task }) => {
  const extract = task('extract', async () => ({ rows: [1, 2], source: 'db', unused: true }));
  const report = task('report', async (_ctx, i: { rows: number[]; source: string }) => `${i.source}:${i.rows.length}`);
  const e = extract();
  report({ rows: e.rows, source: e.source });
});

describe('XCom keys of a typed output in the API', () => {
  it('lists return_value and each key tasks read, and serves one key', async () => {
    const h = await apiOverRuntime([typed]);
    try {
      const run = await h.rt.trigger('typed_api');
      expect(await h.rt.runToCompletion('typed_api', run.runId)).toBe('done');
      const ti = `/api/v2/dags/typed_api/dagRuns/${encodeURIComponent(run.runId)}/taskInstances/extract`;
      const all = (await h.call('GET', `${ti}/xcomEntries`)).json;
      expect(all.total_entries).toBe(3);
      expect(all.xcom_entries.map((x: { key: string; value: unknown }) => [x.key, x.value])).toEqual([
        ['return_value', { rows: [1, 2], source: 'db', unused: true }], ['rows', [1, 2]], ['source', 'db'],
      ]);
      expect((await h.call('GET', `${ti}/xcomEntries/rows`)).json).toMatchObject({ key: 'rows', task_id: 'extract', value: [1, 2] });
      expect((await h.call('GET', `${ti}/xcomEntries/unused`)).status).toBe(404);
    } finally {
      await h.api.close();
    }
  });
});
