/**
 * Faults a scenario injects after IAM allowed a call: a 500 the SDK retries and then raises,
 * and an S3 object gone (404 NoSuchKey to a caller that may list the bucket, 403 to one that
 * may not, as S3 answers), each counted and recorded.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway, type Principal } from '../../lib/rehearsal/gateway/index.js';

const ACCOUNT = '000000000000';
const reader = (name: string, list: boolean): Principal => ({
  accessKeyId: `AKIA${name.toUpperCase()}`, name, roleArn: `arn:aws:iam::${ACCOUNT}:role/${name}`,
  policies: [{ name: 'p', document: { Version: '2012-10-17', Statement: [
    { Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::data/*' },
    ...(list ? [{ Effect: 'Allow' as const, Action: 's3:ListBucket', Resource: 'arn:aws:s3:::data' }] : []),
    { Effect: 'Allow', Action: 'events:PutEvents', Resource: '*' },
  ] } }],
});

describe('rehearsal gateway: injected faults', () => {
  let gw: Gateway;
  const clients: { destroy(): void }[] = [];
  const s3 = (key: string) => {
    const c = new S3Client({ endpoint: gw.url, region: 'us-east-1', forcePathStyle: true, maxAttempts: 1, credentials: { accessKeyId: key, secretAccessKey: 'x' } });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    gw = await startGateway({
      region: 'us-east-1', accountId: ACCOUNT, upstream: { dynamodb: 'http://127.0.0.1:1', sqs: 'http://127.0.0.1:1', s3: 'http://127.0.0.1:1' },
      resourcePolicies: {}, principals: [reader('Lister', true), reader('Blind', false)], clock: () => Date.now(),
    });
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await gw?.close();
  });

  it('an object made missing: 404 NoSuchKey with s3:ListBucket, 403 without, for the callers the fault names only', async () => {
    gw.faults.add({ principal: /Lister|Blind/, action: 's3:GetObject', resource: /\/blobs\//, kind: 'missing' });
    await expect(s3('AKIALISTER').send(new GetObjectCommand({ Bucket: 'data', Key: 'blobs/conf/x' }))).rejects.toMatchObject({ name: 'NoSuchKey' });
    await expect(s3('AKIABLIND').send(new GetObjectCommand({ Bucket: 'data', Key: 'blobs/conf/x' }))).rejects.toMatchObject({ name: 'AccessDenied' });
    expect(gw.faults.hits.map((h) => h.principal)).toEqual(['Lister', 'Blind']);
    expect(gw.decisions.filter((d) => d.action === 's3:ListBucket').map((d) => [d.principal, d.allowed])).toEqual([['Lister', true], ['Blind', false]]);
  });

  it('a 500 the SDK retries, a number of times', async () => {
    gw.faults.add({ principal: /Lister/, action: 'events:PutEvents', kind: 'error', times: 2 });
    const eb = new EventBridgeClient({ endpoint: gw.url, region: 'us-east-1', maxAttempts: 3, retryStrategy: undefined, credentials: { accessKeyId: 'AKIALISTER', secretAccessKey: 'x' } });
    clients.push(eb);
    const out = await eb.send(new PutEventsCommand({ Entries: [{ Source: 'app.x', DetailType: 'x', Detail: '{}' }] }));
    expect(out.FailedEntryCount).toBe(0);
    expect(gw.faults.hits.filter((h) => h.kind === 'error')).toHaveLength(2);
    gw.faults.clear();
  });
});
