/**
 * The DAG list's recent runs come from the spec's batch runs list (issue 24), in at most two
 * requests: a busy DAG does not crowd a quiet one out of its dots. Run in Node against the
 * real API over an embedded runtime, on the memory store and on DynamoDB Local; every answer
 * is checked against the spec (apiOverRuntime validates).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTables } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { LOCAL_AWS } from '../../lib/runtime/dynamodb-local.js';
import { dag } from '../../lib/sdk/index.js';
import { recentRuns, RUNS_LIST_PATH, type PostJson } from '../../lib/ui/recent-runs.js';
import { apiOverRuntime } from '../api/support.js';

const endpoint = inject('dynamodbEndpoint');
const client = new DynamoDBClient({ endpoint: endpoint || 'http://127.0.0.1:1', ...LOCAL_AWS });
afterAll(() => client.destroy());

const one = (id: string) => dag(id, { schedule: null }, ({ task }) => { task('t', () => 1); });
const DAY = 86_400_000;
const at = (d: number) => Date.parse('2026-01-01T00:00:00Z') + d * DAY;

const stores = [
  { kind: 'memory', store: async () => undefined },
  {
    kind: 'DynamoDB Local',
    store: async () => {
      const tablePrefix = `rr${process.pid}-`;
      await createTables(client, tablePrefix, {}, { ttl: false });
      return new DynamoStore({ client, tablePrefix });
    },
  },
];

describe.each(stores)('recent runs on the $kind store', ({ kind, store }) => {
  it.skipIf(kind !== 'memory' && !endpoint)('gives each DAG its newest runs in two requests of the spec, a busy DAG next to a quiet one', async () => {
    const s = await store();
    const h = await apiOverRuntime([one('busy'), one('quiet'), one('idle')], s ? { store: s } : {});
    try {
      // The quiet DAG's 3 runs are older than all 40 of the busy one's.
      for (let d = 0; d < 3; d++) await h.rt.trigger('quiet', { logicalDate: at(d) });
      for (let d = 10; d < 50; d++) await h.rt.trigger('busy', { logicalDate: at(d) });
      const sent: unknown[] = [];
      const post: PostJson = async (path, body) => {
        sent.push(body);
        const r = await h.call('POST', path, body);
        expect(r.status).toBe(200);
        return r.json;
      };
      const got = await recentRuns(post, ['busy', 'idle', 'quiet'], 12);
      expect(got.get('busy')!.map((r) => r.run_after)).toEqual(Array.from({ length: 12 }, (_, i) => new Date(at(49 - i)).toISOString()));
      expect(got.get('quiet')!.map((r) => r.run_after)).toEqual([2, 1, 0].map((d) => new Date(at(d)).toISOString()));
      expect(got.get('idle')).toEqual([]);
      // The first page (36 newest: all busy) was cut short, so one more for the DAGs still short.
      expect(sent).toEqual([
        { dag_ids: ['busy', 'idle', 'quiet'], order_by: '-run_after', page_limit: 36 },
        { dag_ids: ['idle', 'quiet'], order_by: '-run_after', run_after_lte: new Date(at(14)).toISOString(), page_limit: 24 },
      ]);
      expect(RUNS_LIST_PATH).toBe('/api/v2/dags/~/dagRuns/list');

      // When the first page holds every run, it is the only request.
      sent.length = 0;
      const few = await recentRuns(post, ['quiet', 'idle'], 12);
      expect(few.get('quiet')).toHaveLength(3);
      expect(sent).toHaveLength(1);
    } finally {
      await h.api.close();
    }
  });
});
