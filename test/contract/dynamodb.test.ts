/**
 * The Store contract on DynamoDB Local (started once by test/setup/global.ts), plus
 * what only the DynamoDB adapter does: blob offload, size refusal, corrupt items,
 * request and capacity accounting.
 */
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { MemoryBlobStore } from '../../lib/adapters/aws/blob.js';
import { CorruptItemError } from '../../lib/adapters/aws/dynamo-codec.js';
import { createTables, tableNames } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { OversizedValueError } from '../../lib/engine/index.js';
import type { Metrics } from '../../lib/engine/index.js';
import { LOCAL_AWS } from '../../lib/runtime/dynamodb-local.js';
import { T0, bigValue, dag, run, task } from './fixtures.js';
import { storeContract } from './store.contract.js';
import { runEndsContract } from './run-ends.contract.js';
import { runSlotsContract } from './run-slots.contract.js';
import { backfillStoreContract } from './backfill-store.contract.js';
import { pokerStateContract } from './poker-state.contract.js';
import { prevSuccessContract } from './prev-success.contract.js';
import { auditLogContract } from './audit-log.contract.js';
import { runDeleteContract } from './run-delete.contract.js';
import { keptEventsContract } from './kept-events.contract.js';

const endpoint = inject('dynamodbEndpoint');
if (!endpoint) console.warn('[airless] DynamoDB Local is not running (no Java or jar): skipping the DynamoDB store contract');

const client = new DynamoDBClient({ endpoint: endpoint || 'http://127.0.0.1:1', ...LOCAL_AWS });
afterAll(() => client.destroy());

let n = 0;
/** A fresh set of tables per test: DynamoDB Local creates them in a few milliseconds. */
async function freshPrefix(): Promise<string> {
  const prefix = `c${process.pid}-${n++}-`;
  // No TTL: the contract's dates (2025) are past for DynamoDB Local's real-time TTL sweep.
  await createTables(client, prefix, {}, { ttl: false });
  return prefix;
}

