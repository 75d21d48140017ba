/**
 * The API over the other backends: the embedded runtime on a DynamoDB store (DynamoDB
 * Local), and a deployed stack's task logs read from CloudWatch Logs.
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTables } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { MemoryStore } from '../../lib/adapters/memory/store.js';
import { cloudWatchLogs } from '../../lib/cli/ui.js';
import type { Ports } from '../../lib/engine/ports.js';
import { LOCAL_AWS } from '../../local/dynamodb-local.js';
import etl from '../../examples/dags/etl_daily.js';
import { apiOverRuntime } from './support.js';

const endpoint = inject('dynamodbEndpoint');
const client = new DynamoDBClient({ endpoint: endpoint || 'http://127.0.0.1:1', ...LOCAL_AWS });
afterAll(() => client.destroy());

describe.skipIf(!endpoint)('API over a DynamoDB store', () => {
  it('triggers, lists, grids and clears on DynamoDB Local', async () => {
    const prefix = `ui${process.pid}-`;
    await createTables(client, prefix);
    const h = await apiOverRuntime([etl], { store: new DynamoStore({ client, tablePrefix: prefix }) });
    try {
      const r = await h.call('POST', '/api/v2/dags/etl_daily/dagRuns', { logical_date: '2026-01-02T00:00:00Z', conf: {} });
      expect(r.status).toBe(200);
      expect(await h.rt.runToCompletion('etl_daily', r.json.dag_run_id)).toBe('done');
      const run = encodeURIComponent(r.json.dag_run_id);
      expect((await h.call('GET', `/api/v2/dags/etl_daily/dagRuns/${run}`)).json.state).toBe('success');
      const tis = (await h.call('GET', `/api/v2/dags/etl_daily/dagRuns/${run}/taskInstances`)).json.task_instances;
      expect(tis.find((t: any) => t.task_id === 'extract')).toMatchObject({ state: 'success', try_number: 2 });
      const grid = (await h.call('GET', '/ui/grid/etl_daily')).json;
      expect(grid.rows).toHaveLength(7);
      const clear = await h.call('POST', '/api/v2/dags/etl_daily/clearTaskInstances', { dry_run: false, dag_run_id: r.json.dag_run_id, task_ids: ['delta'], only_failed: false });
      expect(clear.json.task_instances.map((t: any) => t.task_id)).toEqual(['delta']);
      expect(await h.rt.runToCompletion('etl_daily', r.json.dag_run_id)).toBe('done');
      expect((await h.call('GET', `/api/v2/dags/etl_daily/dagRuns/${run}/taskInstances/delta/logs/2`)).json.content.length).toBeGreaterThan(0);
    } finally {
      await h.api.close();
    }
  });
});

describe('task logs of a deployed stack', () => {
  it('reads a try from the worker log group in CloudWatch Logs, as Airflow log entries', async () => {
    const logsMock = mockClient(CloudWatchLogsClient);
    const line = (o: object) => ({ message: JSON.stringify(o), timestamp: 1 });
    logsMock.on(FilterLogEventsCommand).resolves({
      events: [
        line({ timestamp: '2026-01-01T00:00:01.000Z', level: 'INFO', message: 'for 2026-01-01', dagId: 'etl', runId: 'r', taskId: 'x', tryNumber: 2, rows: 3 }),
        line({ level: 'INFO', message: 'other try', dagId: 'etl', runId: 'r', taskId: 'x', tryNumber: 1 }),
      ],
    });
    const store = new MemoryStore();
    const reader = cloudWatchLogs({
      clients: { logs: new CloudWatchLogsClient({ region: 'eu-west-1' }), cloudformation: new CloudFormationClient({ region: 'eu-west-1' }) },
      stackName: 'Airless', outputs: { WorkerLogGroupName: '/aws/lambda/worker' }, ports: { store } as unknown as Ports,
    });
    const got = await reader.read({ dagId: 'etl', runId: 'r', taskId: 'x', tryNumber: 2 });
    expect(got).toEqual([{ timestamp: '2026-01-01T00:00:01.000Z', level: 'info', event: 'for 2026-01-01', dagId: 'etl', runId: 'r', taskId: 'x', tryNumber: 2, rows: 3 }]);
    expect(logsMock).toHaveReceivedCommandWith(FilterLogEventsCommand, { logGroupName: '/aws/lambda/worker' });
    logsMock.restore();
  });
});
