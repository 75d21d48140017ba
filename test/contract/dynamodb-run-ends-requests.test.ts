/**
 * The run-end counts' requests on DynamoDB (lib/adapters/aws/dynamo-run-ends.ts), on a
 * mocked client: the exact UpdateItem of a count (kv item, number sets, one outcome per
 * request, the item's TTL), and that counts arriving while one is in flight go out
 * together in the next request (DynamoDB Local answers too fast to show it reliably).
 */
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoRequests } from '../../lib/adapters/aws/dynamo-requests.js';
import { DynamoRunEnds } from '../../lib/adapters/aws/dynamo-run-ends.js';

const run = { dagId: 'wide', runId: 'r1' };
/** Lets the SDK's middleware stack reach the mocked send (a few turns of the event loop, no time). */
const flush = async () => { for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r)); };
const shardPk = 'e:["wide","r1",0]';

describe('DynamoDB run-end counts: requests', () => {
  const ddb = mockClient(DynamoDBClient);
  afterEach(() => ddb.reset());

  it('counts with one UpdateItem per outcome on the shard item: ADD to one set, DELETE from the other, TTL set', async () => {
    ddb.on(UpdateItemCommand).resolves({ Attributes: { ok: { NS: ['3'] }, failed: { NS: ['4'] } }, ConsumedCapacity: { TableName: 'kv', CapacityUnits: 1 } });
    const ends = new DynamoRunEnds(new DynamoRequests(new DynamoDBClient({ region: 'us-east-1' })), 'kv');
    const shard = await ends.countRunEnds(run, 0, [{ index: 3, failed: false }, { index: 4, failed: true }], 1_800_000_000);
    expect(shard).toEqual({ ok: [3], failed: [4] });
    const inputs = ddb.commandCalls(UpdateItemCommand).map((c) => c.args[0].input);
    expect(inputs).toEqual([
      {
        TableName: 'kv', Key: { pk: { S: shardPk } },
        UpdateExpression: 'SET #n0 = :v1 ADD #n1 :v0 DELETE #n2 :v0',
        ExpressionAttributeNames: { '#n0': 'ttl', '#n1': 'ok', '#n2': 'failed' },
        ExpressionAttributeValues: { ':v0': { NS: ['3'] }, ':v1': { N: '1800000000' } },
        ReturnValues: 'ALL_NEW', ReturnConsumedCapacity: 'TOTAL',
      },
      expect.objectContaining({
        UpdateExpression: 'SET #n0 = :v1 ADD #n1 :v0 DELETE #n2 :v0',
        ExpressionAttributeNames: { '#n0': 'ttl', '#n1': 'failed', '#n2': 'ok' },
        ExpressionAttributeValues: { ':v0': { NS: ['4'] }, ':v1': { N: '1800000000' } },
      }),
    ]);
  });

  it('sends counts that arrive while one is in flight in one request after it', async () => {
    const release: Array<() => void> = [];
    ddb.on(UpdateItemCommand).callsFake(async (input: { ExpressionAttributeValues: Record<string, { NS?: string[] }> }) => {
      await new Promise<void>((r) => release.push(r));
      return { Attributes: { ok: { NS: Object.values(input.ExpressionAttributeValues).flatMap((v) => v.NS ?? []) } } };
    });
    const ends = new DynamoRunEnds(new DynamoRequests(new DynamoDBClient({ region: 'us-east-1' })), 'kv');
    const first = ends.countRunEnds(run, 0, [{ index: 1, failed: false }]);
    await flush();
    const rest = [2, 3, 4].map((i) => ends.countRunEnds(run, 0, [{ index: i, failed: false }]));
    await flush();
    expect(ddb.commandCalls(UpdateItemCommand)).toHaveLength(1);
    release.shift()!();
    expect(await first).toEqual({ ok: [1], failed: [] });
    await flush();
    const calls = ddb.commandCalls(UpdateItemCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.args[0].input.ExpressionAttributeValues).toEqual({ ':v0': { NS: ['2', '3', '4'] } });
    release.shift()!();
    for (const r of await Promise.all(rest)) expect(r).toEqual({ ok: [2, 3, 4], failed: [] });
  });
});
