/**
 * The API over the other backends: the embedded runtime on a DynamoDB store (DynamoDB
 * Local), and a deployed stack's task logs read from CloudWatch Logs.
 */
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTables } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { MemoryStore } from '../../lib/adapters/memory/store.js';
import { cloudWatchLogs, startStackUi } from '../../lib/cli/ui.js';
import type { Ports } from '../../lib/engine/index.js';
import { LOCAL_AWS } from '../../lib/runtime/dynamodb-local.js';
import { BACKEND_HEADER } from '../../lib/ui/dom.js';
import etl from '../../examples/dags/etl_daily.js';
import { makeRuntime } from '../helpers/runtime.js';
import { apiOverRuntime } from './support.js';

const endpoint = inject('dynamodbEndpoint');
const client = new DynamoDBClient({ endpoint: endpoint || 'http://127.0.0.1:1', ...LOCAL_AWS });
afterAll(() => client.destroy());

describe.skipIf(!endpoint)('API over a DynamoDB store', () => {
  // On a starved CPU this once failed: the virtual clock jumped while a task worked between
  // DynamoDB calls. The idle window now counts from the last store call (test/runtime/idle.test.ts).
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
      const mark = await h.call('PATCH', `/api/v2/dags/etl_daily/dagRuns/${run}/taskInstances/audit`, { new_state: 'failed' });
      expect(mark.json.task_instances[0].state).toBe('failed');
      expect(await h.rt.runToCompletion('etl_daily', r.json.dag_run_id)).toBe('done');
      const after = (await h.call('GET', `/api/v2/dags/etl_daily/dagRuns/${run}/taskInstances`)).json.task_instances;
      expect(Object.fromEntries(after.map((t: any) => [t.task_id, t.state]))).toMatchObject({ audit: 'failed', load: 'upstream_failed' });
    } finally {
      await h.api.close();
    }
  });
});

describe.skipIf(!endpoint)('clear on DynamoDB', () => {
  // Clear removes the cleared upstream outcomes in the same conditional write (Store.clearTask),
  // so a cleared task waits for its cleared upstream on DynamoDB as on the memory store.
  it('a cleared downstream waits for its cleared upstream', async () => {
    const prefix = `bug${process.pid}-`;
    await createTables(client, prefix);
    const h = await apiOverRuntime([etl], { store: new DynamoStore({ client, tablePrefix: prefix }) });
    try {
      const run = await h.rt.trigger('etl_daily', { logicalDate: Date.parse('2026-01-04T00:00:00Z') });
      await h.rt.runToCompletion('etl_daily', run.runId);
      await h.call('PATCH', `/api/v2/dags/etl_daily/dagRuns/${encodeURIComponent(run.runId)}/taskInstances/audit`, { new_state: 'failed' });
      await h.rt.runToCompletion('etl_daily', run.runId);
      expect((await h.rt.ports.store.getTask({ dagId: 'etl_daily', runId: run.runId, taskId: 'pick' }))!.state).toBe('upstream_failed');
    } finally {
      await h.api.close();
    }
  });
});

describe.skipIf(!endpoint)('airless ui --stack', () => {
  it("serves a stack's DAGs, runs and task instances from the tables its outputs name", async () => {
    const prefix = `stack${process.pid}-`;
    await createTables(client, prefix);
    const { rt } = await makeRuntime([etl], { store: new DynamoStore({ client, tablePrefix: prefix }) });
    const run = await rt.trigger('etl_daily', { logicalDate: Date.parse('2026-01-03T00:00:00Z') });
    await rt.runToCompletion('etl_daily', run.runId);
    const cf = mockClient(CloudFormationClient);
    cf.on(DescribeStacksCommand, { StackName: 'Rehearsal' }).resolves({ Stacks: [{
      StackName: 'Rehearsal', StackStatus: 'CREATE_COMPLETE', CreationTime: new Date(),
      Outputs: Object.entries({ BucketName: 'b', TablePrefix: prefix, QueueUrl: `${endpoint}/000000000000/ready`, SchedulerGroup: 'timers', DagScheduleGroup: 'dags' })
        .map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
    }] });
    const out: string[] = [];
    const api = await startStackUi({ stack: 'Rehearsal', port: '0', token: 'stack-token-123' }, {
      AIRLESS_AWS_ENDPOINT: endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local',
    }, (s) => void out.push(s));
    try {
      expect(out.join('')).toMatch(/airless ui --stack Rehearsal: .* on http:\/\/127\.0\.0\.1:\d+/);
      const get = async (p: string) => (await fetch(`${api.url}${p}`, { headers: { authorization: 'Bearer stack-token-123' } })).json();
      expect((await get('/api/v2/dags')).dags.map((d: any) => d.dag_id)).toEqual(['etl_daily']);
      const runs = await get('/api/v2/dags/etl_daily/dagRuns');
      // The API serves what the tables hold (the run's outcome is the engine suites' business).
      const stored = await rt.ports.store.getRun('etl_daily', run.runId);
      expect(runs.dag_runs[0]).toMatchObject({ dag_run_id: run.runId, state: stored!.state });
      const tis = await get(`/api/v2/dags/etl_daily/dagRuns/${encodeURIComponent(run.runId)}/taskInstances`);
      const extract = await rt.ports.store.getTask({ dagId: 'etl_daily', runId: run.runId, taskId: 'extract' });
      expect(tis.task_instances.find((t: any) => t.task_id === 'extract')).toMatchObject({ state: extract!.state, try_number: extract!.tryNumber });
      // The UI's header names the backend from a response header (the spec's bodies have no
      // field for it), sent to callers with the token and not on the public version probe.
      const named = await fetch(`${api.url}/api/v2/dags`, { headers: { authorization: 'Bearer stack-token-123' } });
      expect(decodeURIComponent(named.headers.get(BACKEND_HEADER)!)).toBe('stack Rehearsal');
      expect((await fetch(`${api.url}/api/v2/version`)).headers.get(BACKEND_HEADER)).toBeNull();
      expect((await fetch(`${api.url}/api/v2/dags`)).headers.get(BACKEND_HEADER)).toBeNull();
      // The DAG list's runs moved to the spec's batch list: the Airless-only route is gone.
      expect((await fetch(`${api.url}/ui/dags`, { headers: { authorization: 'Bearer stack-token-123' } })).status).toBe(404);
    } finally {
      await api.close();
      cf.restore();
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
