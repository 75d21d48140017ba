/** Deleting finished runs and task instances in process (engine model/run-delete-store.ts), over the memory store's maps. */
import { isRunTerminal, isTerminal, type DagRun, type TaskInstance, type TaskKey, type XcomKey } from '../../engine/index.js';
import { runKey, taskKey, xcomKey } from './records.js';
import { clearMemoryXcoms } from './xcom-clear.js';

/** The memory store's maps a delete changes. */
export interface MemoryRunMaps {
  runs: Map<string, Map<string, DagRun>>;
  tasks: Map<string, Map<string, TaskInstance>>;
  xcoms: Map<string, string>;
}

/**
 * @example
 * deleteMemoryRun(maps, 'etl', 'manual__1'); // true when the run had finished
 */
export function deleteMemoryRun(m: MemoryRunMaps, dagId: string, runId: string): boolean {
  const run = m.runs.get(dagId)?.get(runId);
  if (!run || !isRunTerminal(run.state)) return false;
  m.runs.get(dagId)!.delete(runId);
  for (const ti of m.tasks.get(runKey(dagId, runId))?.values() ?? []) clearMemoryXcoms(m.xcoms, taskKey(ti));
  m.tasks.delete(runKey(dagId, runId));
  return true;
}

/**
 * @example
 * deleteMemoryTask(maps, { dagId: 'etl', runId: 'manual__1', taskId: 'load' });
 */
export function deleteMemoryTask(m: MemoryRunMaps, key: TaskKey): boolean {
  const byRun = m.tasks.get(runKey(key.dagId, key.runId));
  const ti = byRun?.get(key.taskId);
  if (!ti || !isTerminal(ti.state)) return false;
  byRun!.delete(key.taskId);
  clearMemoryXcoms(m.xcoms, taskKey(key));
  return true;
}

/**
 * @example
 * deleteMemoryXcom(maps, { dagId: 'etl', runId: 'manual__1', taskId: 'load', key: 'note' });
 */
export function deleteMemoryXcom(m: MemoryRunMaps, key: XcomKey): boolean {
  return m.xcoms.delete(xcomKey(key));
}
