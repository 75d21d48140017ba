/**
 * Airflow's event log endpoints over the store's audit log (engine model/audit-log.ts),
 * which the server appends to for each audited write (audit.ts).
 */
import type { AuditEvent } from '../engine/index.js';
import { HttpError, invalid } from './http.js';
import { dateQuery, intQuery, likeMatcher, listQuery, page, sorter } from './params.js';
import type { Route, RouteCtx } from './router.js';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** An event as Airflow's EventLogResponse (display names are the ids: the log keeps no copy of the DAG). */
function eventLogJson(e: AuditEvent) {
  return {
    event_log_id: e.id, when: iso(e.when), dag_id: e.dagId ?? null, task_id: e.taskId ?? null, run_id: e.runId ?? null,
    map_index: e.mapIndex ?? null, try_number: e.tryNumber ?? null, event: e.event, logical_date: iso(e.logicalDate),
    owner: e.owner ?? null, extra: e.extra ?? null, dag_display_name: e.dagId ?? null, task_display_name: e.taskId ?? null,
  };
}

/** An exact-match filter on a text field, and its `*_pattern` form. */
function textFilters(url: URL, name: string, pattern: string, get: (e: AuditEvent) => string | undefined): ((e: AuditEvent) => boolean)[] {
  const out: ((e: AuditEvent) => boolean)[] = [];
  const exact = url.searchParams.get(name);
  if (exact !== null) out.push((e) => get(e) === exact);
  const like = url.searchParams.get(pattern);
  if (like) { const m = likeMatcher(like); out.push((e) => m(get(e) ?? '')); }
  return out;
}

async function list({ b, url }: RouteCtx): Promise<unknown> {
  const filters = [
    ...textFilters(url, 'dag_id', 'dag_id_pattern', (e) => e.dagId),
    ...textFilters(url, 'task_id', 'task_id_pattern', (e) => e.taskId),
    ...textFilters(url, 'run_id', 'run_id_pattern', (e) => e.runId),
    ...textFilters(url, 'owner', 'owner_pattern', (e) => e.owner),
    ...textFilters(url, 'event', 'event_pattern', (e) => e.event),
  ];
  for (const name of ['map_index', 'try_number'] as const) {
    if (url.searchParams.get(name) === null) continue;
    const n = intQuery(url, name, 0, -1, Number.MAX_SAFE_INTEGER);
    filters.push((e) => (name === 'map_index' ? e.mapIndex : e.tryNumber) === n);
  }
  const included = listQuery(url, 'included_events');
  const excluded = listQuery(url, 'excluded_events');
  if (included.length) filters.push((e) => included.includes(e.event));
  if (excluded.length) filters.push((e) => !excluded.includes(e.event));
  const before = dateQuery(url, 'before');
  const after = dateQuery(url, 'after');
  if (before !== undefined) filters.push((e) => e.when < before);
  if (after !== undefined) filters.push((e) => e.when > after);
  const order = sorter<AuditEvent>(url, 'id', {
    id: (e) => e.id, event_log_id: (e) => e.id, dttm: (e) => e.when, when: (e) => e.when, dag_id: (e) => e.dagId, task_id: (e) => e.taskId,
    run_id: (e) => e.runId, event: (e) => e.event, owner: (e) => e.owner, logical_date: (e) => e.logicalDate, map_index: (e) => e.mapIndex, try_number: (e) => e.tryNumber,
  });
  const events = (await b.ports.store.listAuditEvents()).filter((e) => filters.every((f) => f(e))).sort(order);
  return { event_logs: page(url, events).map(eventLogJson), total_entries: events.length };
}

async function one({ b, p }: RouteCtx): Promise<unknown> {
  const id = Number(p.event_log_id);
  if (!/^-?\d+$/.test(p.event_log_id) || !Number.isSafeInteger(id)) throw invalid(['path', 'event_log_id'], `event_log_id: must be a whole number, got ${JSON.stringify(p.event_log_id)}`, p.event_log_id, 'int_parsing');
  const e = await b.ports.store.getAuditEvent(id);
  if (!e) throw new HttpError(404, `The Event Log with id: \`${id}\` not found`);
  return eventLogJson(e);
}

/**
 * @example
 * const routes = eventLogRoutes(); // registered in routes.ts
 */
export function eventLogRoutes(): Route[] {
  return [
    { method: 'GET', path: '/api/v2/eventLogs', handle: list },
    { method: 'GET', path: '/api/v2/eventLogs/{event_log_id}', handle: one },
  ];
}
