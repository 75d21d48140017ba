/**
 * The events path: what an EventBridge rule delivers to the events function (AWS job
 * state changes from the default bus, users' own events from the Airless bus). The event
 * is kept under its index keys (for a wait stored after it), then every wait under those
 * keys whose pattern matches is resumed once. A malformed event is dropped and counted; an
 * event no task waits for is logged and counted; neither is an error.
 */
import { loadRunCtx } from '../rules/dag-index.js';
import type { AwsEvent } from '../model/events.js';
import type { Ports } from '../model/ports.js';
import { eventKeys, eventProblem } from '../rules/event-key.js';
import { matchesPattern } from '../rules/event-pattern.js';
import { deliverEvent } from '../flow/event-wait.js';

export interface EventReport {
  /** `matched`: some task was resumed; `unmatched`: no task waits for it (yet); `dropped`: not an EventBridge event. */
  outcome: 'matched' | 'unmatched' | 'dropped';
  /** Index keys the event was kept and looked up under. */
  keys: number;
  /** Waits whose pattern the event matched. */
  matched: number;
  /** Tasks this delivery resumed (0 for a repeated delivery). */
  resumed: number;
  error?: string;
}

/**
 * @example
 * const report = await handleEvent(ports, { source: 'aws.batch', 'detail-type': 'Batch Job State Change', detail: { jobId: 'j-1', status: 'SUCCEEDED' } });
 */
export async function handleEvent(p: Ports, raw: unknown): Promise<EventReport> {
  const problem = eventProblem(raw);
  if (problem) {
    p.metrics.count('EventsDropped');
    p.log.warn(`event dropped: ${problem}`, { preview: preview(raw) });
    return { outcome: 'dropped', keys: 0, matched: 0, resumed: 0, error: problem };
  }
  const event = raw as AwsEvent;
  const now = p.clock.now();
  p.metrics.count('EventsReceived');
  const keys = eventKeys(event);
  const expiresAtSec = Math.ceil((now + (p.config.eventRetentionMs ?? 86_400_000)) / 1000);
  // Kept first, waits read second: a wait stored meanwhile reads this event (flow/event-wait.ts).
  await Promise.all(keys.map((key) => p.store.keepEvent(key, { event, receivedAt: now }, expiresAtSec)));
  const report: EventReport = { outcome: 'unmatched', keys: keys.length, matched: 0, resumed: 0 };
  for (const key of keys) {
    for (const row of await p.store.listEventTriggers(key)) {
      if (!row.pattern || !matchesPattern(row.pattern, event)) continue;
      report.matched++;
      const ti = await p.store.getTask(row);
      if (!ti || ti.tryNumber !== row.tryNumber) continue;
      const rc = await loadRunCtx(p, ti.dagId, ti.runId);
      if (rc && (await deliverEvent(p, rc, ti, event))) report.resumed++;
    }
  }
  if (report.matched > 0) report.outcome = 'matched';
  else {
    p.metrics.count('EventsUnmatched');
    p.log.info('event for no waiting task (kept for a wait stored later)', { source: event.source, detailType: event['detail-type'], id: event.id });
  }
  return report;
}

function preview(raw: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(raw) ?? String(raw);
  } catch {
    text = String(raw);
  }
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
