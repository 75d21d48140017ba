/**
 * The worker invocation's queue (lib/adapters/aws/invocation-queue.ts): follow-up sends of
 * a batch's records go out together once every record still running waits on one, and a
 * send returns only after its message was sent.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvocationQueue } from '../../../lib/adapters/aws/invocation-queue.js';
import type { Queue, QueueMessage, TaskMessage } from '../../../lib/engine/index.js';

const msg = (i: number): TaskMessage => ({ kind: 'task', dagId: 'etl', runId: `r${i}`, taskId: 't', tryNumber: 1 });

function recording(): Queue & { calls: Array<{ messages: QueueMessage[]; delayMs?: number }> } {
  const calls: Array<{ messages: QueueMessage[]; delayMs?: number }> = [];
  return { calls, send: async (messages, opts) => { calls.push({ messages: [...messages], delayMs: opts?.delayMs }); } };
}

describe('InvocationQueue', () => {
  afterEach(() => vi.useRealTimers());

  it('holds the sends of a batch until every running record waits on one, then sends them in one call', async () => {
    const inner = recording();
    const q = new InvocationQueue(inner, 3);
    let sent = 0;
    const a = q.send([msg(1)]).then(() => sent++);
    const b = q.send([msg(2)]).then(() => sent++);
    await Promise.resolve();
    expect(inner.calls).toHaveLength(0);
    expect(sent).toBe(0);
    // The third record finishes without a follow-up: the two others go now.
    q.done();
    await Promise.all([a, b]);
    expect(inner.calls).toEqual([{ messages: [msg(1), msg(2)], delayMs: undefined }]);
    expect(sent).toBe(2);
  });

  it('sends at once for a lone record, and passes delayed sends straight through', async () => {
    const inner = recording();
    const one = new InvocationQueue(inner, 1);
    await one.send([msg(1)]);
    const many = new InvocationQueue(inner, 5);
    await many.send([msg(2)], { delayMs: 30_000 });
    expect(inner.calls).toEqual([{ messages: [msg(1)], delayMs: undefined }, { messages: [msg(2)], delayMs: 30_000 }]);
  });

  it('does not wait for a record busy with a long task: the waiting sends go after the linger', async () => {
    vi.useFakeTimers();
    const inner = recording();
    const q = new InvocationQueue(inner, 2, 10);
    const a = q.send([msg(1)]);
    await vi.advanceTimersByTimeAsync(9);
    expect(inner.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    await a;
    expect(inner.calls).toHaveLength(1);
  });

  it('fails every waiting send when their request fails', async () => {
    const q = new InvocationQueue({ send: async () => { throw new Error('SQS down'); } }, 2);
    const results = await Promise.allSettled([q.send([msg(1)]), q.send([msg(2)])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
