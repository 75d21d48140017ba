/**
 * What the asset-events function receives, normalised for the engine's watchers
 * (lib/engine/rules/asset-watchers.ts): an EventBridge event delivered by a rule (an S3
 * "Object Created" event is recognised as such), or a batch of SQS messages delivered by an
 * event source mapping. Shapes: EventBridge's event envelope; S3's EventBridge events
 * (`detail.bucket.name`, `detail.object.key|etag|version-id|size`); Lambda's SQS event.
 */
import { MalformedMessageError } from '../../../engine/index.js';
import type { ExternalAssetEvent } from '../../../engine/index.js';

export type AssetSourceInput =
  | { kind: 'eventbridge'; event: ExternalAssetEvent }
  | { kind: 'sqs'; records: { messageId: string; event: ExternalAssetEvent }[] };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function time(v: unknown, fallback: number): number {
  const ms = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isFinite(ms) ? ms : fallback;
}

/** An EventBridge event (the envelope a rule delivers to a Lambda target). */
export function eventBridgeEvent(e: Obj, now: number): ExternalAssetEvent {
  const at = time(e.time, now);
  const detail = isObj(e.detail) ? e.detail : {};
  if (e.source === 'aws.s3' && e['detail-type'] === 'Object Created' && isObj(detail.bucket) && isObj(detail.object)) {
    const o = detail.object;
    const s3: ExternalAssetEvent = { source: 's3', bucket: String(detail.bucket.name), key: String(o.key), time: at, event: e };
    if (typeof o.etag === 'string') s3.etag = o.etag;
    if (typeof o['version-id'] === 'string') s3.versionId = o['version-id'];
    if (typeof o.size === 'number') s3.size = o.size;
    return s3;
  }
  return { source: 'eventbridge', time: at, event: e };
}

/**
 * @example
 * parseAssetSourceInput({ Records: [{ eventSource: 'aws:sqs', messageId: 'm1', body: '{}', eventSourceARN: 'arn:aws:sqs:eu-west-1:1:orders' }] }, Date.now());
 * @throws MalformedMessageError for anything else (it is logged and dropped by the handler).
 */
export function parseAssetSourceInput(input: unknown, now: number): AssetSourceInput {
  if (!isObj(input)) throw new MalformedMessageError('asset-events: the event is not a JSON object');
  if (Array.isArray(input.Records)) {
    const records = input.Records.map((r, i) => {
      if (!isObj(r) || r.eventSource !== 'aws:sqs' || typeof r.messageId !== 'string' || typeof r.body !== 'string' || typeof r.eventSourceARN !== 'string') {
        throw new MalformedMessageError(`asset-events: record ${i} is not an SQS message`);
      }
      const sent = Number(isObj(r.attributes) ? r.attributes.SentTimestamp : NaN);
      const queue = r.eventSourceARN.split(':').pop()!;
      return { messageId: r.messageId, event: { source: 'sqs', queue, messageId: r.messageId, body: r.body, time: Number.isFinite(sent) ? sent : now } as ExternalAssetEvent };
    });
    return { kind: 'sqs', records };
  }
  if (typeof input.id === 'string' && typeof input.source === 'string' && 'detail-type' in input) return { kind: 'eventbridge', event: eventBridgeEvent(input, now) };
  throw new MalformedMessageError('asset-events: neither an EventBridge event nor an SQS batch');
}
