/** The AssetStore contract on the memory store and on DynamoDB Local (started by test/setup/global.ts). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, inject } from 'vitest';
import { createTables } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { MemoryStore } from '../../lib/adapters/memory/store.js';
import { LOCAL_AWS } from '../../lib/runtime/dynamodb-local.js';
import { assetStoreContract } from './asset-store.contract.js';

assetStoreContract('memory', async () => new MemoryStore());

const endpoint = inject('dynamodbEndpoint');
const client = new DynamoDBClient({ endpoint: endpoint || 'http://127.0.0.1:1', ...LOCAL_AWS });
afterAll(() => client.destroy());
let n = 0;

describe.skipIf(!endpoint)('on DynamoDB Local', () => {
  assetStoreContract('dynamodb', async () => {
    const tablePrefix = `a${process.pid}-${n++}-`;
    await createTables(client, tablePrefix, {}, { ttl: false });
    return new DynamoStore({ client, tablePrefix });
  });
});
