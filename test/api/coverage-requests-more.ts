/**
 * Requests for the operations added after coverage-requests.ts filled up (the same
 * {@link Probe} lists, merged into `PROBES.byOperation` there): XCom writes, deletes,
 * event logs, the run `/wait`, sources, versions, warnings, import errors and bulk forms.
 */
import type { Fixture, Probe } from './coverage-requests.js';

const E = encodeURIComponent;
const RUNS = '/api/v2/dags/etl_daily/dagRuns';

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
};
