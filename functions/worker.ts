/**
 * Worker: runs the messages of an SQS batch (task tries, timer fires, schedule ticks)
 * concurrently, one record handler per message, through Powertools' batch processor.
 * A record that fails with a retryable error (or a malformed body, which must reach the
 * dead-letter queue) is reported as a batch item failure, so SQS redelivers it; an error
 * marked not retryable is logged and acknowledged, since redelivery cannot help.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { AirlessError, MalformedMessageError, handleMessage, parseQueueMessage, type Ports } from '../lib/engine/index.js';
import { flushMetrics, lambdaPorts } from '../lib/adapters/aws/lambda.js';
import { InvocationQueue } from '../lib/adapters/aws/invocation-queue.js';

const processor = new BatchProcessor(EventType.SQS);

/** True when trying the message again cannot succeed: acknowledge it instead of redelivering. */
export function isPermanent(err: unknown): err is AirlessError {
  return err instanceof AirlessError && !err.retryable && !(err instanceof MalformedMessageError);
}

export const run = async (event: SQSEvent, context: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> => {
  // Per invocation, over the container's cached ports (which stay untouched): eager
  // follow runs a next task here only if its timeout fits in this invocation.
  const cached = lambdaPorts();
  // Variables and connections are read at most once per invocation.
  cached.secrets.reset();
  // The records' follow-up messages go out together (invocation-queue.ts).
  const queue = new InvocationQueue(cached.queue, event.Records.length);
  const ports: Ports = { ...cached, queue, remainingMs: () => context.getRemainingTimeInMillis() };
  const record = async (r: SQSRecord): Promise<void> => {
    try {
      await handleMessage(ports, parseQueueMessage(r.body));
    } catch (err) {
      if (!isPermanent(err)) {
        ports.log.error('message failed; SQS will redeliver it', { messageId: r.messageId, error: String((err as Error)?.message ?? err) });
        throw err;
      }
      ports.log.error('message dropped: the error is not retryable', { messageId: r.messageId, error: err.message, errorName: err.name });
      ports.metrics.count('MessagesDropped');
    } finally {
      queue.done();
    }
  };
  return processPartialResponse(event, record, processor, { context: context as Context, throwOnFullBatchFailure: false });
};

export const handler = middy(run).use(flushMetrics());
