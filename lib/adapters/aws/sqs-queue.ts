/**
 * The ready queue on SQS (standard queue with a DLQ through its redrive policy).
 * Messages are validated and encoded with the engine's wire format on send; on receive
 * the raw parsed body is handed back and the caller validates it, so a poison message
 * can be acknowledged or left to the redrive policy by whoever understands it.
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { AirlessError } from '../../engine/index.js';
import { wrapAwsError } from './aws-errors.js';
import { Coalescer } from '../coalesce.js';
import { encodeQueueMessage } from '../../engine/index.js';
import type { Delivery, Metrics, QueueMessage, ReceivingQueue } from '../../engine/index.js';

/** SQS limits. */
export const SQS_MAX_BATCH = 10;
export const SQS_MAX_DELAY_MS = 900_000;
/** Total payload of one SendMessageBatch (the per-queue maximum may be higher; this is the safe floor). */
const SQS_MAX_BATCH_BYTES = 256 * 1024;
const SQS_MAX_VISIBILITY_S = 43_200;

export interface SqsQueueOptions {
  client: SQSClient;
  queueUrl: string;
  metrics?: Metrics;
}

/** Requests made so far, for benchmarks and cost estimates. */
export interface SqsUsage {
  requests: number;
  sent: number;
  received: number;
  deleted: number;
  released: number;
}

/**
 * {@link ReceivingQueue} on SQS.
 *
 * @example
 * const queue = new SqsQueue({ client: new SQSClient({}), queueUrl: process.env.READY_QUEUE_URL! });
 * await queue.send([{ kind: 'task', dagId: 'etl', runId: 'r1', taskId: 'extract', tryNumber: 1 }]);
 */
export class SqsQueue implements ReceivingQueue {
  readonly usage: SqsUsage = { requests: 0, sent: 0, received: 0, deleted: 0, released: 0 };
  private readonly client: SQSClient;
  private readonly queueUrl: string;
  private readonly metrics?: Metrics;
  private readonly sends = new Coalescer<string, void>();

  constructor(opts: SqsQueueOptions) {
    this.client = opts.client;
    this.queueUrl = opts.queueUrl;
    this.metrics = opts.metrics;
  }

  /**
   * Sends messages in batches of up to ten. Sends made while one with the same delay is in
   * flight go out together in the next request (coalesce.ts): a worker that finishes ten
   * tasks at once sends their follow-ups in one or two requests instead of ten. Each call
   * returns once its own messages are sent.
   */
  async send(messages: readonly QueueMessage[], opts: { delayMs?: number } = {}): Promise<void> {
    if (messages.length === 0) return;
    const delaySeconds = toDelaySeconds(opts.delayMs ?? 0);
    const bodies = messages.map((m) => encodeQueueMessage(m));
    await this.sends.run(String(delaySeconds), bodies, async (all) => {
      for (const batch of batches(all)) await this.sendBatch(batch, delaySeconds);
    });
    this.usage.sent += messages.length;
  }

  async receive(max: number, visibilityMs: number): Promise<Delivery[]> {
    const out: Delivery[] = [];
    const visibility = clampSeconds(visibilityMs, SQS_MAX_VISIBILITY_S);
    while (out.length < max) {
      const want = Math.min(SQS_MAX_BATCH, max - out.length);
      const command = new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: want,
        VisibilityTimeout: visibility,
        WaitTimeSeconds: 0,
        // local-aws-sqs only returns ApproximateReceiveCount when 'All' is asked for as well.
        AttributeNames: ['All'],
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      });
      const res = await this.request('ReceiveMessage', () => this.client.send(command));
      const got = res.Messages ?? [];
      for (const m of got) {
        if (m.ReceiptHandle === undefined) continue;
        out.push({
          message: parseBody(m.Body ?? ''),
          receiptHandle: m.ReceiptHandle,
          receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
        });
      }
      // A short answer means the queue is (momentarily) drained; with WaitTimeSeconds 0
      // SQS may also sample few servers, which the next receive call covers.
      if (got.length < want) break;
    }
    this.usage.received += out.length;
    return out;
  }

  async ack(d: Delivery): Promise<void> {
    await this.request('DeleteMessage', () =>
      this.client.send(new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle: d.receiptHandle })),
    );
    this.usage.deleted += 1;
  }

  async release(d: Delivery, delayMs: number): Promise<void> {
    const command = new ChangeMessageVisibilityCommand({
      QueueUrl: this.queueUrl,
      ReceiptHandle: d.receiptHandle,
      VisibilityTimeout: clampSeconds(delayMs, SQS_MAX_VISIBILITY_S),
    });
    await this.request('ChangeMessageVisibility', () => this.client.send(command));
    this.usage.released += 1;
  }

  private async sendBatch(bodies: readonly string[], delaySeconds: number): Promise<void> {
    let entries: SendMessageBatchRequestEntry[] = bodies.map((body, i) => ({
      Id: String(i),
      MessageBody: body,
      DelaySeconds: delaySeconds,
    }));
    // Partial failures are retried once; a second failure goes back to the caller as
    // retryable, so the reconcile tick (or the Lambda retry) picks the work up again.
    for (let attempt = 1; ; attempt++) {
      const batch = entries;
      const res = await this.request('SendMessageBatch', () =>
        this.client.send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: batch })),
      );
      const failed = res.Failed ?? [];
      if (failed.length === 0) return;
      if (attempt >= 2) {
        const detail = failed.map((f) => `${f.Id}: ${f.Code ?? '?'} ${f.Message ?? ''}`.trim()).join('; ');
        throw new AirlessError(`SQS SendMessageBatch failed for ${failed.length} message(s): ${detail}`, {
          retryable: true,
        });
      }
      const failedIds = new Set(failed.map((f) => f.Id));
      entries = entries.filter((e) => failedIds.has(e.Id));
    }
  }

  private async request<T>(op: string, send: () => Promise<T>): Promise<T> {
    this.usage.requests += 1;
    this.metrics?.count('sqs.requests');
    try {
      return await send();
    } catch (cause) {
      throw wrapAwsError(`SQS ${op} on ${this.queueUrl}`, cause);
    }
  }
}

/** `ceil(ms / 1000)`; SQS cannot delay a message by more than 15 minutes: longer waits belong to the timer. */
export function toDelaySeconds(delayMs: number): number {
  if (!Number.isFinite(delayMs)) throw new AirlessError(`SQS delay must be a finite number, got ${delayMs}`);
  if (delayMs > SQS_MAX_DELAY_MS) {
    throw new AirlessError(
      `SQS delay of ${delayMs} ms exceeds 15 minutes (${SQS_MAX_DELAY_MS} ms); schedule it with the Timer instead`,
    );
  }
  return Math.max(0, Math.ceil(delayMs / 1000));
}

function clampSeconds(ms: number, maxSeconds: number): number {
  return Math.min(maxSeconds, Math.max(0, Math.ceil(ms / 1000)));
}

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    // Hand the raw text on: the caller's validation rejects it with a precise message.
    return body;
  }
}

/** Groups bodies into SendMessageBatch calls by count and total size. */
function* batches(bodies: readonly string[]): Generator<string[]> {
  let current: string[] = [];
  let bytes = 0;
  for (const body of bodies) {
    const size = Buffer.byteLength(body, 'utf8');
    if (current.length > 0 && (current.length === SQS_MAX_BATCH || bytes + size > SQS_MAX_BATCH_BYTES)) {
      yield current;
      current = [];
      bytes = 0;
    }
    current.push(body);
    bytes += size;
  }
  if (current.length > 0) yield current;
}
