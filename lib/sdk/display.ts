/**
 * Display names and docs (Airflow's `dag_display_name`, `task_display_name`, `doc_md`):
 * shown by the UI and the API instead of (or beside) the ids, never used to address anything.
 */
import type { DagSpec, TaskSpec } from '../engine/index.js';

function text(name: string, v: unknown, fail: (msg: string) => never): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '') fail(`${name} must be a non-empty string, got ${JSON.stringify(v)}`);
  return v as string;
}

/**
 * The display fields of a task, from its own options (not the DAG's defaultArgs: a
 * display name names one task).
 *
 * @example
 * taskDisplay({ displayName: 'Load 🚚', doc: '**Loads** the day' }, fail); // { displayName: 'Load 🚚', doc: '**Loads** the day' }
 */
export function taskDisplay(o: { displayName?: unknown; doc?: unknown } | undefined, fail: (msg: string) => never): Pick<TaskSpec, 'displayName' | 'doc'> {
  const displayName = text('displayName', o?.displayName, fail);
  const doc = text('doc', o?.doc, fail);
  return { ...(displayName !== undefined ? { displayName } : {}), ...(doc !== undefined ? { doc } : {}) };
}

/**
 * The display fields of a DAG.
 *
 * @example
 * dagDisplay({ displayName: 'Nightly ETL' }, fail); // { displayName: 'Nightly ETL' }
 */
export function dagDisplay(o: { displayName?: unknown; doc?: unknown }, fail: (msg: string) => never): Pick<DagSpec, 'displayName' | 'doc'> {
  return taskDisplay(o, fail);
}
