/**
 * Asset-events: external events that feed assets (docs/assets.md). A rule delivers an
 * EventBridge event (S3 notifications included); an event source mapping delivers a batch
 * of SQS messages, each failing alone (a partial batch response). Each event is matched
 * to the registered watchers and recorded once per dedup key; the runs it makes due are
 * created by the worker (an `evaluate` message), which holds the run-creation grants.
 */
import middy from '@middy/core';
import type { SQSBatchResponse } from 'aws-lambda';
import { ingestExternalEvent, MalformedMessageError } from '../lib/engine/index.js';
import { flushMetrics, lambdaPorts } from '../lib/adapters/aws/lambda.js';
import { parseAssetSourceInput } from '../lib/adapters/aws/eventbridge/asset-sources.js';

export const run = async (event: unknown): Promise<SQSBatchResponse | void> => {
  const ports = lambdaPorts();
  let input;
  try {
    input = parseAssetSourceInput(event, ports.clock.now());
  } catch (err) {
    if (!(err instanceof MalformedMessageError)) throw err;
    ports.log.error('asset event dropped: not an event this function takes', { error: err.message });
    return;
  }
  // An EventBridge delivery that throws is retried by Lambda's asynchronous invocation, then dead-lettered.
  if (input.kind === 'eventbridge') return void (await ingestExternalEvent(ports, input.event));
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const r of input.records) {
    try {
      await ingestExternalEvent(ports, r.event);
    } catch (err) {
      ports.log.error('asset event failed; SQS will redeliver it', { messageId: r.messageId, error: String((err as Error)?.message ?? err) });
      batchItemFailures.push({ itemIdentifier: r.messageId });
    }
  }
  return { batchItemFailures };
};

export const handler = middy(run).use(flushMetrics());
