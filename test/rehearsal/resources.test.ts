/**
 * Tables from the template on DynamoDB Local: TTL only when asked. DynamoDB Local expires
 * items by the real clock within seconds, so a rehearsal whose clock is behind real time
 * (the scenarios) must leave it off, or fresh XCom and runs vanish at random.
 */
import { DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { createResources } from '../../lib/rehearsal/resources.js';
import { StackTemplate } from '../../lib/rehearsal/template.js';

const endpoint = inject('dynamodbEndpoint');
const name = `rehearsal-ttl-${process.pid}`;
const template = new StackTemplate('S', {
  Resources: {
    T: {
      Type: 'AWS::DynamoDB::Table',
      Properties: {
        TableName: name, KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      },
    },
  },
}, '/nowhere');

describe.skipIf(!endpoint)('createResources', () => {
  it('turns the template\'s TTL on, or leaves it off when the rehearsal\'s clock is behind real time', async () => {
    const servers = { dynamodb: endpoint!, sqs: 'http://127.0.0.1:9', s3: 'http://127.0.0.1:9' } as Parameters<typeof createResources>[1];
    const ddb = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'x' } });
    const status = async () => (await ddb.send(new DescribeTimeToLiveCommand({ TableName: name }))).TimeToLiveDescription?.TimeToLiveStatus;
    try {
      await createResources(template, servers, { ttl: true });
      expect(await status()).toBe('ENABLED');
      await createResources(template, servers, { ttl: false });
      expect(await status()).toBe('DISABLED');
    } finally {
      ddb.destroy();
    }
  }, 30_000);
});
