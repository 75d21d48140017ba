/**
 * The store an engine suite runs on, chosen by its vitest project: `AIRLESS_TEST_STORE`
 * is `memory` (the default) or `dynamodb` (DynamoDB Local, started once by
 * test/setup/global.ts; each store gets fresh tables, which DynamoDB Local creates in a
 * few milliseconds).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { MemoryStore } from '../../lib/adapters/memory/store.js';
import type { Store } from '../../lib/engine/index.js';

export type TestStoreKind = 'memory' | 'dynamodb';

/** The store kind of this vitest project. */
export const STORE_KIND: TestStoreKind = process.env.AIRLESS_TEST_STORE === 'dynamodb' ? 'dynamodb' : 'memory';
export const onDynamo = STORE_KIND === 'dynamodb';

let client: DynamoDBClient | undefined;
let n = 0;

/** A fresh, empty store of this project's kind. */
export async function testStore(): Promise<Store> {
  if (!onDynamo) return new MemoryStore();
  const endpoint = inject('dynamodbEndpoint');
  if (!endpoint) throw new Error('AIRLESS_TEST_STORE=dynamodb but DynamoDB Local is not running (no Java or jar)');
  // Loaded here, not at the top: the DynamoDB client and store cost every engine suite of the
  // fast project, which never uses them, about 0.2 s of import (median of six, under load).
  const [{ DynamoDBClient }, { MemoryBlobStore }, { createTables }, { DynamoStore }, { LOCAL_AWS }] = await Promise.all([
    import('@aws-sdk/client-dynamodb'),
    import('../../lib/adapters/aws/blob.js'),
    import('../../lib/adapters/aws/dynamo-schema.js'),
    import('../../lib/adapters/aws/dynamo-store.js'),
    import('../../lib/runtime/dynamodb-local.js'),
  ]);
  client ??= new DynamoDBClient({ endpoint, ...LOCAL_AWS });
  const tablePrefix = `e${process.pid}-${n++}-`;
  // No TTL: the suites' virtual clock stands in 2026-01, and DynamoDB Local's TTL sweep (on
  // real time) would delete signals and XComs whose virtual expiry is long past, mid-test.
  await createTables(client, tablePrefix, {}, { ttl: false });
  return new DynamoStore({ client, tablePrefix, blobs: new MemoryBlobStore() });
}

export { holdClockDuringCalls } from '../../lib/adapters/clock.js';
