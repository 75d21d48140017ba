/**
 * The triggers a template declares, driven the way the Lambda service drives them:
 * the SQS event source mapping (batch size, batching window, maximum concurrency,
 * ReportBatchItemFailures), asynchronous invokes with the function's retry count, and
 * S3 bucket notifications (prefix/suffix filters) detected from the gateway's recorded,
 * allowed `s3:PutObject` decisions and confirmed with HeadObject on s3rver.
 */
import { randomUUID } from 'node:crypto';
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { AirlessError } from '../engine/index.js';
import type { DeadLetter } from './gateway/index.js';
import type { RehearsalClock } from './clock.js';
import type { InvokeResult, RehearsalFunction } from './lambda.js';
import { REGION } from './template.js';

export interface EventSourceMappingSpec {
  function: RehearsalFunction;
  queueArn: string;
  localQueueUrl: string;
  batchSize: number;
  batchingWindowMs: number;
  maximumConcurrency: number;
  reportBatchItemFailures: boolean;
}

/** Polls one queue and invokes its function with batches, deleting what succeeded. */
export class SqsPoller {
  inFlight = 0;
  /** Set while the last receive came back empty and nothing is running. */
  idle = false;
  /**
   * When (performance.now()) the last receive that came back empty was sent: the queue was
   * empty after that moment. The warp jumps only after every poller looked again since the
   * stack went idle, so a message a jump (or a last send) made visible is never jumped over.
   */
  emptyAt = 0;
  batches = 0;
  private stopped = false;
  private loop?: Promise<void>;

  constructor(private readonly m: EventSourceMappingSpec, private readonly sqs: SQSClient, private readonly onError: (e: unknown) => void) {}

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.inFlight >= this.m.maximumConcurrency) {
        await pause(10);
        continue;
      }
      let messages;
      const sentAt = performance.now();
      try {
        const res = await this.sqs.send(new ReceiveMessageCommand({
          QueueUrl: this.m.localQueueUrl, MaxNumberOfMessages: Math.min(10, this.m.batchSize), WaitTimeSeconds: 0,
          AttributeNames: ['All'], MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'],
        }));
        messages = res.Messages ?? [];
      } catch (e) {
        if (!this.stopped) this.onError(e);
        await pause(100);
        continue;
      }
      if (messages.length === 0) {
        this.idle = this.inFlight === 0;
        this.emptyAt = sentAt;
        await pause(25);
        continue;
      }
      this.idle = false;
      this.inFlight++;
      this.batches++;
      void this.deliver(messages).catch(this.onError).finally(() => this.inFlight--);
    }
  }

  private async deliver(messages: Message[]): Promise<void> {
    const records = messages.map((msg) => ({
      messageId: msg.MessageId!,
      receiptHandle: msg.ReceiptHandle!,
      body: msg.Body,
      attributes: msg.Attributes ?? {},
      messageAttributes: Object.fromEntries(Object.entries(msg.MessageAttributes ?? {}).map(([k, v]) => [k, { stringValue: v.StringValue, dataType: v.DataType }])),
      md5OfBody: msg.MD5OfBody,
      eventSource: 'aws:sqs',
      eventSourceARN: this.m.queueArn,
      awsRegion: REGION,
    }));
    const r = await this.m.function.invoke({ Records: records });
    // An error or a timeout leaves the whole batch to return after the visibility timeout.
    if (!r.ok) return;
    const failed = new Set<string>();
    const resp = r.result as { batchItemFailures?: { itemIdentifier?: string }[] } | null;
    if (this.m.reportBatchItemFailures && resp && Array.isArray(resp.batchItemFailures)) {
      for (const f of resp.batchItemFailures) if (f.itemIdentifier) failed.add(f.itemIdentifier);
    }
    const done = records.filter((rec) => !failed.has(rec.messageId));
    if (done.length === 0) return;
    await this.sqs.send(new DeleteMessageBatchCommand({
      QueueUrl: this.m.localQueueUrl,
      Entries: done.map((rec, i) => ({ Id: String(i), ReceiptHandle: rec.receiptHandle })),
    }));
  }
}

/** Asynchronous (Event) invocations with the function's retries, 1 and 2 minutes apart as AWS spaces them. */
export class AsyncInvoker {
  private readonly due: { at: number; fn: RehearsalFunction; event: unknown; attempt: number; requestId: string; onDone?: (r: InvokeResult) => void }[] = [];
  running = 0;
  failures: { function: string; error: string }[] = [];
  /**
   * Called once per enqueued event when it is done: succeeded, or failed its last retry
   * (`attempts` counts every try). The Lambda service's destinations hang here.
   */
  onFinish?: (fn: RehearsalFunction, event: unknown, r: InvokeResult, attempts: number, requestId: string) => void;

  constructor(private readonly clock: RehearsalClock) {}

