import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { createSqsServer } from 'local-aws-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeClients } from '../../../lib/adapters/aws/clients.js';
import { CountingMetrics } from '../../../lib/adapters/aws/metrics.js';
import { SqsQueue, toDelaySeconds } from '../../../lib/adapters/aws/sqs-queue.js';
import { AirlessError } from '../../../lib/engine/index.js';
import { validateQueueMessage } from '../../../lib/engine/index.js';
import type { TaskMessage } from '../../../lib/engine/index.js';

let server: Server;
let sqs: SQSClient;
let n = 0;

beforeAll(async () => {
  server = await createSqsServer({ port: 0, emulateQueueCreationLifecycle: false });
  const { port } = server.address() as AddressInfo;
  sqs = makeClients({ endpoints: { sqs: `http://127.0.0.1:${port}` } }).sqs;
});

afterAll(async () => {
  sqs?.destroy();
  await new Promise((resolve) => server?.close(resolve));
});

afterEach(() => {
  vi.useRealTimers();
});

/** A fresh queue with a DLQ after `maxReceiveCount` receives. */
async function newQueue(maxReceiveCount = 3): Promise<{ url: string; dlqUrl: string }> {
  n += 1;
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `dlq-${n}` }));
  const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }));
  const q = await sqs.send(
    new CreateQueueCommand({
      QueueName: `ready-${n}`,
      Attributes: {
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: attrs.Attributes!.QueueArn, maxReceiveCount }),
      },
    }),
  );
  return { url: q.QueueUrl!, dlqUrl: dlq.QueueUrl! };
}

const msg = (i: number): TaskMessage => ({ kind: 'task', dagId: 'etl', runId: 'r1', taskId: `t${i}`, tryNumber: 1 });

function fakeTimers(): void {
  // local-aws-sqs runs delays and visibility on timers; the SDK's request path also
  // awaits short timers, so fake time also follows real time (a few ms per test) and the
  // assertions keep margins of hundreds of ms.
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
    shouldAdvanceTime: true,
  });
}

