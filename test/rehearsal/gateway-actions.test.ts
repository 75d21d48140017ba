/** The IAM action and resource AWS evaluates for each request shape, without servers. */
import { describe, expect, it } from 'vitest';
import { dynamodbChecks } from '../../lib/rehearsal/gateway/actions-dynamodb.js';
import { deleteObjectsKeys, s3Checks, s3Target } from '../../lib/rehearsal/gateway/actions-s3.js';
import { queueArn, sqsChecks } from '../../lib/rehearsal/gateway/actions-sqs.js';
import { decodeAwsChunked } from '../../lib/rehearsal/gateway/aws-chunked.js';
import { credentialOf, sessionArn } from '../../lib/rehearsal/gateway/identify.js';

const scope = { region: 'us-east-1', accountId: '000000000000' };
const table = (t: string) => `arn:aws:dynamodb:us-east-1:000000000000:table/${t}`;
const hosts = ['localhost', '127.0.0.1'];

describe('gateway: IAM checks per request', () => {
  it('DynamoDB: transactions per item and action, batches per table, index ARNs for Query/Scan', () => {
    expect(dynamodbChecks('DynamoDB_20120810.TransactWriteItems', { TransactItems: [
      { Put: { TableName: 'a' } }, { Update: { TableName: 'b' } }, { Delete: { TableName: 'a' } }, { ConditionCheck: { TableName: 'c' } }, { Put: { TableName: 'a' } },
    ] }, scope)).toEqual([
      { action: 'dynamodb:PutItem', resource: table('a') }, { action: 'dynamodb:UpdateItem', resource: table('b') },
      { action: 'dynamodb:DeleteItem', resource: table('a') }, { action: 'dynamodb:ConditionCheckItem', resource: table('c') },
    ]);
    expect(dynamodbChecks('DynamoDB_20120810.BatchWriteItem', { RequestItems: { a: [], b: [] } }, scope).map((c) => c.resource)).toEqual([table('a'), table('b')]);
    expect(dynamodbChecks('DynamoDB_20120810.Scan', { TableName: 't', IndexName: 'i' }, scope)).toEqual([{ action: 'dynamodb:Scan', resource: `${table('t')}/index/i` }]);
    expect(dynamodbChecks('DynamoDB_20120810.UpdateTimeToLive', { TableName: 't' }, scope)).toEqual([{ action: 'dynamodb:UpdateTimeToLive', resource: table('t') }]);
    expect(() => dynamodbChecks('DynamoDB_20120810.GetItem', {}, scope)).toThrow('DynamoDB GetItem: the gateway does not know its resource (no TableName)');
  });

  it('SQS: batch operations as their single-message actions; the queue ARN from the URL', () => {
    expect(sqsChecks('AmazonSQS.DeleteMessageBatch', { QueueUrl: 'http://127.0.0.1:9324/000000000000/ready' }, scope)).toEqual([{ action: 'sqs:DeleteMessage', resource: 'arn:aws:sqs:us-east-1:000000000000:ready' }]);
    expect(sqsChecks('AmazonSQS.GetQueueUrl', { QueueName: 'dlq' }, scope)).toEqual([{ action: 'sqs:GetQueueUrl', resource: 'arn:aws:sqs:us-east-1:000000000000:dlq' }]);
    expect(queueArn('http://localhost:1/queue/ready', scope)).toBe('arn:aws:sqs:us-east-1:000000000000:ready');
    expect(() => queueArn('not a url', scope)).toThrow("SQS: QueueUrl is not a URL: 'not a url'");
  });

  it('S3: path-style and virtual-host-style requests name the same bucket and key', () => {
    expect(s3Target('127.0.0.1:4569', '/b/bundles/v%201/m.json', hosts)).toEqual({ bucket: 'b', key: 'bundles/v 1/m.json', pathStyle: '/b/bundles/v%201/m.json' });
    expect(s3Target('b.localhost:4569', '/bundles/m.json', hosts)).toEqual({ bucket: 'b', key: 'bundles/m.json', pathStyle: '/b/bundles/m.json' });
    expect(s3Target('b.localhost:4569', '/', hosts)).toEqual({ bucket: 'b', pathStyle: '/b' });
  });

  it('S3: object, bucket and multi-object actions with their condition keys', () => {
    const q = (s: string) => new URLSearchParams(s);
    const obj = { bucket: 'b', key: 'k', pathStyle: '/b/k' };
    const bucket = { bucket: 'b', pathStyle: '/b' };
    expect(s3Checks('HEAD', obj, q(''), {})).toEqual([{ action: 's3:GetObject', resource: 'arn:aws:s3:::b/k' }]);
    expect(s3Checks('GET', obj, q('versionId=3'), {})).toEqual([{ action: 's3:GetObjectVersion', resource: 'arn:aws:s3:::b/k' }]);
    expect(s3Checks('PUT', obj, q(''), { 'x-amz-copy-source': '/src/a%20b' })).toEqual([
      { action: 's3:PutObject', resource: 'arn:aws:s3:::b/k' }, { action: 's3:GetObject', resource: 'arn:aws:s3:::src/a b' },
    ]);
    expect(s3Checks('GET', bucket, q('list-type=2&prefix=p/&delimiter=/'), {})).toEqual([{ action: 's3:ListBucket', resource: 'arn:aws:s3:::b', context: { 's3:prefix': 'p/', 's3:delimiter': '/' } }]);
    expect(s3Checks('PUT', bucket, q('notification'), {})).toEqual([{ action: 's3:PutBucketNotification', resource: 'arn:aws:s3:::b' }]);
    const keys = deleteObjectsKeys('<Delete><Object><Key>a&amp;b</Key></Object><Object><Key>c</Key></Object></Delete>');
    expect(s3Checks('POST', bucket, q('delete'), {}, keys)).toEqual([
      { action: 's3:DeleteObject', resource: 'arn:aws:s3:::b/a&b' }, { action: 's3:DeleteObject', resource: 'arn:aws:s3:::b/c' },
    ]);
    expect(s3Checks('GET', { pathStyle: '/' }, q(''), {})).toEqual([{ action: 's3:ListAllMyBuckets', resource: '*' }]);
  });

  it('reads the caller from the SigV4 scope (header or presigned URL) and names its session as AWS does', () => {
    expect(credentialOf({ authorization: 'AWS4-HMAC-SHA256 Credential=AKIA1/20261122/us-east-1/scheduler/aws4_request, SignedHeaders=host, Signature=x' }, new URLSearchParams()))
      .toEqual({ accessKeyId: 'AKIA1', region: 'us-east-1', service: 'scheduler' });
    expect(credentialOf({}, new URLSearchParams('X-Amz-Credential=AKIA2%2F20261122%2Fus-east-1%2Fs3%2Faws4_request'))?.accessKeyId).toBe('AKIA2');
    expect(credentialOf({}, new URLSearchParams())).toBeUndefined();
    expect(sessionArn('arn:aws:iam::000000000000:role/path/Worker-role', 'Worker')).toBe('arn:aws:sts::000000000000:assumed-role/Worker-role/Worker');
  });

  it('decodes aws-chunked bodies and refuses truncated ones', () => {
    const body = Buffer.from('5;chunk-signature=abc\r\nhello\r\n6\r\n world\r\n0\r\nx-amz-checksum-crc32:AAAA\r\n\r\n');
    expect(decodeAwsChunked(body).toString()).toBe('hello world');
    expect(() => decodeAwsChunked(Buffer.from('a\r\nshort'))).toThrow('aws-chunked body is shorter than its chunk sizes');
  });
});

