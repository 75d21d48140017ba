/**
 * The requests that drive each operation for the coverage count (coverage-probes.ts): a
 * success and the errors a client meets (unknown DAG, run or task; bad input). Each list
 * is made fresh for the operation, so an operation that changes state makes its own run.
 */
import { assetId } from '../../lib/engine/index.js';
import { allOf, asset, dag, definePool } from '../../lib/sdk/index.js';
import type { DagDefinition } from '../../lib/sdk/types.js';
import type { apiOverRuntime } from './support.js';
import { MORE_PROBES } from './coverage-requests-more.js';

export interface Probe {
  method?: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent without the token. */
  anonymous?: boolean;
  /**
   * The answer of an Airflow without the feature (`get_config` with expose_config off: 403):
   * this status counts as the operation's answer (coverage-probes.ts reports these apart).
   */
  off?: number;
}

type Harness = Awaited<ReturnType<typeof apiOverRuntime>>;

export interface Fixture {
  h: Harness;
  /** A finished run of etl_daily (extract took two tries). */
  run: string;
  /** A finished run of probe_mapped (three instances of `size`). */
  mappedRun: string;
  /** A fresh finished run of etl_daily, for operations that change or delete one. */
  freshRun: () => Promise<string>;
}

export function probeDags(): DagDefinition[] {
  return [
    dag('probe_mapped', { schedule: null, tags: ['probe'] }, ({ task }) => {
      const list = task('list', async () => ['a', 'bb', 'ccc']);
      task('size', async (_ctx, s: string) => s.length, { pool: definePool('probe_pool', { slots: 3, description: 'probes' }) }).expand(list);
    }),
    dag('probe_producer', { schedule: null }, ({ task }) => { task('write', () => 1, { outlets: [probeRaw] }); }),
    // Waits on both assets, so an event of one stays queued for it.
    dag('probe_consumer', { schedule: allOf(probeRaw, probeOther), displayName: 'Probe consumer' }, ({ task }) => { task('read', () => 1, { inlets: [probeRaw] }); }),
  ];
}

const probeRaw = asset('probe://lake/raw', { name: 'probe_raw', group: 'probe', extra: { owner: 'probes' } });
const probeOther = asset('probe://lake/other');
const RAW_ID = assetId(probeRaw.uri);
/** Queues an event of probe_raw for probe_consumer (an asset event through the API), so a queued event exists to read. */
async function queueRaw(f: Fixture): Promise<void> {
  const r = await f.h.call('POST', '/api/v2/assets/events', { asset_id: RAW_ID, extra: { from: 'probes' } });
  if (r.status !== 200) throw new Error(`asset event for the probes: ${r.status} ${r.text}`);
}

const E = encodeURIComponent;

let open: Promise<number> | undefined;
/** A run of etl_daily not started yet (its tasks wait for the clock), made on first use. */
let queuedRun: Promise<string> | undefined;
/** A backfill of etl_daily that is still running (its runs wait for the clock), made on first use. */
function openBackfill(f: Fixture): Promise<number> {
  open ??= f.h.call('POST', '/api/v2/backfills', { dag_id: 'etl_daily', from_date: '2025-10-01T00:00:00Z', to_date: '2025-10-03T00:00:00Z', max_active_runs: 1 })
    .then((r) => { if (r.status !== 200) throw new Error(`backfill for the probes: ${r.status} ${r.text}`); return r.json.id as number; });
  return open;
}
const RUNS = '/api/v2/dags/etl_daily/dagRuns';

