/**
 * Worker: runs the messages of an SQS batch (task tries, timer fires, schedule ticks)
 * concurrently. A message that fails (malformed, or a transient error) is reported as
 * a batch item failure, so SQS retries it and finally moves it to the dead-letter queue;
 * the rest of the batch is acknowledged.
 */
import middy from '@middy/core';
import sqsPartialBatchFailure from '@middy/sqs-partial-batch-failure';
import type { Context, SQSEvent } from 'aws-lambda';
import { handleMessage } from '../lib/engine/dispatch.js';
import { parseQueueMessage } from '../lib/engine/messages.js';
import { flushMetrics, lambdaPorts } from '../lib/adapters/aws/lambda.js';

export const run = async (event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
  const ports = lambdaPorts();
  // Eager follow runs a next task here only if its timeout fits in this invocation.
  ports.remainingMs = typeof context?.getRemainingTimeInMillis === 'function' ? () => context.getRemainingTimeInMillis() : undefined;
  // async, so a body that does not parse rejects its own record instead of throwing out
  // of map() and failing the whole batch.
  return Promise.allSettled(event.Records.map(async (r) => handleMessage(ports, parseQueueMessage(r.body))));
};

export const handler = middy(run)
  .use(flushMetrics())
  .use(sqsPartialBatchFailure({ logger: (reason, record) => lambdaPorts().log.error('message failed', { messageId: record.messageId, error: String(reason?.message ?? reason) }) }));
