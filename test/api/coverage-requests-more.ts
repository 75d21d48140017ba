/**
 * Requests for the operations added after coverage-requests.ts filled up (the same
 * {@link Probe} lists, merged into `PROBES.byOperation` there): XCom writes, deletes,
 * event logs, the run `/wait`, sources, versions, warnings, import errors and bulk forms.
 */
import type { Fixture, Probe } from './coverage-requests.js';

const E = encodeURIComponent;
const RUNS = '/api/v2/dags/etl_daily/dagRuns';
let unfinished: Promise<string> | undefined;

export const MORE_PROBES: Record<string, (f: Fixture) => Promise<Probe[]>> = {
  create_xcom_entry: async (f) => [
    { path: `${RUNS}/${E(f.run)}/taskInstances/transform/xcomEntries`, body: { key: `probe_note_${Math.random()}`, value: { rows: 3 } } },
    { path: `${RUNS}/${E(f.run)}/taskInstances/transform/xcomEntries`, body: { key: 'return_value', value: 1 } },
    { path: `${RUNS}/${E(f.run)}/taskInstances/transform/xcomEntries`, body: { value: 1 } },
    { path: `${RUNS}/${E(f.run)}/taskInstances/nope/xcomEntries`, body: { key: 'k', value: 1 } },
    { path: `/api/v2/dags/probe_mapped/dagRuns/${E(f.mappedRun)}/taskInstances/size/xcomEntries`, body: { key: 'return_value', value: 1, map_index: 1 } },
  ],
  update_xcom_entry: async (f) => [
    { method: 'PATCH', path: `${RUNS}/${E(f.run)}/taskInstances/transform/xcomEntries/return_value`, body: { value: { rows: 4 } } },
    { method: 'PATCH', path: `${RUNS}/${E(f.run)}/taskInstances/transform/xcomEntries/never_written`, body: { value: 1 } },
    { method: 'PATCH', path: `${RUNS}/${E(f.run)}/taskInstances/transform/xcomEntries/return_value`, body: { value: 1, map_index: 'x' } },
  ],
  get_event_logs: async (f) => {
    await f.h.call('PATCH', '/api/v2/dags/probe_mapped', { is_paused: false });
    return [
      { path: '/api/v2/eventLogs' }, { path: '/api/v2/eventLogs?dag_id=probe_mapped&event=patch_dag&order_by=-when&limit=1' },
      { path: '/api/v2/eventLogs?event_pattern=patch%&excluded_events=trigger_dag_run&after=2000-01-01T00:00:00Z' },
      { path: '/api/v2/eventLogs?order_by=color' }, { path: '/api/v2/eventLogs?before=never' }, { path: '/api/v2/eventLogs?map_index=x' },
    ];
  },
  get_event_log: async (f) => {
    await f.h.call('PATCH', '/api/v2/dags/probe_mapped', { is_paused: false });
    return [{ path: '/api/v2/eventLogs/1' }, { path: '/api/v2/eventLogs/99999' }, { path: '/api/v2/eventLogs/x' }];
  },
  delete_dag_run: async (f) => {
    const run = await f.freshRun();
    // A run whose tasks wait for the clock (made once: each list is made twice).
    unfinished ??= f.h.rt.trigger('etl_daily', { logicalDate: Date.parse('2025-07-01T00:00:00Z') }).then((r) => r.runId);
    return [{ path: `${RUNS}/${E(run)}` }, { path: `${RUNS}/${E(run)}` }, { path: `${RUNS}/${E(await unfinished)}` }, { path: '/api/v2/dags/nope/dagRuns/x' }];
  },
  delete_task_instance: async (f) => {
    const run = await f.freshRun();
    return [
      { path: `${RUNS}/${E(run)}/taskInstances/extract` }, { path: `${RUNS}/${E(run)}/taskInstances/extract` },
      { path: `${RUNS}/${E(run)}/taskInstances/nope` }, { path: `${RUNS}/${E(run)}/taskInstances/load?map_index=x` },
    ];
  },
  wait_dag_run_until_finished: async (f) => [
    { path: `${RUNS}/${E(f.run)}/wait?interval=1&result=transform&result=extract` },
    { path: `${RUNS}/${E(f.run)}/wait?interval=1`, headers: { accept: 'application/x-ndjson' } },
    { path: `${RUNS}/${E(f.run)}/wait` }, { path: `${RUNS}/${E(f.run)}/wait?interval=0` }, { path: `${RUNS}/nope/wait?interval=1` },
  ],
  bulk_variables: async () => [
    { path: '/api/v2/variables', body: { actions: [
      { action: 'create', entities: [{ key: 'bulk_a', value: '1' }, { key: 'bulk_b', value: '2' }], action_on_existence: 'overwrite' },
      { action: 'update', entities: [{ key: 'bulk_a', value: '3' }, { key: 'bulk_none', value: 'x' }], action_on_non_existence: 'skip' },
      { action: 'delete', entities: ['bulk_b', 'bulk_none'] },
    ] } },
    { path: '/api/v2/variables', body: { actions: [{ action: 'create', entities: [{ key: 'a b', value: '1' }] }] } },
    { path: '/api/v2/variables', body: { actions: [{ action: 'rename', entities: [] }] } }, { path: '/api/v2/variables', body: {} },
  ],
  bulk_connections: async () => [
    { path: '/api/v2/connections', body: { actions: [
      { action: 'create', entities: [{ connection_id: 'bulk_db', conn_type: 'postgres', host: 'db' }], action_on_existence: 'skip' },
      { action: 'update', entities: [{ connection_id: 'bulk_db', conn_type: 'postgres', host: 'db2' }], update_mask: ['host'] },
      { action: 'delete', entities: [{ connection_id: 'bulk_gone', conn_type: 'http' }] },
    ] } },
    { path: '/api/v2/connections', body: { actions: [{ action: 'create', entities: [{ connection_id: 'bulk_db', conn_type: 'postgres', port: 'x' }] }] } },
  ],
  get_dag_versions: async () => [
    { path: '/api/v2/dags/etl_daily/dagVersions' }, { path: '/api/v2/dags/~/dagVersions?version_number=1&order_by=-created_at&limit=5' },
    { path: '/api/v2/dags/nope/dagVersions' }, { path: '/api/v2/dags/etl_daily/dagVersions?order_by=color' }, { path: '/api/v2/dags/etl_daily/dagVersions?version_number=x' },
  ],
  get_dag_version: async () => [
    { path: '/api/v2/dags/etl_daily/dagVersions/1' }, { path: '/api/v2/dags/etl_daily/dagVersions/99' }, { path: '/api/v2/dags/etl_daily/dagVersions/x' },
    { path: '/api/v2/dags/nope/dagVersions/1' },
  ],
  get_dag_source: async () => [
    { path: '/api/v2/dagSources/etl_daily' }, { path: '/api/v2/dagSources/etl_daily?version_number=1', headers: { accept: 'text/plain' } },
    { path: '/api/v2/dagSources/etl_daily?version_number=99' }, { path: '/api/v2/dagSources/nope' },
    { path: '/api/v2/dagSources/etl_daily', headers: { accept: 'text/html' } }, { path: '/api/v2/dagSources/etl_daily?version_number=x' },
  ],
  get_import_errors: async (f) => {
    await f.h.rt.ports.store.putImportError('broken.ts', 'broken.ts: Expected ";" but found "}" (line 3, column 1)', Date.parse('2026-01-01T00:00:00Z'));
    return [
      { path: '/api/v2/importErrors' }, { path: '/api/v2/importErrors?filename_pattern=brok%25&order_by=-timestamp&limit=1' },
      { path: '/api/v2/importErrors?order_by=color' }, { path: '/api/v2/importErrors?limit=x' },
    ];
  },
  get_import_error: async (f) => {
    const { id } = await f.h.rt.ports.store.putImportError('broken.ts', 'broken.ts: Expected ";" but found "}"', Date.parse('2026-01-01T00:00:00Z'));
    return [{ path: `/api/v2/importErrors/${id}` }, { path: '/api/v2/importErrors/99999' }, { path: '/api/v2/importErrors/x' }];
  },
  list_dag_warnings: async () => [
    { path: '/api/v2/dagWarnings' }, { path: '/api/v2/dagWarnings?dag_id=probe_mapped&warning_type=non-existent%20pool&order_by=-timestamp' },
    { path: '/api/v2/dagWarnings?warning_type=other' }, { path: '/api/v2/dagWarnings?order_by=color' },
  ],
  bulk_task_instances: async (f) => {
    const run = await f.freshRun();
    return [
      { path: `${RUNS}/${E(run)}/taskInstances`, body: { actions: [
        { action: 'update', entities: [{ task_id: 'delta', new_state: 'success', note: 'by hand' }, { task_id: 'nope_never' }], action_on_non_existence: 'skip' },
        { action: 'delete', entities: ['audit', { task_id: 'load' }] },
      ] } },
      { path: '/api/v2/dags/~/dagRuns/~/taskInstances', body: { actions: [{ action: 'update', entities: [{ task_id: 'delta', dag_id: 'etl_daily', dag_run_id: run, new_state: 'failed' }] }] } },
      { path: `${RUNS}/${E(run)}/taskInstances`, body: { actions: [{ action: 'create', entities: [{ task_id: 'x' }] }] } },
      { path: '/api/v2/dags/~/dagRuns/~/taskInstances', body: { actions: [{ action: 'update', entities: [{ task_id: 'delta', new_state: 'failed' }] }] } },
      { path: `${RUNS}/${E(run)}/taskInstances`, body: { actions: [{ action: 'update', entities: [{ task_id: 'delta', new_state: 'running' }] }] } },
    ];
  },
  delete_xcom_entry: async (f) => {
    const at = `${RUNS}/${E(f.run)}/taskInstances/transform/xcomEntries`;
    const key = `probe_gone_${Math.random()}`;
    await f.h.call('POST', at, { key, value: 1 });
    return [{ path: `${at}/${key}` }, { path: `${at}/${key}` }, { path: `${at}/x?map_index=x` }, { path: `${RUNS}/nope/taskInstances/transform/xcomEntries/x` }];
  },
};
