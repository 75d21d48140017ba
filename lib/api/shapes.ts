/**
 * Airless records in the JSON shapes of Airflow 3.2's public REST API (v2): same field
 * names, ISO-8601 dates, null for what Airless does not have, and for a required field
 * Airless has no value of, what Airflow sends in the same case (docs/api.md lists them).
 */
import { createHash } from 'node:crypto';
import type { DagRecord, DagRun, DagSpec, TaskInstance, TaskSpec } from '../engine/index.js';

export const iso = (ms: number | undefined | null) => (ms === undefined || ms === null ? null : new Date(ms).toISOString());
/** What a response needs of a DAG to name it: its `displayName` (authoring), else its id. */
export type DagNaming = Pick<DagSpec, 'displayName'> | undefined;

const seconds = (a?: number, b?: number) => (a === undefined || b === undefined ? null : (b - a) / 1000);

/** Namespace of Airless's name-based UUIDs (a v4 UUID drawn once). */
const NAMESPACE = Buffer.from('6f1c2d9e3b7a4c58a1e0d4b2c9f87a63', 'hex');

/**
 * A name-based UUID (RFC 9562 version 5: SHA-1 of a namespace and the name): the same name
 * gives the same id on every read, in every process and on both stores, with nothing
 * stored. Airflow draws a random id per task instance and keeps it in its database;
 * Airless derives it from the key instead.
 *
 * @example
 * uuidFor('ti', 'etl', 'manual__2026-01-01', 'load', '-1'); // '…-5…-…'
 */
