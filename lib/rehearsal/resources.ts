/**
 * Creates the stack's data resources on the local servers from their CloudFormation
 * resources: DynamoDB tables (keys, GSIs and LSIs with projections, TTL), SQS queues
 * (visibility timeout, retention, delay, redrive to the DLQ with maxReceiveCount), and
 * S3 buckets. Properties the local servers cannot model (encryption, PITR, versioning,
 * deletion protection) are ignored; docs/rehearsal.md lists them.
 */
import { CreateTableCommand, DeleteTableCommand, ResourceNotFoundException, UpdateTimeToLiveCommand, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { makeClients } from '../adapters/aws/clients.js';
import type { LocalServers } from './servers.js';
import type { StackTemplate } from './template.js';

export interface CreatedResources {
  tables: string[];
  queues: { logicalId: string; name: string; arn: string; localUrl: string; visibilityTimeoutS: number }[];
  buckets: string[];
}

/**
 * @example
 * const created = await createResources(template, servers, { ttl: true });
 *
 * `ttl: false` leaves TTL off. DynamoDB Local deletes expired items by its own (real)
 * clock, within seconds; the deployed code computes expiry from the rehearsal's clock. A
 * rehearsal that starts in the past (scenarios start on 2026-01-01) would see XCom, runs
 * and signals written a moment ago vanish at random: the readme scenario's "known flake"
 * (a cleared task found its upstream's XCom gone). A clock ahead of real time only makes
 * items expire late, as AWS's TTL does anyway.
 */
export async function createResources(t: StackTemplate, servers: LocalServers, opts: { ttl?: boolean } = {}): Promise<CreatedResources> {
  const c = makeClients({ endpoints: { dynamodb: servers.dynamodb, sqs: servers.sqs, s3: servers.s3 } });
  const out: CreatedResources = { tables: [], queues: [], buckets: [] };

  for (const [id] of t.ofType('AWS::DynamoDB::Table')) {
    const p = t.props(id) as Record<string, any>;
    const name = t.physicalName(id);
    const input: CreateTableCommandInput = {
      TableName: name,
      AttributeDefinitions: p.AttributeDefinitions,
      KeySchema: p.KeySchema,
      BillingMode: 'PAY_PER_REQUEST',
      ...(p.GlobalSecondaryIndexes?.length ? { GlobalSecondaryIndexes: p.GlobalSecondaryIndexes.map((g: any) => ({ IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection })) } : {}),
      ...(p.LocalSecondaryIndexes?.length ? { LocalSecondaryIndexes: p.LocalSecondaryIndexes } : {}),
    };
    // A shared DynamoDB Local (tests) may hold the tables of an earlier rehearsal: start empty.
    await c.dynamodb.send(new DeleteTableCommand({ TableName: name })).catch((e) => {
      if (!(e instanceof ResourceNotFoundException)) throw e;
    });
    await c.dynamodb.send(new CreateTableCommand(input));
    const ttl = p.TimeToLiveSpecification as { AttributeName?: string; Enabled?: boolean } | undefined;
    if (opts.ttl !== false && ttl?.Enabled && ttl.AttributeName) {
      await c.dynamodb.send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: { AttributeName: ttl.AttributeName, Enabled: true } }));
    }
    out.tables.push(name);
  }

  // Dead-letter queues first: a redrive policy must name an existing queue.
  const queues = t.ofType('AWS::SQS::Queue').sort(([a], [b]) => Number(!!t.resource(a).Properties?.RedrivePolicy) - Number(!!t.resource(b).Properties?.RedrivePolicy));
  for (const [id] of queues) {
    const p = t.props(id) as Record<string, any>;
    const name = t.physicalName(id);
    const attrs: Record<string, string> = {};
    for (const k of ['VisibilityTimeout', 'MessageRetentionPeriod', 'DelaySeconds', 'MaximumMessageSize', 'ReceiveMessageWaitTimeSeconds']) {
      if (p[k] !== undefined) attrs[k] = String(p[k]);
    }
    if (p.RedrivePolicy) attrs.RedrivePolicy = JSON.stringify(p.RedrivePolicy);
    const res = await c.sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attrs }));
    out.queues.push({ logicalId: id, name, arn: t.getAtt(id, 'Arn'), localUrl: res.QueueUrl!, visibilityTimeoutS: Number(p.VisibilityTimeout ?? 30) });
  }

  for (const [id] of t.ofType('AWS::S3::Bucket')) {
    const name = t.physicalName(id);
    await c.s3.send(new CreateBucketCommand({ Bucket: name }));
    out.buckets.push(name);
  }
  for (const client of Object.values(c)) client.destroy();
  return out;
}
