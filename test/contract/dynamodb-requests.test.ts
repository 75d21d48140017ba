/**
 * Transaction retry of the DynamoDB store's request layer, on a mocked client: DynamoDB
 * Local serializes transactions, so it never produces the TransactionConflict that real
 * DynamoDB returns under contention.
 */
import { DynamoDBClient, TransactWriteItemsCommand, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DynamoRequests } from '../../lib/adapters/aws/dynamo-requests.js';

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: codes.map((Code) => ({ Code })) });

describe('DynamoRequests.transact', () => {
  const ddb = mockClient(DynamoDBClient);
  afterEach(() => {
    ddb.reset();
    vi.useRealTimers();
  });

  it('retries conflicts with other transactions, then succeeds', async () => {
    vi.useFakeTimers();
    ddb.on(TransactWriteItemsCommand)
      .rejectsOnce(cancelled('TransactionConflict', 'None'))
      .rejectsOnce(cancelled('None', 'TransactionConflict'))
      .resolves({ ConsumedCapacity: [{ TableName: 't', CapacityUnits: 4, WriteCapacityUnits: 4 }] });
    const r = new DynamoRequests(new DynamoDBClient({ region: 'us-east-1' }));
    const done = r.transact([]);
    await vi.runAllTimersAsync();
    expect(await done).toEqual({ ok: true });
    expect(ddb.commandCalls(TransactWriteItemsCommand)).toHaveLength(3);
    expect(r.usage).toEqual({ requests: 3, wcu: 4, rcu: 0 });
  });

  it('returns condition failures at once, even mixed with conflicts', async () => {
    ddb.on(TransactWriteItemsCommand).rejects(cancelled('TransactionConflict', 'ConditionalCheckFailed'));
    const r = new DynamoRequests(new DynamoDBClient({ region: 'us-east-1' }));
    const res = await r.transact([]);
    expect(res).toMatchObject({ ok: false, reasons: [{ Code: 'TransactionConflict' }, { Code: 'ConditionalCheckFailed' }] });
    expect(ddb.commandCalls(TransactWriteItemsCommand)).toHaveLength(1);
  });

  it('gives up on endless conflicts with a retryable error', async () => {
    vi.useFakeTimers();
    ddb.on(TransactWriteItemsCommand).rejects(cancelled('TransactionConflict'));
    const r = new DynamoRequests(new DynamoDBClient({ region: 'us-east-1' }));
    const done = r.transact([]).catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    const err = (await done) as { retryable?: boolean; message: string };
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/TransactionConflict/);
    expect(ddb.commandCalls(TransactWriteItemsCommand)).toHaveLength(41);
  });
});