describe('SqsQueue on local-aws-sqs', () => {
  it('sends 25 messages in 3 batches and receives them all', async () => {
    const { url } = await newQueue();
    const metrics = new CountingMetrics();
    const queue = new SqsQueue({ client: sqs, queueUrl: url, metrics });
    await queue.send(Array.from({ length: 25 }, (_, i) => msg(i)));
    expect(queue.usage.requests).toBe(3);
    expect(queue.usage.sent).toBe(25);

    const got = await queue.receive(40, 30_000);
    expect(got).toHaveLength(25);
    const ids = got.map((d) => (validateQueueMessage(d.message) as TaskMessage).taskId).sort();
    expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => `t${i}`).sort());
    expect(got.every((d) => d.receiveCount === 1)).toBe(true);

    for (const d of got) await queue.ack(d);
    expect(await queue.receive(10, 0)).toEqual([]);
    expect(metrics.get('sqs.requests')).toBe(queue.usage.requests);
    expect(queue.usage.deleted).toBe(25);
  });

  it('ten sends made at once, as a worker finishing ten tasks makes them, go out in two requests, each message once', async () => {
    const { url } = await newQueue();
    const queue = new SqsQueue({ client: sqs, queueUrl: url });
    await Promise.all(Array.from({ length: 10 }, (_, i) => queue.send([msg(i)])));
    // The first goes alone; the nine made while it was in flight follow in one batch.
    expect(queue.usage.requests).toBe(2);
    const got = await queue.receive(20, 30_000);
    expect(got.map((d) => (validateQueueMessage(d.message) as TaskMessage).taskId).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `t${i}`).sort());
    // A send with another delay never shares a request with them: 20 goes alone, 21 alone, 22 after 20.
    const before = queue.usage.requests;
    await Promise.all([queue.send([msg(20)]), queue.send([msg(21)], { delayMs: 2000 }), queue.send([msg(22)])]);
    expect(queue.usage.requests - before).toBe(3);
  });

  it('delays a message by whole seconds', async () => {
    const { url } = await newQueue();
    const queue = new SqsQueue({ client: sqs, queueUrl: url });
    fakeTimers();
    await queue.send([msg(1)], { delayMs: 1_500 });
    expect(await queue.receive(10, 30_000)).toEqual([]);
    vi.advanceTimersByTime(1_000);
    expect(await queue.receive(10, 30_000)).toEqual([]);
    vi.advanceTimersByTime(1_100);
    const got = await queue.receive(10, 30_000);
    expect(got.map((d) => d.message)).toEqual([msg(1)]);
  });

  it('refuses a delay beyond 15 minutes without calling SQS', async () => {
    const { url } = await newQueue();
    const queue = new SqsQueue({ client: sqs, queueUrl: url });
    await expect(queue.send([msg(1)], { delayMs: 900_001 })).rejects.toThrow(/exceeds 15 minutes/);
    expect(queue.usage.requests).toBe(0);
    expect(toDelaySeconds(900_000)).toBe(900);
    expect(toDelaySeconds(-5)).toBe(0);
  });

  it('release makes a message visible again after the delay, counting receives', async () => {
    const { url } = await newQueue();
    const queue = new SqsQueue({ client: sqs, queueUrl: url });
    fakeTimers();
    await queue.send([msg(1)]);
    const [first] = await queue.receive(1, 30_000);
    expect(first.receiveCount).toBe(1);
    expect(await queue.receive(1, 30_000)).toEqual([]);
    await queue.release(first, 5_000);
    vi.advanceTimersByTime(4_000);
    expect(await queue.receive(1, 30_000)).toEqual([]);
    vi.advanceTimersByTime(1_100);
    const [second] = await queue.receive(1, 30_000);
    // Real SQS says 2; local-aws-sqs also counts the ChangeMessageVisibility call.
    expect(second.receiveCount).toBeGreaterThanOrEqual(2);
    expect(second.message).toEqual(msg(1));
  });

  it('moves a message to the DLQ after maxReceiveCount receives', async () => {
    const { url, dlqUrl } = await newQueue(2);
    const queue = new SqsQueue({ client: sqs, queueUrl: url });
    const dlq = new SqsQueue({ client: sqs, queueUrl: dlqUrl });
    fakeTimers();
    await queue.send([msg(7)]);
    for (let i = 1; i <= 2; i++) {
      const [d] = await queue.receive(1, 1_000);
      expect(d.receiveCount).toBe(i);
      vi.advanceTimersByTime(1_100); // visibility expires without an ack
    }
    expect(await queue.receive(1, 1_000)).toEqual([]);
    const dead = await dlq.receive(10, 1_000);
    expect(dead.map((d) => d.message)).toEqual([msg(7)]);
  });

  it('hands a body that is not JSON on as text, for the caller to reject', async () => {
    const { url } = await newQueue();
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'not json' }));
    const queue = new SqsQueue({ client: sqs, queueUrl: url });
    const [d] = await queue.receive(1, 30_000);
    expect(d.message).toBe('not json');
    expect(() => validateQueueMessage(d.message)).toThrow(/JSON object/);
  });
});

describe('SqsQueue partial batch failures (mocked SQS)', () => {
  it('retries failed entries once', async () => {
    const client = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const mock = mockClient(client);
    mock
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Successful: [], Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError' }] })
      .resolves({ Successful: [], Failed: [] });
    const queue = new SqsQueue({ client, queueUrl: 'https://sqs/q' });
    await queue.send([msg(0), msg(1), msg(2)], { delayMs: 10 });
    expect(mock).toHaveReceivedCommandTimes(SendMessageBatchCommand, 2);
    const retry = mock.commandCalls(SendMessageBatchCommand)[1].args[0].input;
    expect(retry.Entries).toEqual([{ Id: '1', MessageBody: JSON.stringify(msg(1)), DelaySeconds: 1 }]);
  });

  it('throws a retryable error when entries fail twice', async () => {
    const client = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    mockClient(client)
      .on(SendMessageBatchCommand)
      .resolves({ Successful: [], Failed: [{ Id: '0', SenderFault: false, Code: 'InternalError', Message: 'boom' }] });
    const queue = new SqsQueue({ client, queueUrl: 'https://sqs/q' });
    const err = await queue.send([msg(0)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AirlessError);
    expect((err as AirlessError).retryable).toBe(true);
    expect((err as Error).message).toMatch(/0: InternalError boom/);
  });
});
