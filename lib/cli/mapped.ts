/**
 * How the CLI shows mapped tasks: the tables group a mapped task's instances into its one
 * line with counts per state; `--json` lists each instance as its own entry with `mapIndex`.
 */
import { baseTaskId, isInstanceId, type TaskInstance } from '../engine/index.js';

/** Instances by their mapped task's id, each list in map-index order. */
export function groupInstances(tasks: readonly TaskInstance[]): Map<string, TaskInstance[]> {
  const out = new Map<string, TaskInstance[]>();
  for (const t of tasks) {
    if (!isInstanceId(t.taskId)) continue;
    const base = baseTaskId(t.taskId);
    let list = out.get(base);
    if (!list) out.set(base, (list = []));
    list.push(t);
  }
  for (const list of out.values()) list.sort((a, b) => (a.mapIndex ?? 0) - (b.mapIndex ?? 0));
  return out;
}

/** ` [3 mapped: 2 success, 1 failed]`, or '' for a task without instances. */
export function mappedNote(instances: readonly TaskInstance[] | undefined): string {
  if (!instances || instances.length === 0) return '';
  const counts = new Map<string, number>();
  for (const t of instances) counts.set(t.state, (counts.get(t.state) ?? 0) + 1);
  const parts = [...counts].sort((a, b) => b[1] - a[1]).map(([s, n]) => `${n.toLocaleString('en-US')} ${s}`);
  return ` [${instances.length.toLocaleString('en-US')} mapped: ${parts.join(', ')}]`;
}

/** The `--json` entries of a mapped task's instances. */
export function instanceRows(instances: readonly TaskInstance[] | undefined): Record<string, unknown>[] {
  return (instances ?? []).map((t) => {
    const row: Record<string, unknown> = {
      taskId: baseTaskId(t.taskId), mapIndex: t.mapIndex, state: t.state, tryNumber: t.tryNumber,
      durationMs: t.startedAt !== undefined && t.endedAt !== undefined ? t.endedAt - t.startedAt : null,
    };
    if (t.error) row.error = t.error;
    if (t.mapValue !== undefined && t.mapValue !== '@') row.xcom = JSON.parse(t.mapValue);
    return row;
  });
}
