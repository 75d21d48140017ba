/**
 * The rehearsal gateway with the real SDK clients in front and the real local servers
 * behind: DynamoDB Local (globalSetup), local-aws-sqs and s3rver.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startS3rver, type LocalS3 } from '../../lib/rehearsal/s3rver.js';
import { startGateway, type Gateway, type PolicyDocument, type Principal } from '../../lib/rehearsal/gateway/index.js';

const endpoint = inject('dynamodbEndpoint');
const ACCOUNT = '000000000000';
const prefix = `gw${process.pid}-`;
const RUNS = `${prefix}runs`;
const TASKS = `${prefix}tasks`;
const BUCKET = 'gw-bundles';
const table = (name: string) => `arn:aws:dynamodb:us-east-1:${ACCOUNT}:table/${name}`;
const queueArn = `arn:aws:sqs:us-east-1:${ACCOUNT}:gw-ready`;

const doc = (...Statement: PolicyDocument['Statement'][]): PolicyDocument => ({ Version: '2012-10-17', Statement: Statement.flat() });
const principal = (name: string, document: PolicyDocument): Principal => ({
  accessKeyId: `AKIA${name.toUpperCase()}`, name, roleArn: `arn:aws:iam::${ACCOUNT}:role/${name}-role`, policies: [{ name: `${name}Policy`, document }],
});

const worker = principal('Worker', doc([
  { Sid: 'RunsRw', Effect: 'Allow', Action: ['dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:Query'], Resource: [table(RUNS), `${table(RUNS)}/index/*`] },
  { Sid: 'Send', Effect: 'Allow', Action: 'sqs:SendMessage', Resource: queueArn },
  { Sid: 'Bundles', Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'], Resource: `arn:aws:s3:::${BUCKET}/*` },
  { Sid: 'ListBundles', Effect: 'Allow', Action: 's3:ListBucket', Resource: `arn:aws:s3:::${BUCKET}`, Condition: { StringLike: { 's3:prefix': 'bundles/*' } } },
]));
const both = principal('Both', doc(
  { Sid: 'Tables', Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: [table(RUNS), table(TASKS)] },
  { Sid: 'Read', Effect: 'Allow', Action: 's3:GetObject', Resource: `arn:aws:s3:::${BUCKET}/*` },
  { Sid: 'List', Effect: 'Allow', Action: 's3:ListBucket', Resource: `arn:aws:s3:::${BUCKET}` },
));
const bucketPolicy = doc(
  { Sid: 'TlsOnly', Effect: 'Deny', Principal: { AWS: '*' }, Action: 's3:*', Resource: [`arn:aws:s3:::${BUCKET}`, `arn:aws:s3:::${BUCKET}/*`], Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
  { Sid: 'KeepBundles', Effect: 'Deny', Principal: { AWS: '*' }, Action: 's3:DeleteObject', Resource: `arn:aws:s3:::${BUCKET}/bundles/*` },
);


describe.skipIf(!endpoint)('rehearsal gateway: IAM in front of the local servers', () => {
  let gw: Gateway;
  let strict: Gateway;
  let sqsServer: Server;
  let s3rver: LocalS3;
  let work: string;
  let queueUrl: string;
  const clients: { destroy(): void }[] = [];
  const as = <T extends { destroy(): void }>(c: T): T => (clients.push(c), c);
  const creds = (p: Principal) => ({ accessKeyId: p.accessKeyId, secretAccessKey: 'x' });
  const base = { region: 'us-east-1', maxAttempts: 1 };

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'airless-gw-'));
    sqsServer = await createSqsServer({ port: 0, emulateQueueCreationLifecycle: false, accountId: ACCOUNT, region: 'us-east-1' });
    s3rver = await startS3rver({ directory: join(work, 's3'), buckets: [BUCKET] });
    const upstream = { dynamodb: endpoint, sqs: `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`, s3: s3rver.endpoint };
    const options = { region: 'us-east-1', accountId: ACCOUNT, upstream, resourcePolicies: { [`arn:aws:s3:::${BUCKET}`]: bucketPolicy }, principals: [worker, both], clock: () => Date.parse('2026-11-22T12:00:00Z') };
    gw = await startGateway(options);
    strict = await startGateway({ ...options, cliAllowAll: false });

    // Set up as the CLI user (allow-all for unknown keys): tables and the queue.
    const admin = { ...base, endpoint: gw.url, credentials: { accessKeyId: 'AKIAUSER', secretAccessKey: 'x' } };
    const ddb = as(new DynamoDBClient(admin));
    for (const t of [RUNS, TASKS]) {
      await ddb.send(new CreateTableCommand({
        TableName: t, BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'state', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        GlobalSecondaryIndexes: [{ IndexName: 'byState', KeySchema: [{ AttributeName: 'state', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
      }));
    }
    queueUrl = (await as(new SQSClient(admin)).send(new CreateQueueCommand({ QueueName: 'gw-ready' }))).QueueUrl!;
  });

  afterAll(async () => {
    for (const c of clients) c.destroy();
    await gw?.close();
    await strict?.close();
    await new Promise((r) => sqsServer?.close(r));
    await s3rver?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('forwards an allowed DynamoDB call and records the statement that allowed it', async () => {
    const ddb = as(new DynamoDBClient({ ...base, endpoint: gw.url, credentials: creds(worker) }));
    await ddb.send(new PutItemCommand({ TableName: RUNS, Item: { pk: { S: 'etl/1' }, state: { S: 'running' } } }));
    const got = await ddb.send(new GetItemCommand({ TableName: RUNS, Key: { pk: { S: 'etl/1' } } }));
    expect(got.Item?.state?.S).toBe('running');
    const q = await ddb.send(new QueryCommand({ TableName: RUNS, IndexName: 'byState', KeyConditionExpression: '#s = :s', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':s': { S: 'running' } } }));
    expect(q.Items).toHaveLength(1);
    expect(gw.decisions).toContainEqual(expect.objectContaining({
      principal: 'Worker', action: 'dynamodb:Query', resource: `${table(RUNS)}/index/byState`, allowed: true, matchedStatements: ['WorkerPolicy/RunsRw'],
    }));
  });

  it('denies with the SDK\'s AccessDeniedException naming action and resource, and records it', async () => {
    const ddb = as(new DynamoDBClient({ ...base, endpoint: gw.url, credentials: creds(worker) }));
    const err = await ddb.send(new PutItemCommand({ TableName: TASKS, Item: { pk: { S: 'x' } } })).catch((e: Error) => e);
    expect(err).toMatchObject({ name: 'AccessDeniedException' });
    expect((err as Error).message).toBe(
      `User: arn:aws:sts::${ACCOUNT}:assumed-role/Worker-role/Worker is not authorized to perform: dynamodb:PutItem on resource: ${table(TASKS)} because no identity-based policy allows the dynamodb:PutItem action`,
    );
    expect(gw.decisions.at(-1)).toMatchObject({ principal: 'Worker', action: 'dynamodb:PutItem', resource: table(TASKS), allowed: false, reason: 'ImplicitlyDenied' });
    const sqs = as(new SQSClient({ ...base, endpoint: gw.url, credentials: creds(worker) }));
    const recv = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 0 })).catch((e: Error) => e);
    expect(recv).toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining(`sqs:ReceiveMessage on resource: ${queueArn}`) });
  });

  it('a TransactWriteItems touching two tables needs the grant on both', async () => {
    const items = { TransactItems: [
      { Put: { TableName: RUNS, Item: { pk: { S: 'tx/1' } } } },
      { Put: { TableName: TASKS, Item: { pk: { S: 'tx/1' } } } },
    ] };
    const ddbWorker = as(new DynamoDBClient({ ...base, endpoint: gw.url, credentials: creds(worker) }));
    await expect(ddbWorker.send(new TransactWriteItemsCommand(items))).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining(`dynamodb:PutItem on resource: ${table(TASKS)}`) });
    const ddbBoth = as(new DynamoDBClient({ ...base, endpoint: gw.url, credentials: creds(both) }));
    await ddbBoth.send(new TransactWriteItemsCommand(items));
    expect(gw.decisions.filter((d) => d.principal === 'Both' && d.allowed).map((d) => d.resource)).toEqual([table(RUNS), table(TASKS)]);
  });

  it('sends through SQS and reads back through S3 as the deployed code does (default SDK settings)', async () => {
    const sqs = as(new SQSClient({ ...base, endpoint: gw.url, credentials: creds(worker) }));
    expect((await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{"k":"ready"}' }))).MessageId).toBeTruthy();
    const s3 = as(new S3Client({ ...base, endpoint: gw.url, credentials: creds(worker) }));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'bundles/v1/manifest.json', Body: '{"dags":[]}' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'bundles/v1/manifest.json' }));
    expect(await got.Body!.transformToString()).toBe('{"dags":[]}');
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'bundles/' }));
    expect(listed.Contents?.map((c) => c.Key)).toEqual(['bundles/v1/manifest.json']);
    await expect(s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'blobs/' }))).rejects.toMatchObject({ name: 'AccessDenied' });
    expect(gw.decisions.at(-1)).toMatchObject({ action: 's3:ListBucket', context: expect.objectContaining({ 's3:prefix': 'blobs/' }), allowed: false });
  });

  it('carries a 2 MB object and a streamed (aws-chunked) upload unchanged, and passes the server\'s own errors through', async () => {
    const s3 = as(new S3Client({ ...base, endpoint: gw.url, credentials: creds(worker) }));
    const bytes = new Uint8Array(2 * 1024 * 1024).map((_, i) => (i * 31) % 251);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'blobs/xcom.bin', Body: bytes, ContentLength: bytes.byteLength }));
    const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'blobs/xcom.bin' }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(Buffer.from(bytes))).toBe(true);
    // A streamed upload: the SDK frames it as aws-chunked with a trailing checksum; S3 decodes that, so does the gateway.
    const text = 'streamed '.repeat(5000);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'blobs/stream.txt', Body: Readable.from([Buffer.from(text)]), ContentLength: text.length }));
    expect(await (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'blobs/stream.txt' }))).Body!.transformToString()).toBe(text);
    // A missing key is a 404 only for a caller that may list the bucket (AWS's rule): the
    // worker's ListBucket holds only with an s3:prefix, which a GetObject does not carry.
    await expect(s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'blobs/missing' }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    expect(gw.decisions.slice(-2)).toMatchObject([
      { action: 's3:GetObject', resource: `arn:aws:s3:::${BUCKET}/blobs/missing`, allowed: true },
      { action: 's3:ListBucket', resource: `arn:aws:s3:::${BUCKET}`, allowed: false },
    ]);
    const lister = as(new S3Client({ ...base, endpoint: gw.url, credentials: creds(both) }));
    await expect(lister.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'blobs/missing' }))).rejects.toMatchObject({ name: 'NoSuchKey', $metadata: { httpStatusCode: 404 } });
    expect(gw.decisions.at(-1)).toMatchObject({ principal: 'Both', action: 's3:ListBucket', allowed: true });
  });

  it('a bucket policy deny wins over an identity allow: explicit deny and aws:SecureTransport false', async () => {
    const s3 = as(new S3Client({ ...base, endpoint: gw.url, credentials: creds(worker) }));
    const err = await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'bundles/v1/manifest.json' })).catch((e: Error) => e);
    expect(err).toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    expect((err as Error).message).toContain('with an explicit deny in a resource-based policy');
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'scratch/x' })); // allowed elsewhere
    const object = `arn:aws:s3:::${BUCKET}/bundles/v1/manifest.json`;
    expect(await gw.authorize('Worker', 's3:GetObject', object)).toBe(true); // the gateway stands for HTTPS
    expect(await gw.authorize('Worker', 's3:GetObject', object, { 'aws:SecureTransport': 'false' })).toBe(false);
    expect(gw.decisions.at(-1)).toMatchObject({ allowed: false, reason: 'ExplicitlyDenied' });
  });

  it('unknown access keys: the CLI user by default, UnrecognizedClientException when cliAllowAll is off', async () => {
    const stranger = { accessKeyId: 'AKIASTRANGER', secretAccessKey: 'x' };
    const ddb = as(new DynamoDBClient({ ...base, endpoint: gw.url, credentials: stranger }));
    expect((await ddb.send(new GetItemCommand({ TableName: TASKS, Key: { pk: { S: 'tx/1' } } }))).Item?.pk?.S).toBe('tx/1');
    expect(gw.decisions.at(-1)).toMatchObject({ principal: 'cli', allowed: true });
    const refused = as(new DynamoDBClient({ ...base, endpoint: strict.url, credentials: stranger }));
    await expect(refused.send(new GetItemCommand({ TableName: TASKS, Key: { pk: { S: 'tx/1' } } }))).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
    const s3 = as(new S3Client({ ...base, endpoint: strict.url, credentials: stranger }));
    await expect(s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'k' }))).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
  });

  it('replays a recorded call against the policy minus one statement: that statement is needed', async () => {
    const d = gw.decisions.find((x) => x.principal === 'Worker' && x.action === 'sqs:SendMessage' && x.allowed)!;
    expect(d.matchedStatements).toEqual(['WorkerPolicy/Send']);
    const statements = worker.policies[0]!.document.Statement as { Sid: string }[];
    const replay = (keep: { Sid: string }[]) => gw.evaluate({
      principalArn: worker.roleArn, action: d.action, resource: d.resource, accountId: ACCOUNT,
      identityPolicies: [{ name: 'WorkerPolicy', document: doc(keep as never) }], ...(d.context ? { context: d.context } : {}),
    });
    expect((await replay(statements)).allowed).toBe(true);
    expect((await replay(statements.filter((s) => s.Sid !== 'Send'))).allowed).toBe(false);
    expect((await replay(statements.filter((s) => s.Sid !== 'RunsRw'))).allowed).toBe(true);
  });
});
