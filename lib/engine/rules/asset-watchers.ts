/**
 * Asset watchers (pure): whether a declared watcher is valid, under which source key the
 * store indexes it, and what an incoming external event makes of it (the asset event's
 * dedup key and extra). The dedup keys (docs/assets.md, ADR 0018):
 * - S3: bucket, key and version id (ETag when the bucket is not versioned): a redelivered
 *   notification names the same object version; a new version is a new event.
 * - EventBridge: the event's `id` (EventBridge keeps it across its retries) or a field the
 *   watcher names (`dedupField`), for producers that publish the same fact twice.
 * - SQS: the message id (kept across redeliveries) or a field of the JSON body.
 */
import type { AssetWatcherSpec } from '../model/assets.js';
import { matchesPattern, validatePattern } from './event-pattern.js';

/** An external event, as the edge normalises it from what Lambda receives. */
export type ExternalAssetEvent =
  | { source: 's3'; bucket: string; key: string; etag?: string; versionId?: string; size?: number; time: number; event: Record<string, unknown> }
  | { source: 'eventbridge'; time: number; event: Record<string, unknown> }
  | { source: 'sqs'; queue: string; messageId: string; body: string; time: number };

/** What one watcher makes of one external event. */
export interface WatcherHit {
  key: string;
  extra: Record<string, unknown>;
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const QUEUE = /^[A-Za-z0-9_-]{1,80}(\.fifo)?$/;
const FIELD = /^[^.\s]+(\.[^.\s]+)*$/;

/**
 * Why a watcher declaration is invalid, or undefined.
 *
 * @example
 * watcherProblem({ kind: 's3', name: 'w', bucket: 'Bad_Bucket' }); // 'watch.s3: bucket ...'
 */
export function watcherProblem(w: unknown): string | undefined {
  if (typeof w !== 'object' || w === null) return `a watcher must be watch.s3(...), watch.eventBridge(...) or watch.sqs(...), got ${JSON.stringify(w)}`;
  const x = w as Record<string, unknown>;
  if (typeof x.name !== 'string' || x.name.length === 0 || x.name.length > 250) return `a watcher needs a name of 1 to 250 characters, got ${JSON.stringify(x.name)}`;
  const field = (f: unknown) => (f === undefined || (typeof f === 'string' && FIELD.test(f)) ? undefined : `dedupField must be a dotted field path such as "detail.orderId", got ${JSON.stringify(f)}`);
  switch (x.kind) {
    case 's3':
      if (typeof x.bucket !== 'string' || !BUCKET.test(x.bucket)) return `watch.s3: bucket must be an S3 bucket name (3-63 characters: a-z 0-9 . -), got ${JSON.stringify(x.bucket)}`;
      if (x.prefix !== undefined && typeof x.prefix !== 'string') return `watch.s3: prefix must be a string, got ${JSON.stringify(x.prefix)}`;
      if (x.suffix !== undefined && typeof x.suffix !== 'string') return `watch.s3: suffix must be a string, got ${JSON.stringify(x.suffix)}`;
      return undefined;
    case 'eventbridge': {
      if (x.bus !== 'default' && x.bus !== 'airless') return `watch.eventBridge: bus must be 'default' or 'airless', got ${JSON.stringify(x.bus)}`;
      const p = validatePattern(x.pattern);
      if (p) return `watch.eventBridge: invalid pattern: ${p}`;
      const f = field(x.dedupField);
      return f && `watch.eventBridge: ${f}`;
    }
    case 'sqs': {
      if (typeof x.queue !== 'string' || !QUEUE.test(x.queue)) return `watch.sqs: queue must be an SQS queue name, URL or ARN, got ${JSON.stringify(x.queue)}`;
      const f = field(x.dedupField);
      return f && `watch.sqs: ${f}`;
    }
    default:
      return `unknown watcher kind ${JSON.stringify(x.kind)} (use watch.s3, watch.eventBridge or watch.sqs)`;
  }
}

/**
 * The index key a watcher is stored under: events are matched only against the watchers of
 * their own bucket or queue (EventBridge watchers share one key: any pattern may match).
 *
 * @example
 * watcherSource({ kind: 's3', name: 'w', bucket: 'lake' }); // 's3:lake'
 */
export function watcherSource(w: AssetWatcherSpec): string {
  if (w.kind === 's3') return `s3:${w.bucket}`;
  if (w.kind === 'sqs') return `sqs:${w.queue}`;
  return 'eventbridge';
}

/** The source keys an external event is looked up under. */
export function eventSources(e: ExternalAssetEvent): string[] {
  // An S3 notification arrives through EventBridge: EventBridge watchers may match it too.
  if (e.source === 's3') return [`s3:${e.bucket}`, 'eventbridge'];
  if (e.source === 'sqs') return [`sqs:${e.queue}`];
  return ['eventbridge'];
}

/** The value at a dotted path of a JSON value. */
export function fieldAt(value: unknown, path: string): unknown {
  let v = value;
  for (const k of path.split('.')) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

function keyText(v: unknown): string | undefined {
  if (typeof v === 'string' && v.length > 0) return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/**
 * What the watcher makes of the event: undefined when it does not match (another bucket
 * prefix, a pattern that does not match) or when its dedup field is missing (the caller
 * logs that: an event with no usable key is not recorded, never double-counted).
 *
 * @example
 * watcherHit({ kind: 's3', name: 'w', bucket: 'lake', prefix: 'raw/' }, s3Event)?.key; // 's3:lake/raw/a.csv@3a5f...'
 */
export function watcherHit(w: AssetWatcherSpec, e: ExternalAssetEvent): WatcherHit | { missingKey: string } | undefined {
  if (w.kind === 's3') {
    if (e.source !== 's3' || e.bucket !== w.bucket) return undefined;
    if (w.prefix && !e.key.startsWith(w.prefix)) return undefined;
    if (w.suffix && !e.key.endsWith(w.suffix)) return undefined;
    const version = e.versionId ?? e.etag;
    if (!version) return { missingKey: `s3://${e.bucket}/${e.key} has neither a version id nor an ETag` };
    const extra: Record<string, unknown> = { bucket: e.bucket, key: e.key };
    if (e.size !== undefined) extra.size = e.size;
    if (e.etag !== undefined) extra.etag = e.etag;
    if (e.versionId !== undefined) extra.versionId = e.versionId;
    return { key: `s3:${e.bucket}/${e.key}@${version}`, extra };
  }
  if (w.kind === 'eventbridge') {
    if (e.source === 'sqs') return undefined;
    if (!matchesPattern(w.pattern, e.event)) return undefined;
    const field = w.dedupField ?? 'id';
    const key = keyText(fieldAt(e.event, field));
    if (key === undefined) return { missingKey: `the event has no value at ${field} (the watcher's dedup field)` };
    const ev = e.event;
    return { key: `eventbridge:${w.dedupField ? `${field}=` : ''}${key}`, extra: { id: ev.id, source: ev.source, detailType: ev['detail-type'], time: ev.time, detail: ev.detail ?? {} } };
  }
  if (e.source !== 'sqs' || e.queue !== w.queue) return undefined;
  const body = parseBody(e.body);
  const key = w.dedupField ? keyText(fieldAt(body, w.dedupField)) : e.messageId;
  if (key === undefined) return { missingKey: `the message body has no value at ${w.dedupField} (the watcher's dedup field)` };
  return { key: `sqs:${e.queue}/${w.dedupField ? `${w.dedupField}=` : ''}${key}`, extra: { messageId: e.messageId, body } };
}
