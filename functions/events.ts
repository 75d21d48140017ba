/**
 * Events: an EventBridge rule's target (AWS job state changes from the default bus, users'
 * own events from the Airless bus). Each event is kept for waits stored after it and
 * resumes, once, every task whose wait it matches. A malformed or foreign event is dropped
 * and counted, not an error; a store failure throws, so Lambda retries the event and then
 * sends it to the dead-letter queue.
 */
import middy from '@middy/core';
import { handleEvent } from '../lib/engine/index.js';
import { flushMetrics, lambdaPorts } from '../lib/adapters/aws/lambda.js';

export const run = async (event: unknown) => {
  const ports = lambdaPorts();
  const report = await handleEvent(ports, event);
  ports.log.info('event handled', { ...report, source: (event as { source?: unknown })?.source, id: (event as { id?: unknown })?.id });
  return report;
};

export const handler = middy(run).use(flushMetrics());