describe('gateway: requests it cannot route get one clear error', () => {
  it('names an unserved service and a request without its resource', async () => {
    const { startGateway } = await import('../../lib/rehearsal/gateway/index.js');
    const { CloudWatchLogsClient, DescribeLogGroupsCommand } = await import('@aws-sdk/client-cloudwatch-logs');
    const { DynamoDBClient, GetItemCommand } = await import('@aws-sdk/client-dynamodb');
    const gw = await startGateway({ ...scope, upstream: { dynamodb: 'http://127.0.0.1:1', sqs: 'http://127.0.0.1:1', s3: 'http://127.0.0.1:1' }, resourcePolicies: {}, principals: [], clock: () => 0 });
    const opts = { endpoint: gw.url, region: 'us-east-1', maxAttempts: 1, credentials: { accessKeyId: 'AKIAUSER', secretAccessKey: 'x' } };
    const logs = new CloudWatchLogsClient(opts);
    const ddb = new DynamoDBClient(opts);
    try {
      await expect(logs.send(new DescribeLogGroupsCommand({}))).rejects.toThrow("The rehearsal gateway does not serve the 'logs' service");
      await expect(ddb.send(new GetItemCommand({ TableName: undefined as unknown as string, Key: {} }))).rejects.toMatchObject({
        name: 'ValidationException', message: 'DynamoDB GetItem: the gateway does not know its resource (no TableName)',
      });
      // The upstream is down: a 502 naming it, not a hang.
      await expect(ddb.send(new GetItemCommand({ TableName: 'runs', Key: {} }))).rejects.toThrow(/upstream http:\/\/127\.0\.0\.1:1 failed/);
    } finally {
      logs.destroy();
      ddb.destroy();
      await gw.close();
    }
  });
});

describe('gateway: repeated decisions', () => {
  it('records every call, follows the clock for time conditions and re-evaluates swapped policies', async () => {
    const { startGateway } = await import('../../lib/rehearsal/gateway/index.js');
    let now = Date.parse('2026-01-01T00:00:00Z');
    const queue = 'arn:aws:sqs:us-east-1:000000000000:q';
    const worker = { accessKeyId: 'AKIAW', name: 'W', roleArn: 'arn:aws:iam::000000000000:role/w', policies: [{ name: 'p', document: {
      Version: '2012-10-17', Statement: [{ Effect: 'Allow' as const, Action: 'sqs:SendMessage', Resource: queue, Condition: { DateLessThan: { 'aws:CurrentTime': '2026-06-01T00:00:00Z' } } }],
    } }] };
    const plain = { ...worker, accessKeyId: 'AKIAP', name: 'P', policies: [{ name: 'p', document: { Version: '2012-10-17', Statement: [{ Effect: 'Allow' as const, Action: 'sqs:SendMessage', Resource: queue }] } }] };
    const gw = await startGateway({ ...scope, upstream: { dynamodb: 'http://127.0.0.1:1', sqs: 'http://127.0.0.1:1', s3: 'http://127.0.0.1:1' }, resourcePolicies: {}, principals: [worker, plain], clock: () => now });
    try {
      expect(await gw.authorize('W', 'sqs:SendMessage', queue)).toBe(true);
      now = Date.parse('2026-07-01T00:00:00Z');
      expect(await gw.authorize('W', 'sqs:SendMessage', queue)).toBe(false);
      expect(await gw.authorize('P', 'sqs:SendMessage', queue)).toBe(true);
      expect(await gw.authorize('P', 'sqs:SendMessage', queue)).toBe(true);
      plain.policies = [];
      expect(await gw.authorize('P', 'sqs:SendMessage', queue)).toBe(false);
      expect(gw.decisions.map((d) => `${d.principal} ${d.allowed}`)).toEqual(['W true', 'W false', 'P true', 'P true', 'P false']);
    } finally {
      await gw.close();
    }
  });
});