export function uuidFor(...parts: string[]): string {
  const h = createHash('sha1').update(NAMESPACE).update(parts.join('\u0000')).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** Airflow's `file_token` is its signed file path (for the reparse endpoint, which Airless does not serve): here the path, URL-safe. */
export const fileToken = (spec: DagSpec) => Buffer.from(spec.file).toString('base64url');

/** A task state as Airflow names it: a batched sensor waiting (`sensing`, Airless's own) is `deferred`, which is what it is in Airflow 3. */
export const apiTaskState = (s: TaskInstance['state'] | undefined) => (s === undefined ? null : s === 'sensing' ? 'deferred' : s);

export function timetableSummary(spec: DagSpec): string | null {
  const s = spec.schedule;
  if (spec.assetSchedule) return 'Asset';
  if (!s) return null;
  if (s.kind === 'once') return '@once';
  return s.kind === 'cron' ? s.expr : `rate(${s.everyMs / 1000} seconds)`;
}

function timetableDescription(spec: DagSpec): string {
  const s = spec.schedule;
  if (spec.assetSchedule) return 'Triggered by assets';
  if (!s) return 'Never, external triggers only';
  if (s.kind === 'once') return 'Once, as soon as possible';
  return s.kind === 'cron' ? `cron ${s.expr} (${s.timezone})` : `every ${s.everyMs / 1000} s`;
}

/** Airflow's DAGResponse. */
export function dagJson(d: DagRecord) {
  const s = d.spec;
  return {
    dag_id: d.dagId,
    dag_display_name: s.displayName ?? d.dagId,
    is_paused: d.paused,
    is_stale: false,
    last_parsed_time: iso(d.updatedAt),
    last_expired: null,
    bundle_name: 'dags',
    bundle_version: d.bundleVersion,
    relative_fileloc: s.file,
    fileloc: s.file,
    description: s.description ?? null,
    timetable_summary: timetableSummary(s),
    timetable_description: timetableDescription(s),
    tags: s.tags.map((name) => ({ name, dag_id: d.dagId, dag_display_name: s.displayName ?? d.dagId })),
    max_active_tasks: s.maxActiveTasks,
    max_active_runs: s.maxActiveRuns,
    max_consecutive_failed_dag_runs: 0,
    has_task_concurrency_limits: false,
    has_import_errors: false,
    next_dagrun_logical_date: s.schedule ? iso(d.nextTickAt) : null,
    next_dagrun_data_interval_start: s.schedule ? iso(d.nextTickAt) : null,
    next_dagrun_data_interval_end: s.schedule ? iso(d.nextTickAt) : null,
    next_dagrun_run_after: s.schedule ? iso(d.nextTickAt) : null,
    owners: ['airless'],
    file_token: fileToken(s),
    timetable_partitioned: false,
  };
}

/** Airflow's serialized params: each with its value (null without a default), description and JSON Schema. */
function paramsJson(s: DagSpec) {
  const names = [...new Set([...Object.keys(s.params), ...Object.keys(s.paramSchemas ?? {})])];
  return Object.fromEntries(names.map((k) => {
    const schema = s.paramSchemas?.[k] ?? {};
    return [k, { value: Object.hasOwn(s.params, k) ? s.params[k] : null, description: typeof schema.description === 'string' ? schema.description : null, schema }];
  }));
}

/** Airflow's DAGDetailsResponse: DAGResponse plus the DAG's settings and params. */
export function dagDetailsJson(d: DagRecord) {
  const s = d.spec;
  return {
    ...dagJson(d),
    catchup: s.catchup,
    start_date: s.startDate ?? null,
    end_date: s.endDate ?? null,
    timezone: s.timezone,
    params: paramsJson(s),
    is_paused_upon_creation: s.pausedOnCreation,
    doc_md: s.doc ?? null,
    render_template_as_native_obj: false,
    active_runs_count: d.activeRuns ?? 0,
    // Airflow's old name of max_active_tasks, still required in DAGDetailsResponse.
    concurrency: s.maxActiveTasks,
    dag_run_timeout: s.dagrunTimeoutMs === undefined ? null : isoDuration(s.dagrunTimeoutMs),
    is_favorite: false,
  };
}

/** Airflow's DAGRunResponse; `dag` names the DAG (`dag_display_name`). */
export function dagRunJson(r: DagRun, dag: DagNaming) {
  return {
    dag_run_id: r.runId,
    dag_id: r.dagId,
    dag_display_name: dag?.displayName ?? r.dagId,
    logical_date: iso(r.logicalDate),
    queued_at: iso(r.queuedAt),
    start_date: iso(r.startedAt),
    end_date: iso(r.endedAt),
    duration: seconds(r.startedAt, r.endedAt),
    data_interval_start: iso(r.dataIntervalStart),
    data_interval_end: iso(r.dataIntervalEnd),
    run_after: iso(r.logicalDate),
    last_scheduling_decision: null,
    run_type: r.runType,
    state: r.state,
    triggered_by: r.runType === 'scheduled' ? 'timetable' : r.runType === 'backfill' ? 'backfill' : r.runType === 'asset_triggered' ? 'asset' : 'rest_api',
    conf: r.conf,
    note: r.note ?? null,
    dag_versions: [],
    bundle_version: r.bundleVersion,
  };
}

/** Airflow's `max_tries`: retries plus the tries made before the last clear. */
export function maxTries(t: TaskSpec | undefined, ti?: TaskInstance): number {
  return (ti?.tryBase ?? 0) + (t?.retries ?? 0);
}

export function operatorName(t: TaskSpec | undefined): string | null {
  if (!t) return null;
  if (t.builtin?.type === 'latest_only') return 'LatestOnlyOperator';
  if (t.builtin?.type === 'trigger_dag_run') return 'TriggerDagRunOperator';
  return t.kind === 'sensor' ? `${t.sensor?.type ?? ''}Sensor` : t.kind === 'branch' ? 'BranchOperator' : 'PythonOperator';
}

/**
 * Airflow's TaskInstanceResponse. A task with no instance yet (not reached) is reported
 * with state null, as Airflow lists them. A mapped instance (`size#3`) is task `size` with
 * `map_index` 3; anything else has -1.
 */
export function taskInstanceJson(run: DagRun, dag: DagNaming, t: TaskSpec | undefined, taskId: string, ti: TaskInstance | undefined, rendered?: Record<string, unknown>) {
  const mapIndex = ti?.mapIndex ?? -1;
  return {
    id: uuidFor('ti', run.dagId, run.runId, taskId, String(mapIndex)),
    task_id: taskId,
    dag_id: run.dagId,
    dag_run_id: run.runId,
    map_index: mapIndex,
    logical_date: iso(run.logicalDate),
    run_after: iso(run.logicalDate),
    start_date: iso(ti?.startedAt),
    end_date: iso(ti?.endedAt),
    duration: seconds(ti?.startedAt, ti?.endedAt),
    state: apiTaskState(ti?.state),
    try_number: ti?.tryNumber ?? 0,
    max_tries: maxTries(t, ti),
    task_display_name: t?.displayName ?? taskId,
    dag_display_name: dag?.displayName ?? run.dagId,
    hostname: null,
    unixname: null,
    pool: t?.pool ?? 'default_pool',
    pool_slots: t?.poolSlots ?? 1,
    queue: null,
    priority_weight: t?.priorityWeight ?? 1,
    operator: operatorName(t),
    operator_name: operatorName(t),
    queued_when: iso(ti?.queuedAt),
    scheduled_when: null,
    pid: null,
    executor: 'airless',
    executor_config: '{}',
    note: ti?.note ?? null,
    rendered_map_index: mapIndex >= 0 ? String(mapIndex) : null,
    rendered_fields: rendered ?? {},
    trigger: triggerJson(run, taskId, ti),
    triggerer_job: null,
    dag_version: null,
    error: ti?.error ?? null,
  };
}

/** An ISO-8601 duration (`P1DT2H3M4.5S`), as Airflow writes a timedelta. */
export function isoDuration(ms: number): string {
  const d = Math.floor(ms / 86_400_000);
  const rest = ms - d * 86_400_000;
  const h = Math.floor(rest / 3_600_000);
  const m = Math.floor((rest % 3_600_000) / 60_000);
  const s = (rest % 60_000) / 1000;
  return `P${d ? `${d}D` : ''}T${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s || (!h && !m) ? `${s}S` : ''}`;
}

const TRIGGER_CLASS: Record<string, string> = { after: 'airless.triggers.TimeDeltaTrigger', at: 'airless.triggers.DateTimeTrigger', event: 'airless.triggers.SignalTrigger' };

/**
 * Airflow's TriggerResponse for a deferred task: Airless keeps the trigger on the task
 * instance, so its id is derived from the instance's key and try (stable on every read),
 * its kwargs are the trigger's own JSON and its creation time the try's start.
 */
function triggerJson(run: DagRun, taskId: string, ti: TaskInstance | undefined) {
  if (!ti?.trigger) return null;
  const kind = Object.keys(ti.trigger)[0];
  return {
    id: Number.parseInt(uuidFor('trigger', run.dagId, run.runId, ti.taskId, String(ti.tryNumber)).slice(0, 8), 16) & 0x7fffffff,
    classpath: TRIGGER_CLASS[kind] ?? `airless.triggers.${kind}`,
    kwargs: JSON.stringify({ ...ti.trigger, ...(ti.deferTimeoutAt === undefined ? {} : { timeout: iso(ti.deferTimeoutAt) }) }),
    created_date: iso(ti.startedAt ?? ti.queuedAt ?? run.queuedAt),
    triggerer_id: null,
    queue: null,
  };
}
