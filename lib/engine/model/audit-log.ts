/**
 * The audit log (Airflow's event log): who did what to which DAG, run or task instance
 * through the API. The API server appends an event for each write Airflow records
 * (trigger, clear, mark, pause, delete); `get_event_logs` reads them back. Ids count up
 * from 1 in the order events are written, as Airflow's `event_log_id` does.
 */

/** One audit event, as kept. */
export interface AuditEvent {
  /** 1, 2, 3…: unique, in the order the events were appended. */
  id: number;
  /** Epoch ms. */
  when: number;
  /** What was done: the operation's name (`trigger_dag_run`, `patch_dag`, …). */
  event: string;
  dagId?: string;
  runId?: string;
  taskId?: string;
  mapIndex?: number;
  tryNumber?: number;
  logicalDate?: number;
  /** Who: `airless` (the token's holder; Airless has no user accounts). */
  owner?: string;
  /** What the request carried, as JSON text (Airflow keeps the request's parameters). */
  extra?: string;
}

/** The audit log's store operations (part of the Store port; one adapter file per store). */
export interface AuditLogStore {
  /** Appends an event and returns it with its id. */
  appendAuditEvent(e: Omit<AuditEvent, 'id'>): Promise<AuditEvent>;
  /** One event by id, or undefined. */
  getAuditEvent(id: number): Promise<AuditEvent | undefined>;
  /** Every event, oldest first (an audit log of API writes is small: one item per user action). */
  listAuditEvents(): Promise<AuditEvent[]>;
}
