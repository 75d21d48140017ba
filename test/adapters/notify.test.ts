/**
 * Notifiers against real local HTTP servers: a webhook receives Slack's `{ text }` with the
 * templates rendered (from a DAG's onFailure, through the engine); SNS Publish is sent to a
 * local endpoint, and the exact request is asserted (no SNS server exists offline).
 */
import { SNSClient } from '@aws-sdk/client-sns';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsNotifier, topicRegion } from '../../lib/adapters/callbacks-notify.js';
import { LocalSecrets } from '../../lib/adapters/secrets-local.js';
import { dag, notify } from '../../lib/sdk/index.js';
import { makeRuntime, runOnce } from '../helpers/runtime.js';

interface Seen { method?: string; url?: string; headers: IncomingMessage['headers']; body: string }
const seen: Seen[] = [];
let server: Server;
let base: string;
let status = 200;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (req.url?.startsWith('/sns')) {
        const json = String(req.headers['content-type']).includes('json');
        res.writeHead(200, { 'content-type': json ? 'application/x-amz-json-1.0' : 'text/xml' });
        res.end(json ? '{"MessageId":"m-1"}'
          : '<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>m-1</MessageId></PublishResult><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></PublishResponse>');
        return;
      }
      res.writeHead(status);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('notifiers', () => {
  it('a DAG onFailure webhook posts Slack JSON with rendered templates, variables included', async () => {
    seen.length = 0;
    const d = dag('alerting', {
      onFailure: notify.webhook({ url: '{{ var.value.hook_base }}/hook/{{ dag_id }}', body: '{{ dag_id }} failed ({{ failed_tasks }}) on {{ ds }}' }),
    }, ({ task }) => {
      task('load', async () => { throw new Error('disk full'); }, {
        onFailure: notify.webhook({ url: `${base}/task`, body: { text: '{{ task_id }}: {{ error }}', channel: '#etl' }, headers: { 'x-team': 'data' } }),
      });
    });
    const { rt } = await makeRuntime([d], { secrets: new LocalSecrets({ env: { AIRLESS_VAR_HOOK_BASE: base }, dir: '/nonexistent' }), config: { runRetentionMs: 0 } });
    const { run } = await runOnce(rt, 'alerting');
    await rt.runUntil(async () => seen.length >= 2 && rt.queue.size === 0);
    expect(run.state).toBe('failed');
    const byUrl = Object.fromEntries(seen.map((s) => [s.url, s]));
    expect(byUrl['/hook/alerting']).toMatchObject({ method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(JSON.parse(byUrl['/hook/alerting']!.body)).toEqual({ text: 'alerting failed (load) on 2026-01-01' });
    expect(JSON.parse(byUrl['/task']!.body)).toEqual({ text: 'load: Error: disk full', channel: '#etl' });
    expect(byUrl['/task']!.headers['x-team']).toBe('data');
    expect(rt.metrics.get('CallbacksRun')).toBe(2);
  });

  it('a webhook answering an error status fails with the origin only (a webhook path holds its secret)', async () => {
    status = 500;
    try {
      await expect(new AwsNotifier().send({ type: 'webhook', url: `${base}/services/T000/SECRET`, body: { text: 'x' } }))
        .rejects.toThrow(`webhook ${base} answered HTTP 500`);
    } finally {
      status = 200;
    }
  });

  it('SNS Publish goes to the topic with the rendered message and subject', async () => {
    seen.length = 0;
    const n = new AwsNotifier({
      sns: (region) => new SNSClient({ region, endpoint: `${base}/sns`, credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' } }),
    });
    await n.send({ type: 'sns', topicArn: 'arn:aws:sns:eu-west-1:123456789012:alerts', message: 'etl failed: load', subject: 'Airless etl' });
    expect(seen).toHaveLength(1);
    const req = seen[0]!;
    expect(req.method).toBe('POST');
    expect(String(req.headers.authorization)).toMatch(/Credential=AKIDLOCAL\/\d{8}\/eu-west-1\/sns\/aws4_request/);
    const params = String(req.headers['content-type']).includes('json')
      ? JSON.parse(req.body)
      : Object.fromEntries(new URLSearchParams(req.body));
    expect(params).toMatchObject({ TopicArn: 'arn:aws:sns:eu-west-1:123456789012:alerts', Message: 'etl failed: load', Subject: 'Airless etl' });
    if (!String(req.headers['content-type']).includes('json')) expect(params).toMatchObject({ Action: 'Publish', Version: '2010-03-31' });
    expect(() => topicRegion('arn:aws:sqs:eu-west-1:123456789012:q')).toThrow(/is not an SNS topic ARN/);
  });
});