describe.skipIf(!endpoint)('DynamoDB store', () => {
  storeContract('dynamodb', async () => new DynamoStore({ client, tablePrefix: await freshPrefix(), blobs: new MemoryBlobStore() }));
  runEndsContract('dynamodb', async () => new DynamoStore({ client, tablePrefix: await freshPrefix() }));
  runSlotsContract('dynamodb', async () => new DynamoStore({ client, tablePrefix: await freshPrefix() }));
  backfillStoreContract('dynamodb', async () => new DynamoStore({ client, tablePrefix: await freshPrefix(), blobs: new MemoryBlobStore() }));
  pokerStateContract('dynamodb', async () => new DynamoStore({ client, tablePrefix: await freshPrefix(), blobs: new MemoryBlobStore() }));
  prevSuccessContract('dynamodb', async () => new DynamoStore({ client, tablePrefix: await freshPrefix(), blobs: new MemoryBlobStore() }));
  auditLogContract('dynamodb', async () => new DynamoStore({ client, tablePrefix: await freshPrefix(), blobs: new MemoryBlobStore() }));
  runDeleteContract('dynamodb', async () => new DynamoStore({ client, tablePrefix: await freshPrefix(), blobs: new MemoryBlobStore() }));
  keptEventsContract('dynamodb', async () => new DynamoStore({ client, tablePrefix: await freshPrefix(), blobs: new MemoryBlobStore() }));

  describe('DynamoDB adapter specifics', () => {
    let prefix: string;
    beforeEach(async () => {
      prefix = await freshPrefix();
    });

    it('takes a run slot on a DAG item written before the slot map existed', async () => {
      const store = new DynamoStore({ client, tablePrefix: prefix });
      await store.putDag(dag('old'));
      // An item as stores before issue 22 wrote it: no `slots` map, a transactional counter.
      await client.send(new PutItemCommand({ TableName: tableNames(prefix).dags, Item: { dagId: { S: 'old' }, bundleVersion: { S: 'v1' }, paused: { BOOL: false }, updatedAt: { N: '1' }, activeRuns: { N: '3' } } }));
      expect(await store.takeRunSlot('old', 'r1', 1, T0)).toBe('taken');
      expect(await store.takeRunSlot('old', 'r2', 1, T0)).toBe('full');
      expect(await store.getDag('old')).toMatchObject({ activeRuns: 1, runSlots: { r1: T0 } });
      expect(await store.releaseRunSlot('old', 'r1')).toBe(0);
      expect((await store.getDag('old'))!.activeRuns).toBeUndefined();
    });

    it('offloads large XCom and run conf to the blob store and stores a pointer', async () => {
      const blobs = new MemoryBlobStore();
      const store = new DynamoStore({ client, tablePrefix: prefix, blobs });
      const xk = { dagId: 'd', runId: 'r', taskId: 't', key: 'big' };
      await store.putXcom(xk, bigValue(400_000));
      await store.createRun(run('d', 'r', { conf: bigValue(360_000) }));
      expect([...blobs.blobs.keys()].sort()).toEqual(['conf/d/r', 'xcom/d/r/t/big']);
      expect(await store.getXcom(xk)).toEqual(bigValue(400_000));
      expect((await store.getRun('d', 'r'))!.conf).toEqual(bigValue(360_000));
    });

    it('refuses an oversized value without a blob store, with a clear error', async () => {
      const store = new DynamoStore({ client, tablePrefix: prefix });
      const err = await store.putXcom({ dagId: 'd', runId: 'r', taskId: 't', key: 'k' }, bigValue(400_000)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OversizedValueError);
      expect((err as Error).message).toMatch(/XCom d\/r\/t\/k is \d+ bytes.*400 KB/);
      await store.putXcom({ dagId: 'd', runId: 'r', taskId: 't', key: 'small' }, bigValue(1000));
    });

    it('rejects an item with an unknown state read from storage', async () => {
      const store = new DynamoStore({ client, tablePrefix: prefix });
      await client.send(
        new PutItemCommand({
          TableName: tableNames(prefix).tasks,
          Item: { runKey: { S: 'd/r' }, taskId: { S: 't' }, dagId: { S: 'd' }, runId: { S: 'r' }, state: { S: 'bogus' }, tryNumber: { N: '0' } },
        }),
      );
      const err = await store.getTask({ dagId: 'd', runId: 'r', taskId: 't' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CorruptItemError);
      expect((err as Error).message).toMatch(/d\/r\/t.*bogus/);
      await client.send(
        new PutItemCommand({ TableName: tableNames(prefix).runs, Item: { dagId: { S: 'd' }, runId: { S: 'r' }, state: { S: 'weird' } } }),
      );
      await expect(store.getRun('d', 'r')).rejects.toThrow(CorruptItemError);
    });

    it('counts requests, capacity and lost races', async () => {
      const counts = new Map<string, number>();
      const metrics: Metrics = { count: (k, v = 1) => void counts.set(k, (counts.get(k) ?? 0) + v), timing: () => {} };
      const store = new DynamoStore({ client, tablePrefix: prefix, metrics });
      await store.putTask(task('d', 'r', 't', { state: 'queued', tryNumber: 1, dueAt: T0 }));
      await store.updateTask({ dagId: 'd', runId: 'r', taskId: 't' }, { state: 'running' }, { state: 'success' });
      await store.getTask({ dagId: 'd', runId: 'r', taskId: 't' });
      expect(store.usage.requests).toBe(3);
      expect(counts.get('dynamodb.requests')).toBe(3);
      expect(counts.get('store.lost_race')).toBe(1);
      expect(store.usage.wcu).toBeGreaterThanOrEqual(1);
      expect(store.usage.rcu).toBeGreaterThan(0);
      expect(counts.get('dynamodb.wcu')).toBe(store.usage.wcu);
    });

    it('lets XCom expire with its run (ttl on the item) and keeps the DAG spec apart from the DAG item', async () => {
      const store = new DynamoStore({ client, tablePrefix: prefix });
      await store.putXcom({ dagId: 'd', runId: 'r', taskId: 't', key: 'k' }, 1, 1_900_000_000);
      const x = await client.send(new GetItemCommand({ TableName: tableNames(prefix).kv, Key: { pk: { S: 'x:["d","r","t","k"]' } } }));
      expect(x.Item?.['ttl']).toEqual({ N: '1900000000' });
      await store.putDag(dag('d'));
      const raw = await client.send(new GetItemCommand({ TableName: tableNames(prefix).dags, Key: { dagId: { S: 'd' } } }));
      expect(raw.Item).not.toHaveProperty('spec');
      expect((await store.getDag('d'))!.spec).toEqual(dag('d').spec);
    });

    it('lets a poke claim expire (ttl on the p: item) and keeps the cycle condition', async () => {
      const store = new DynamoStore({ client, tablePrefix: prefix });
      expect(await store.claimPoke('h', 5, 1_900_000_000)).toBe(true);
      const raw = await client.send(new GetItemCommand({ TableName: tableNames(prefix).kv, Key: { pk: { S: 'p:h' } } }));
      expect(raw.Item).toMatchObject({ cycle: { N: '5' }, ttl: { N: '1900000000' } });
      expect(await store.claimPoke('h', 5, 1_900_000_060)).toBe(false);
    });

    it('keeps a terminal task out of the due index and its dueShard key out of the record', async () => {
      const store = new DynamoStore({ client, tablePrefix: prefix });
      const r = await store.putTask(task('d', 'r', 't', { state: 'success', dueAt: T0 }));
      expect(r).toMatchObject({ ok: true });
      expect(r.ok && r.item).not.toHaveProperty('dueAt');
      expect(await store.getTask({ dagId: 'd', runId: 'r', taskId: 't' })).toEqual(task('d', 'r', 't', { state: 'success' }));
    });
  });
});
