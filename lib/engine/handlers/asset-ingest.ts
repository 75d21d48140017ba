/**
 * External events feeding assets (Airflow's asset watchers, pushed instead of polled): an
 * S3 notification, an EventBridge event or an SQS message, normalised by the edge, is
 * looked up in the watcher index by its bucket, queue or bus, and each watcher it matches
 * records one asset event under the watcher's dedup key. A redelivered event finds its
 * key and records nothing new; an event no watcher matches is counted and dropped.
 */
import type { Ports } from '../model/ports.js';
import { eventSources, watcherHit, type ExternalAssetEvent } from '../rules/asset-watchers.js';
import { extraProblem, recordAssetEvent } from '../flow/assets.js';

export interface IngestReport {
  /** Asset events recorded for the first time. */
  recorded: number;
  /** Matches whose key was seen before (redeliveries). */
  duplicates: number;
  /** Runs the events' DAG queues now call for (evaluate messages sent). */
  evaluating: number;
  /** Matches without a usable dedup key (not recorded). */
  missingKey: number;
}

/** Keeps an extra under the event size limit: top-level values over 1 KB of JSON become a size note. */
function fitting(extra: Record<string, unknown>): Record<string, unknown> {
  if (!extraProblem(extra)) return extra;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(extra)) {
    const bytes = new TextEncoder().encode(JSON.stringify(v) ?? '').byteLength;
    out[k] = bytes > 1024 ? { truncated: true, bytes } : v;
  }
  return out;
}

/**
 * Records the asset events one external event makes.
 *
 * @example
 * await ingestExternalEvent(p, { source: 'sqs', queue: 'orders', messageId: 'm-1', body: '{"orderId":7}', time: p.clock.now() });
 */
export async function ingestExternalEvent(p: Ports, e: ExternalAssetEvent): Promise<IngestReport> {
  const report: IngestReport = { recorded: 0, duplicates: 0, evaluating: 0, missingKey: 0 };
  let matched = false;
  for (const source of eventSources(e)) {
    for (const w of await p.store.listAssetWatchers(source)) {
      const hit = watcherHit(w.watcher, e);
      if (!hit) continue;
      matched = true;
      if ('missingKey' in hit) {
        report.missingKey++;
        p.log.warn('external event without a dedup key not recorded', { uri: w.uri, watcher: w.watcher.name, reason: hit.missingKey });
        continue;
      }
      const r = await recordAssetEvent(p, { uri: w.uri, key: hit.key, extra: fitting(hit.extra), origin: e.source });
      if (!r) continue;
      if (r.created) report.recorded++;
      else report.duplicates++;
      report.evaluating += r.evaluating.length;
    }
  }
  if (!matched) p.log.info('external event matched no asset watcher', { source: e.source });
  return report;
}
