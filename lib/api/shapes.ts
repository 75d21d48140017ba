/**
 * Airless records in the JSON shapes of Airflow 3's public REST API (v2): same field
 * names, ISO-8601 dates, null for what Airless does not have. Fields Airless has no
 * notion of (pools, executors, hostnames) are present and null so strict clients parse.
 */
import type { DagRecord, DagRun, DagSpec, TaskInstance, TaskSpec } from '../engine/index.js';

const iso = (ms: number | undefined | null) => (ms === undefined || ms === null ? null : new Date(ms).toISOString());
const seconds = (a?: number, b?: number) => (a === undefined || b === undefined ? null : (b - a) / 1000);

export function timetableSummary(spec: DagSpec): string | null {
  const s = spec.schedule;
  if (spec.assetSchedule) return 'Asset';
  if (!s) return null;
  return s.kind === 'cron' ? s.expr : `rate(${s.everyMs / 1000} seconds)`;
}

function timetableDescription(spec: DagSpec): string {
  const s = spec.schedule;
  if (spec.assetSchedule) return 'Triggered by assets';
  if (!s) return 'Never, external triggers only';
  return s.kind === 'cron' ? `cron ${s.expr} (${s.timezone})` : `every ${s.everyMs / 1000} s`;
}

/** Airflow's DAGResponse. */
export function dagJson(d: DagRecord) {
  const s = d.spec;
  return {
    dag_id: d.dagId,
    dag_display_name: d.dagId,
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
    tags: s.tags.map((name) => ({ name, dag_id: d.dagId })),
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
    file_token: null,
  };
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
    params: Object.fromEntries(Object.entries(s.params).map(([k, v]) => [k, { value: v, description: null, schema: {} }])),
    is_paused_upon_creation: s.pausedOnCreation,
    doc_md: null,
    render_template_as_native_obj: false,
    active_runs_count: d.activeRuns ?? 0,
  };
}

/** Airflow's DAGRunResponse. */
export function dagRunJson(r: DagRun) {
  return {
    dag_run_id: r.runId,
    dag_id: r.dagId,
    dag_display_name: r.dagId,
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
    note: null,
    dag_versions: [],
    bundle_version: r.bundleVersion,
  };
}

/** Airflow's `max_tries`: retries plus the tries made before the last clear. */
export function maxTries(t: TaskSpec | undefined, ti?: TaskInstance): number {
  return (ti?.tryBase ?? 0) + (t?.retries ?? 0);
}

function operatorName(t: TaskSpec | undefined): string | null {
  if (!t) return null;
  return t.kind === 'sensor' ? `${t.sensor?.type ?? ''}Sensor` : t.kind === 'branch' ? 'BranchOperator' : 'PythonOperator';
}

/**
 * Airflow's TaskInstanceResponse. A task with no instance yet (not reached) is reported
 * with state null, as Airflow lists them. A mapped instance (`size#3`) is task `size` with
 * `map_index` 3; anything else has -1.
 */
export function taskInstanceJson(run: DagRun, t: TaskSpec | undefined, taskId: string, ti: TaskInstance | undefined, rendered?: Record<string, unknown>) {
  const mapIndex = ti?.mapIndex ?? -1;
  return {
    id: `${run.dagId}/${run.runId}/${taskId}/${mapIndex}`,
    task_id: taskId,
    dag_id: run.dagId,
    dag_run_id: run.runId,
    map_index: mapIndex,
    logical_date: iso(run.logicalDate),
    run_after: iso(run.logicalDate),
    start_date: iso(ti?.startedAt),
    end_date: iso(ti?.endedAt),
    duration: seconds(ti?.startedAt, ti?.endedAt),
    state: ti?.state ?? null,
    try_number: ti?.tryNumber ?? 0,
    max_tries: maxTries(t, ti),
    task_display_name: taskId,
    dag_display_name: run.dagId,
    hostname: null,
    unixname: null,
    pool: 'default_pool',
    pool_slots: 1,
    queue: null,
    priority_weight: null,
    operator: operatorName(t),
    operator_name: operatorName(t),
    queued_when: iso(ti?.queuedAt),
    scheduled_when: null,
    pid: null,
    executor: 'airless',
    executor_config: '{}',
    note: null,
    rendered_map_index: mapIndex >= 0 ? String(mapIndex) : null,
    rendered_fields: rendered ?? {},
    trigger: ti?.trigger ? { kind: Object.keys(ti.trigger)[0], spec: ti.trigger, timeout_at: iso(ti.deferTimeoutAt) } : null,
    triggerer_job: null,
    dag_version: null,
    error: ti?.error ?? null,
  };
}