export const PROBES: { setup: (h: Harness) => Promise<Fixture>; byOperation: Record<string, (f: Fixture) => Promise<Probe[]>> } = {
  async setup(h) {
    open = undefined;
    queuedRun = undefined;
    const freshRun = async () => {
      const r = await h.rt.trigger('etl_daily', { conf: { full: true } });
      await h.rt.runToCompletion('etl_daily', r.runId);
      return r.runId;
    };
    const mapped = await h.rt.trigger('probe_mapped');
    await h.rt.runToCompletion('probe_mapped', mapped.runId);
    return { h, run: await freshRun(), mappedRun: mapped.runId, freshRun };
  },
  byOperation: {
    get_version: async () => [{ path: '/api/v2/version' }],
    get_health: async () => [{ path: '/api/v2/monitor/health' }],
    get_dags: async () => [
      { path: '/api/v2/dags?limit=1&offset=1' }, { path: '/api/v2/dags?dag_id_pattern=etl&paused=false&tags=probe' },
      { path: '/api/v2/dags?limit=-1' }, { path: '/api/v2/dags?order_by=color' },
    ],
    get_dag: async () => [{ path: '/api/v2/dags/etl_daily' }, { path: '/api/v2/dags/nope' }],
    get_dag_details: async () => [{ path: '/api/v2/dags/etl_daily/details' }, { path: '/api/v2/dags/nope/details' }],
    patch_dag: async () => [
      { path: '/api/v2/dags/probe_mapped', body: { is_paused: false } }, { path: '/api/v2/dags/probe_mapped', body: { is_paused: 'yes' } },
      { path: '/api/v2/dags/probe_mapped?update_mask=owners', body: { is_paused: true } }, { path: '/api/v2/dags/nope', body: { is_paused: true } },
      { path: '/api/v2/dags/probe_mapped', body: '{"is_paused": ' },
    ],
    get_dag_runs: async () => [
      { path: `${RUNS}?order_by=-logical_date&limit=2` }, { path: '/api/v2/dags/~/dagRuns?state=success' },
      { path: '/api/v2/dags/~/dagRuns?run_type=manual&dag_id_pattern=etl%&start_date_gte=2020-01-01T00:00:00Z&order_by=-start_date' },
      { path: `${RUNS}?run_type=cron` }, { path: `${RUNS}?end_date_lt=never` },
      { path: `${RUNS}?state=done` }, { path: `${RUNS}?order_by=__proto__` }, { path: '/api/v2/dags/nope/dagRuns' },
    ],
    trigger_dag_run: async () => [
      { path: '/api/v2/dags/probe_mapped/dagRuns', body: { logical_date: null, conf: {} } },
      { path: '/api/v2/dags/probe_mapped/dagRuns', body: { logical_date: null, conf: [1] } },
      { path: '/api/v2/dags/probe_mapped/dagRuns', body: { logical_date: null, dag_run_id: 'a/b' } },
      { path: '/api/v2/dags/nope/dagRuns', body: { logical_date: null } },
    ],
    get_dag_run: async (f) => [{ path: `${RUNS}/${E(f.run)}` }, { path: `${RUNS}/nope` }],
    get_task_instances: async (f) => [
      { path: `${RUNS}/${E(f.run)}/taskInstances` }, { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances` },
      { path: '/api/v2/dags/~/dagRuns/~/taskInstances?state=failed&state=success&order_by=-start_date&limit=3' },
      { path: `/api/v2/dags/~/dagRuns/${E(f.run)}/taskInstances?task_id=extract&duration_gte=0&start_date_gte=2020-01-01T00:00:00Z` },
      { path: '/api/v2/dags/~/dagRuns/~/taskInstances?state=done' }, { path: '/api/v2/dags/~/dagRuns/~/taskInstances?order_by=color' },
      { path: '/api/v2/dags/~/dagRuns/~/taskInstances?start_date_gte=yesterday' }, { path: `${RUNS}/nope/taskInstances` },
    ],
    get_task_instance: async (f) => [{ path: `${RUNS}/${E(f.run)}/taskInstances/transform` }, { path: `${RUNS}/${E(f.run)}/taskInstances/nope` }],
    post_clear_task_instances: async (f) => [
      { path: '/api/v2/dags/etl_daily/clearTaskInstances', body: { dag_run_id: f.run, task_ids: ['delta'], only_failed: false } },
      { path: '/api/v2/dags/etl_daily/clearTaskInstances', body: { task_ids: 'extract' } },
      { path: '/api/v2/dags/etl_daily/clearTaskInstances', body: { task_ids: ['nope'] } },
    ],
    patch_task_instance: async (f) => {
      const run = await f.freshRun();
      return [
        { path: `${RUNS}/${E(run)}/taskInstances/delta`, body: { new_state: 'success' } },
        { path: `${RUNS}/${E(run)}/taskInstances/delta`, body: { new_state: 'running' } },
        { path: `${RUNS}/${E(run)}/taskInstances/nope`, body: { new_state: 'success' } },
      ];
    },
    get_log: async (f) => [
      { path: `${RUNS}/${E(f.run)}/taskInstances/extract/logs/1` },
      { path: `${RUNS}/${E(f.run)}/taskInstances/extract/logs/2`, headers: { accept: 'application/x-ndjson' } },
      { path: `${RUNS}/${E(f.run)}/taskInstances/extract/logs/9` },
    ],
    get_xcom_entries: async (f) => [{ path: `${RUNS}/${E(f.run)}/taskInstances/transform/xcomEntries` }, { path: `${RUNS}/nope/taskInstances/transform/xcomEntries` }],
    get_xcom_entry: async (f) => [
      { path: `${RUNS}/${E(f.run)}/taskInstances/transform/xcomEntries/return_value` },
      { path: `${RUNS}/${E(f.run)}/taskInstances/transform/xcomEntries/other` },
    ],
    get_task_instance_tries: async (f) => [{ path: `${RUNS}/${E(f.run)}/taskInstances/extract/tries` }, { path: `${RUNS}/${E(f.run)}/taskInstances/nope/tries` }],
    get_mapped_task_instances: async (f) => [
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/listMapped` },
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/nope/listMapped` },
    ],
    get_mapped_task_instance: async (f) => [
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/1` },
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/7` },
    ],
    patch_dag_run: async (f) => {
      const run = await f.freshRun();
      return [
        { path: `${RUNS}/${E(run)}`, body: { state: 'failed' } }, { path: `${RUNS}/${E(run)}?update_mask=note`, body: { note: 'checked', state: 'success' } },
        { path: `${RUNS}/${E(run)}`, body: { state: 'running' } }, { path: `${RUNS}/${E(run)}?update_mask=conf`, body: {} },
        { path: `${RUNS}/nope`, body: { state: 'success' } },
      ];
    },
    clear_dag_run: async (f) => {
      const run = await f.freshRun();
      return [
        { path: `${RUNS}/${E(run)}/clear`, body: {} }, { path: `${RUNS}/${E(run)}/clear`, body: { dry_run: false, only_failed: true } },
        { path: `${RUNS}/${E(run)}/clear`, body: { dry_run: 'no' } }, { path: `${RUNS}/nope/clear`, body: {} },
      ];
    },
    get_dag_tags: async () => [{ path: '/api/v2/dagTags?tag_name_pattern=pro%' }, { path: '/api/v2/dagTags?order_by=-name&limit=1' }, { path: '/api/v2/dagTags?order_by=color' }],
    get_dag_stats: async () => [{ path: '/api/v2/dagStats' }, { path: '/api/v2/dagStats?dag_ids=etl_daily,probe_mapped' }],
    get_task_instance_try_details: async (f) => [
      { path: `${RUNS}/${E(f.run)}/taskInstances/extract/tries/1` }, { path: `${RUNS}/${E(f.run)}/taskInstances/extract/tries/2` },
      { path: `${RUNS}/${E(f.run)}/taskInstances/extract/tries/9` }, { path: `${RUNS}/${E(f.run)}/taskInstances/extract/tries/x` },
    ],
    patch_task_instance_by_map_index: async (f) => [
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/1`, body: { note: 'looked at it' } },
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/9`, body: { note: 'x' } },
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/1`, body: { new_state: 'running' } },
    ],
    post_variable: async () => [
      { path: '/api/v2/variables', body: { key: 'probe_region', value: 'eu-west-1', description: null } },
      { path: '/api/v2/variables', body: { key: 'probe_region', value: 'x' } }, { path: '/api/v2/variables', body: { key: 'a b', value: 'x' } },
      { path: '/api/v2/variables', body: { key: 'probe_json', value: { a: [1] } } },
    ],
    get_variables: async () => [
      { path: '/api/v2/variables' }, { path: '/api/v2/variables?variable_key_pattern=probe%&order_by=-key&limit=1' }, { path: '/api/v2/variables?order_by=color' },
    ],
    get_variable: async () => [{ path: '/api/v2/variables/probe_region' }, { path: '/api/v2/variables/nope' }],
    patch_variable: async () => [
      { path: '/api/v2/variables/probe_region', body: { key: 'probe_region', value: 'us-east-1' } },
      { path: '/api/v2/variables/probe_region?update_mask=description', body: { key: 'probe_region', value: 'ignored', description: 'd' } },
      { path: '/api/v2/variables/probe_region', body: { key: 'other', value: 'x' } }, { path: '/api/v2/variables/nope', body: { key: 'nope', value: 'x' } },
      { path: '/api/v2/variables/probe_region', body: { key: 'probe_region' } },
    ],
    delete_variable: async () => [{ path: '/api/v2/variables/probe_json' }, { path: '/api/v2/variables/probe_json' }],
    post_connection: async () => [
      { path: '/api/v2/connections', body: { connection_id: 'probe_db', conn_type: 'postgres', host: 'db', port: 5432, login: 'u', password: 'p', extra: '{"sslmode":"require"}' } },
      { path: '/api/v2/connections', body: { connection_id: 'probe_db', conn_type: 'postgres' } }, { path: '/api/v2/connections', body: { connection_id: 'a b', conn_type: 'x' } },
      { path: '/api/v2/connections', body: { connection_id: 'probe_gone', conn_type: 'http' } },
    ],
    get_connections: async () => [{ path: '/api/v2/connections' }, { path: '/api/v2/connections?connection_id_pattern=probe%&order_by=-connection_id' }, { path: '/api/v2/connections?order_by=host' }],
    get_connection: async () => [{ path: '/api/v2/connections/probe_db' }, { path: '/api/v2/connections/nope' }],
    patch_connection: async () => [
      { path: '/api/v2/connections/probe_db?update_mask=host', body: { connection_id: 'probe_db', conn_type: 'postgres', host: 'db2' } },
      { path: '/api/v2/connections/probe_db', body: { connection_id: 'other', conn_type: 'postgres' } }, { path: '/api/v2/connections/nope', body: { connection_id: 'nope', conn_type: 'x' } },
      { path: '/api/v2/connections/probe_db', body: { connection_id: 'probe_db', conn_type: 'postgres', port: 'x' } },
    ],
    delete_connection: async () => [{ path: '/api/v2/connections/probe_gone' }, { path: '/api/v2/connections/probe_gone' }],
    get_pools: async () => [{ path: '/api/v2/pools' }, { path: '/api/v2/pools?pool_name_pattern=probe%&order_by=-name&limit=1' }, { path: '/api/v2/pools?order_by=color' }],
    get_pool: async () => [{ path: '/api/v2/pools/probe_pool' }, { path: '/api/v2/pools/nope' }],
    get_mapped_task_instance_tries: async (f) => [
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/2/tries` },
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/7/tries` },
    ],
    get_mapped_task_instance_try_details: async (f) => [
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/2/tries/1` },
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/2/tries/2` },
    ],
    get_tasks: async () => [{ path: '/api/v2/dags/etl_daily/tasks' }, { path: '/api/v2/dags/probe_mapped/tasks?order_by=-task_id' }, { path: '/api/v2/dags/nope/tasks' }, { path: '/api/v2/dags/etl_daily/tasks?order_by=color' }],
    get_task: async () => [{ path: '/api/v2/dags/etl_daily/tasks/extract' }, { path: '/api/v2/dags/probe_mapped/tasks/size' }, { path: '/api/v2/dags/etl_daily/tasks/nope' }],
    get_plugins: async () => [{ path: '/api/v2/plugins' }, { path: '/api/v2/plugins?limit=-1' }],
    import_errors: async () => [{ path: '/api/v2/plugins/importErrors' }],
    get_providers: async () => [{ path: '/api/v2/providers?limit=10' }, { path: '/api/v2/providers?offset=x' }],
    get_config: async () => [{ path: '/api/v2/config', off: 403 }],
    get_config_value: async () => [{ path: '/api/v2/config/section/core/option/executor', off: 403 }],
    get_task_instance_dependencies: async (f) => {
      queuedRun ??= f.h.rt.trigger('etl_daily', { logicalDate: Date.parse('2025-06-01T00:00:00Z') }).then((r) => r.runId);
      return [{ path: `${RUNS}/${E(await queuedRun)}/taskInstances/load/dependencies` }, { path: `${RUNS}/${E(f.run)}/taskInstances/load/dependencies` }, { path: `${RUNS}/${E(f.run)}/taskInstances/nope/dependencies` }];
    },
    get_task_instance_dependencies_by_map_index: async (f) => [
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/1/dependencies` },
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/9/dependencies` },
    ],
    patch_task_instance_dry_run: async (f) => [
      { path: `${RUNS}/${E(f.run)}/taskInstances/extract/dry_run`, body: { new_state: 'failed' } },
      { path: `${RUNS}/${E(f.run)}/taskInstances/extract/dry_run`, body: { new_state: 'running' } },
      { path: `${RUNS}/${E(f.run)}/taskInstances/nope/dry_run`, body: { new_state: 'failed' } },
    ],
    patch_task_instance_dry_run_by_map_index: async (f) => [
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/1/dry_run`, body: { new_state: 'failed' } },
      { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/9/dry_run`, body: { new_state: 'failed' } },
    ],
    get_extra_links: async (f) => [{ path: `${RUNS}/${E(f.run)}/taskInstances/extract/links` }, { path: `${RUNS}/${E(f.run)}/taskInstances/nope/links` }],
    get_external_log_url: async (f) => [
      { path: `${RUNS}/${E(f.run)}/taskInstances/extract/externalLogUrl/1`, off: 400 }, { path: `${RUNS}/${E(f.run)}/taskInstances/nope/externalLogUrl/1` },
    ],
    get_task_instances_batch: async (f) => [
      { path: '/api/v2/dags/~/dagRuns/~/taskInstances/list', body: { dag_ids: ['etl_daily'], state: ['success'], order_by: '-start_date', page_limit: 5 } },
      { path: '/api/v2/dags/~/dagRuns/~/taskInstances/list', body: { dag_run_ids: [f.run], task_ids: ['extract'], start_date_gte: '2020-01-01T00:00:00Z' } },
      { path: '/api/v2/dags/~/dagRuns/~/taskInstances/list', body: { state: ['done'] } }, { path: '/api/v2/dags/~/dagRuns/~/taskInstances/list', body: { color: 1 } },
      { path: '/api/v2/dags/~/dagRuns/~/taskInstances/list', body: { dag_ids: 'etl_daily' } },
    ],
    get_list_dag_runs_batch: async () => [
      { path: '/api/v2/dags/~/dagRuns/list', body: { dag_ids: ['etl_daily', 'probe_mapped'], states: ['success'], order_by: '-logical_date', page_limit: 3 } },
      { path: '/api/v2/dags/~/dagRuns/list', body: { start_date_gte: '2020-01-01T00:00:00Z', duration_gte: 0 } },
      { path: '/api/v2/dags/~/dagRuns/list', body: { states: ['done'] } }, { path: '/api/v2/dags/~/dagRuns/list', body: { color: 1 } },
    ],
    list_backfills: async () => [{ path: '/api/v2/backfills?dag_id=etl_daily' }, { path: '/api/v2/backfills' }],
    create_backfill: async () => [
      { path: '/api/v2/backfills', body: { dag_id: 'etl_daily', from_date: '2025-12-01T00:00:00Z', to_date: '2025-12-02T00:00:00Z', reprocess_behavior: 'none', max_active_runs: 1, run_backwards: false, dag_run_conf: {} } },
      { path: '/api/v2/backfills', body: { dag_id: 'etl_daily', from_date: 'x', to_date: '2025-12-02T00:00:00Z' } },
    ],
    create_backfill_dry_run: async () => [
      { path: '/api/v2/backfills/dry_run', body: { dag_id: 'etl_daily', from_date: '2025-11-01T00:00:00Z', to_date: '2025-11-02T00:00:00Z' } },
      { path: '/api/v2/backfills/dry_run', body: { dag_id: 'nope', from_date: '2025-11-01T00:00:00Z', to_date: '2025-11-02T00:00:00Z' } },
    ],
    get_backfill: async () => [{ path: '/api/v2/backfills/1' }, { path: '/api/v2/backfills/999' }, { path: '/api/v2/backfills/x' }],
    // The spec lists cancel before these: they drive a backfill of their own, made once (make is called twice).
    pause_backfill: async (f) => [{ path: `/api/v2/backfills/${await openBackfill(f)}/pause` }, { path: '/api/v2/backfills/999/pause' }],
    unpause_backfill: async (f) => [{ path: `/api/v2/backfills/${await openBackfill(f)}/unpause` }, { path: '/api/v2/backfills/999/unpause' }],
    get_assets: async () => [
      { path: '/api/v2/assets' }, { path: '/api/v2/assets?name_pattern=probe%&dag_ids=probe_consumer&order_by=-name&limit=1' },
      { path: '/api/v2/assets?only_active=maybe' }, { path: '/api/v2/assets?order_by=color' },
    ],
    get_asset_events: async () => [
      { path: `/api/v2/assets/events?asset_id=${RAW_ID}&timestamp_gte=2020-01-01T00:00:00Z&order_by=-timestamp` }, { path: '/api/v2/assets/events?source_dag_id=probe_producer' },
      { path: '/api/v2/assets/events?asset_id=x' }, { path: '/api/v2/assets/events?asset_id=12345' }, { path: '/api/v2/assets/events?timestamp_lt=never' },
    ],
    create_asset_event: async () => [
      { path: '/api/v2/assets/events', body: { asset_id: RAW_ID, extra: { rows: 1 } } }, { path: '/api/v2/assets/events', body: { asset_id: 'x' } },
      { path: '/api/v2/assets/events', body: { asset_id: RAW_ID, extra: [1] } }, { path: '/api/v2/assets/events', body: { asset_id: 12345 } },
    ],
    get_asset: async () => [{ path: `/api/v2/assets/${RAW_ID}` }, { path: '/api/v2/assets/12345' }, { path: '/api/v2/assets/x' }],
    delete_asset_queued_events: async () => [
      { path: `/api/v2/assets/${RAW_ID}/queuedEvents` }, { path: '/api/v2/assets/12345/queuedEvents' }, { path: `/api/v2/assets/${RAW_ID}/queuedEvents?before=2026-01-01` },
    ],
    get_asset_queued_events: async (f) => {
      await queueRaw(f);
      return [{ path: `/api/v2/assets/${RAW_ID}/queuedEvents` }, { path: '/api/v2/assets/12345/queuedEvents' }, { path: '/api/v2/assets/x/queuedEvents' }];
    },
    delete_dag_asset_queued_events: async () => [
      { path: '/api/v2/dags/probe_consumer/assets/queuedEvents' }, { path: '/api/v2/dags/nope/assets/queuedEvents' },
      { path: '/api/v2/dags/probe_consumer/assets/queuedEvents?before=2026-01-01' },
    ],
    get_dag_asset_queued_events: async (f) => {
      await queueRaw(f);
      return [{ path: '/api/v2/dags/probe_consumer/assets/queuedEvents' }, { path: '/api/v2/dags/probe_consumer/assets/queuedEvents?before=x' }];
    },
    delete_dag_asset_queued_event: async () => [
      { path: `/api/v2/dags/probe_consumer/assets/${RAW_ID}/queuedEvents` }, { path: '/api/v2/dags/probe_consumer/assets/12345/queuedEvents' },
      { path: '/api/v2/dags/nope/assets/1/queuedEvents' },
    ],
    get_dag_asset_queued_event: async (f) => {
      await queueRaw(f);
      return [
        { path: `/api/v2/dags/probe_consumer/assets/${RAW_ID}/queuedEvents` }, { path: `/api/v2/dags/probe_producer/assets/${RAW_ID}/queuedEvents` },
        { path: '/api/v2/dags/probe_consumer/assets/x/queuedEvents' },
      ];
    },
    get_upstream_asset_events: async (f) => {
      // probe_raw is queued for probe_consumer (above): an event of probe_other completes its schedule and makes a run.
      await queueRaw(f);
      await f.h.call('POST', '/api/v2/assets/events', { asset_id: assetId(probeOther.uri) });
      await f.h.rt.runUntil(async () => (await f.h.rt.ports.store.listRuns('probe_consumer', {})).length > 0);
      const [run] = await f.h.rt.ports.store.listRuns('probe_consumer', {});
      return [
        { path: `/api/v2/dags/probe_consumer/dagRuns/${E(run.runId)}/upstreamAssetEvents` }, { path: `${RUNS}/${E(f.run)}/upstreamAssetEvents` },
        { path: '/api/v2/dags/probe_consumer/dagRuns/nope/upstreamAssetEvents' },
      ];
    },
    cancel_backfill: async () => [{ path: '/api/v2/backfills/1/cancel' }, { path: '/api/v2/backfills/999/cancel' }],
    ...MORE_PROBES,
  },
};
