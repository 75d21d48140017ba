/**
 * What the API server writes to the audit log (Airflow's event log, engine
 * model/audit-log.ts): for each write Airflow records with its `action_logging`, an event
 * named after the operation, with the DAG, run and task the path names and the request's
 * parameters and body (secrets masked) in `extra`. As Airflow, the event is recorded once
 * the request is authenticated and routed, whether the operation then succeeds or not; a
 * clear's dry run (the default) is not recorded.
 */
import { isSensitiveKey } from '../engine/index.js';
import type { ApiBackend } from './backend.js';

const RUN = '/api/v2/dags/{dag_id}/dagRuns/{dag_run_id}';
const TI = `${RUN}/taskInstances/{task_id}`;

/** `METHOD path` of each audited route → the event Airflow records (its operation's name). */
const AUDITED: Record<string, string> = {
  'PATCH /api/v2/dags/{dag_id}': 'patch_dag',
  'POST /api/v2/dags/{dag_id}/dagRuns': 'trigger_dag_run',
  [`PATCH ${RUN}`]: 'patch_dag_run',
  [`DELETE ${RUN}`]: 'delete_dag_run',
  [`POST ${RUN}/clear`]: 'clear_dag_run',
  'POST /api/v2/dags/{dag_id}/clearTaskInstances': 'post_clear_task_instances',
  [`PATCH ${TI}`]: 'patch_task_instance',
  [`PATCH ${TI}/{map_index}`]: 'patch_task_instance',
  [`DELETE ${TI}`]: 'delete_task_instance',
  'PATCH /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances': 'bulk_task_instances',
  [`POST ${TI}/xcomEntries`]: 'create_xcom_entry',
  [`PATCH ${TI}/xcomEntries/{xcom_key}`]: 'update_xcom_entry',
  [`DELETE ${TI}/xcomEntries/{xcom_key}`]: 'delete_xcom_entry',
  'POST /api/v2/variables': 'post_variable',
  'PATCH /api/v2/variables/{variable_key}': 'patch_variable',
  'DELETE /api/v2/variables/{variable_key}': 'delete_variable',
  'PATCH /api/v2/variables': 'bulk_variables',
  'POST /api/v2/connections': 'post_connection',
  'PATCH /api/v2/connections/{connection_id}': 'patch_connection',
  'DELETE /api/v2/connections/{connection_id}': 'delete_connection',
  'PATCH /api/v2/connections': 'bulk_connections',
  'POST /api/v2/backfills': 'create_backfill',
  'PUT /api/v2/backfills/{backfill_id}/pause': 'pause_backfill',
  'PUT /api/v2/backfills/{backfill_id}/unpause': 'unpause_backfill',
  'PUT /api/v2/backfills/{backfill_id}/cancel': 'cancel_backfill',
  'POST /api/v2/assets/events': 'create_asset_event',
};

/** Path parameters Airflow keeps in the event's own fields, not in `extra`. */
const OWN_FIELDS = new Set(['dag_id', 'task_id', 'dag_run_id', 'run_id', 'logical_date', 'is_paused']);

/** The event a route records, or undefined when Airflow records none for it. */
export function auditedEvent(method: string, routePath: string): string | undefined {
  return AUDITED[`${method} ${routePath}`];
}

/** A value of the body with secrets masked: a sensitive variable's value, a connection's password and extra. */
function masked(event: string, body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    const secret = isSensitiveKey(k)
      || (event.includes('variable') && k === 'value' && typeof body.key === 'string' && isSensitiveKey(body.key))
      || (event.includes('connection') && (k === 'password' || k === 'extra'));
    out[k] = secret ? '***' : v;
  }
  return out;
}

/**
 * Appends the audit event of a routed request, if its route is audited.
 *
 * @example
 * await recordAudit(b, 'PATCH', '/api/v2/dags/{dag_id}', { dag_id: 'etl' }, url, { is_paused: true });
 */
export async function recordAudit(b: ApiBackend, method: string, routePath: string, p: Record<string, string>, url: URL, body: Record<string, unknown>): Promise<void> {
  const event = auditedEvent(method, routePath);
  if (!event) return;
  if ((event === 'clear_dag_run' || event === 'post_clear_task_instances') && body.dry_run !== false) return;
  const extra: Record<string, unknown> = {};
  for (const [k, v] of [...url.searchParams.entries(), ...Object.entries(p)]) if (!OWN_FIELDS.has(k)) extra[k] = isSensitiveKey(k) ? '***' : v;
  Object.assign(extra, masked(event, body));
  if ('is_paused' in body) extra.is_paused = body.is_paused;
  extra.method = method;
  // As Airflow, the DAG, run and task are read from the query, the path and the body together (a clear names its run in the body).
  const params: Record<string, unknown> = { ...Object.fromEntries(url.searchParams.entries()), ...p, ...body };
  const text = (k: string) => (typeof params[k] === 'string' && params[k] !== '~' ? { v: params[k] as string } : undefined);
  const dagId = text('dag_id')?.v;
  const runId = (text('run_id') ?? text('dag_run_id'))?.v;
  const taskId = text('task_id')?.v;
  const mapIndex = Number(params.map_index);
  await b.ports.store.appendAuditEvent({
    when: b.ports.clock.now(), event, owner: 'airless', extra: JSON.stringify(extra),
    ...(dagId !== undefined ? { dagId } : {}), ...(runId !== undefined ? { runId } : {}), ...(taskId !== undefined ? { taskId } : {}),
    ...(params.map_index !== undefined && Number.isInteger(mapIndex) ? { mapIndex } : {}),
  });
}