  /**
   * Queues an asynchronous invocation; `onDone` is called with its final outcome. `requestId`
   * is the id the Lambda service answered the Invoke with (its destinations' records carry it).
   */
  enqueue(fn: RehearsalFunction, event: unknown, o: { onDone?: (r: InvokeResult) => void; requestId?: string } = {}): void {
    this.due.push({ at: this.clock.now(), fn, event, attempt: 0, requestId: o.requestId ?? randomUUID(), ...(o.onDone ? { onDone: o.onDone } : {}) });
  }

  /** The next retry time, or null. */
  nextDue(): number | null {
    const later = this.due.filter((d) => d.at > this.clock.now()).map((d) => d.at);
    return later.length ? Math.min(...later) : null;
  }

  get pending(): number {
    return this.due.filter((d) => d.at <= this.clock.now()).length + this.running;
  }

  /** Starts every invocation that is due. */
  pump(): void {
    const now = this.clock.now();
    for (let i = this.due.length - 1; i >= 0; i--) {
      const d = this.due[i];
      if (d.at > now) continue;
      this.due.splice(i, 1);
      this.running++;
      void d.fn.invoke(d.event).then((r) => {
        if (!r.ok && d.attempt < d.fn.spec.asyncRetries) return void this.due.push({ ...d, at: this.clock.now() + 60_000 * (d.attempt + 1), attempt: d.attempt + 1 });
        if (!r.ok) this.failures.push({ function: d.fn.spec.logicalId, error: `${r.error?.errorType}: ${r.error?.errorMessage}` });
        try {
          this.onFinish?.(d.fn, d.event, r, d.attempt + 1, d.requestId);
          d.onDone?.(r);
        } catch (e) {
          this.failures.push({ function: d.fn.spec.logicalId, error: `after the invocation: ${(e as Error).message}` });
        }
      }).finally(() => this.running--);
    }
  }
}

export interface BucketNotification {
  bucket: string;
  function: RehearsalFunction;
  events: string[];
  prefix?: string;
  suffix?: string;
}

/** The S3 event a notification delivers. */
export function s3Event(bucket: string, key: string, size: number, eTag: string, now: number) {
  return {
    Records: [{
      eventVersion: '2.1', eventSource: 'aws:s3', awsRegion: REGION, eventTime: new Date(now).toISOString(),
      eventName: 'ObjectCreated:Put', userIdentity: { principalId: 'rehearsal' }, requestParameters: { sourceIPAddress: '127.0.0.1' },
      responseElements: {}, s3: {
        s3SchemaVersion: '1.0', configurationId: 'rehearsal', bucket: { name: bucket, ownerIdentity: { principalId: 'rehearsal' }, arn: `arn:aws:s3:::${bucket}` },
        // Keys arrive URL-encoded with '+' for spaces, as S3 sends them.
        object: { key: encodeURIComponent(key).replace(/%20/g, '+').replace(/%2F/g, '/'), size, eTag, sequencer: now.toString(16) },
      },
    }],
  };
}

/** Does an S3 key match a notification's filters? */
export function matchesNotification(n: BucketNotification, bucket: string, key: string): boolean {
  return n.bucket === bucket && (!n.prefix || key.startsWith(n.prefix)) && (!n.suffix || key.endsWith(n.suffix))
    && n.events.some((e) => e === 's3:ObjectCreated:*' || e === 's3:ObjectCreated:Put');
}

/** Waits until s3rver has the object (the decision is recorded before the request is forwarded). */
export async function headWhenStored(s3: S3Client, bucket: string, key: string): Promise<{ size: number; eTag: string } | undefined> {
  for (let i = 0; i < 50; i++) {
    try {
      const h = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return { size: h.ContentLength ?? 0, eTag: (h.ETag ?? '').replace(/"/g, '') };
    } catch {
      await pause(20);
    }
  }
  return undefined;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What the Lambda service answers a refused (throttled) invocation: retryable, as the Scheduler treats it. */
export function throttled(functionName: string): Error {
  return Object.assign(new Error(`Rate Exceeded. (the rehearsal refuses invocations of ${functionName})`), { name: 'TooManyRequestsException', retryable: true });
}

/** Sends a Scheduler dead-letter event to its queue on the local SQS server, attributes as String message attributes. */
export async function sendDeadLetter(sqs: SQSClient, resources: { queues: { arn: string; localUrl: string }[] }, d: DeadLetter): Promise<void> {
  const queue = resources.queues.find((q) => q.arn === d.queueArn);
  if (!queue) throw new AirlessError(`dead-letter queue ${d.queueArn} of schedule ${d.fire.group}/${d.fire.name} is not in the rehearsal`);
  await sqs.send(new SendMessageCommand({
    QueueUrl: queue.localUrl, MessageBody: d.body,
    MessageAttributes: Object.fromEntries(Object.entries(d.attributes).map(([k, v]) => [k, { DataType: 'String', StringValue: v }])),
  }));
}
