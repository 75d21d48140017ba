/**
 * The rehearsal endpoint the CLI is given answers CloudFormation DescribeStacks with the
 * template's outputs and CloudWatch Logs FilterLogEvents from the function log streams,
 * through the real SDK clients the CLI uses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { afterAll, describe, expect, it } from 'vitest';
import { RehearsalClock } from '../../lib/rehearsal/clock.js';
import { startFront } from '../../lib/rehearsal/front.js';
import { LogSink } from '../../lib/rehearsal/logs.js';
import type { FunctionSpec } from '../../lib/rehearsal/lambda.js';

const dir = mkdtempSync(join(tmpdir(), 'airless-front-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rehearsal endpoint', () => {
  it('answers DescribeStacks and FilterLogEvents as AWS would', async () => {
    const clock = new RehearsalClock(Date.parse('2026-01-01T00:00:00Z'));
    const logs = new LogSink(join(dir, 'logs'), clock);
    const worker = { logicalId: 'Worker', logGroupName: 'wg' } as FunctionSpec;
    logs.write(worker, JSON.stringify({ level: 'INFO', message: 'mine', dagId: 'd', runId: 'r', taskId: 't' }));
    logs.write(worker, JSON.stringify({ level: 'INFO', message: 'other task', dagId: 'd', runId: 'r', taskId: 'u' }));
    const front = await startFront({ gatewayUrl: 'http://127.0.0.1:1', stackName: 'Airless', outputs: { BucketName: 'b', QueueUrl: 'http://q/0/q' }, logs });
    const base = { endpoint: front.url, region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } };
    const cf = new CloudFormationClient(base);
    const cw = new CloudWatchLogsClient(base);
    try {
      const stacks = await cf.send(new DescribeStacksCommand({ StackName: 'Airless' }));
      expect(stacks.Stacks?.[0]).toMatchObject({ StackName: 'Airless', StackStatus: 'CREATE_COMPLETE', Outputs: [{ OutputKey: 'BucketName', OutputValue: 'b' }, { OutputKey: 'QueueUrl', OutputValue: 'http://q/0/q' }] });
      await expect(cf.send(new DescribeStacksCommand({ StackName: 'Other' }))).rejects.toThrow('Stack with id Other does not exist');
      const events = await cw.send(new FilterLogEventsCommand({ logGroupName: 'wg', filterPattern: '{ ($.dagId = "d") && ($.runId = "r") && ($.taskId = "t") }' }));
      expect(events.events?.map((e) => JSON.parse(e.message!).message)).toEqual(['mine']);
    } finally {
      cf.destroy();
      cw.destroy();
      await front.close();
    }
  });
});
