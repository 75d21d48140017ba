/**
 * What the Lambda SQS event source does, in process: receive a batch, hand it to the
 * worker as an SQS event, delete what succeeded and leave the reported failures to
 * become visible again (and, after maxReceiveCount receives, to the redrive policy).
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

// The middy handler's declared result is the inner handler's; the middleware turns it into a batch response.
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<unknown>;

export interface BatchOutcome {
  received: number;
  failed: string[];
  /** Bodies of the failed records, for assertions. */
  failedBodies: string[];
}

/** A minimal Lambda context: the handlers read none of it, middy passes it through. */
export function lambdaContext(functionName: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false, functionName, functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024', awsRequestId: `req-${functionName}-${Math.trunc(performance.now() * 1000)}`,
    logGroupName: `/aws/lambda/${functionName}`, logStreamName: 'local',
    getRemainingTimeInMillis: () => 300_000, done: () => {}, fail: () => {}, succeed: () => {},
  };
}

/**
 * Receives up to 10 messages and invokes `handler` with them; returns undefined when the
 * queue had nothing visible.
 *
 * @example
 * while (await deliverBatch(sqs, queueUrl, worker.handler)) {}
 */
export async function deliverBatch(
  sqs: SQSClient,
  queueUrl: string,
  queueArn: string,
  handler: SqsHandler,
  opts: { visibilitySeconds?: number } = {},
): Promise<BatchOutcome | undefined> {
  const res = await sqs.send(new ReceiveMessageCommand({
    QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: opts.visibilitySeconds ?? 30,
    AttributeNames: ['All'], MessageSystemAttributeNames: ['All'],
  }));
  const messages = res.Messages ?? [];
  if (messages.length === 0) return undefined;
  const records: SQSRecord[] = messages.map((m) => ({
    messageId: m.MessageId!, receiptHandle: m.ReceiptHandle!, body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
      SentTimestamp: m.Attributes?.SentTimestamp ?? '0',
      SenderId: 'local', ApproximateFirstReceiveTimestamp: m.Attributes?.ApproximateFirstReceiveTimestamp ?? '0',
    },
    messageAttributes: {}, md5OfBody: m.MD5OfBody ?? '', eventSource: 'aws:sqs', eventSourceARN: queueArn, awsRegion: 'us-east-1',
  }));
  const out = ((await handler({ Records: records }, lambdaContext('worker'))) ?? { batchItemFailures: [] }) as SQSBatchResponse;
  const failed = new Set(out.batchItemFailures.map((f) => f.itemIdentifier));
  const done = records.filter((r) => !failed.has(r.messageId));
  if (done.length > 0) {
    await sqs.send(new DeleteMessageBatchCommand({
      QueueUrl: queueUrl, Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
    }));
  }
  return {
    received: records.length,
    failed: [...failed],
    failedBodies: records.filter((r) => failed.has(r.messageId)).map((r) => r.body),
  };
}
