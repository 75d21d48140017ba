/**
 * Clearing mapped instances (`airless tasks clear` of `size#3`, or of the mapped task
 * `size`, which clears all its instances). A cleared instance forgets its outcome in its
 * shard, so the mapped task is decided again when it ends. Instances whose mapped task is
 * still running are queued at once; otherwise the mapped task is cleared too and, when it
 * runs again, queues its cleared instances (mapping-expand.ts). The expansion is not
 * recomputed: the instances keep their elements (docs/mapping.md says so).
 */
import { downstreamClosure, type RunCtx } from '../rules/dag-index.js';
import { baseTaskId, isInstanceId, parseInstanceId, shardOfIndex } from '../rules/mapping-ids.js';
import type { DagSpec, TaskInstance } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { queueTask } from './settle.js';
import { isTerminal } from '../model/states.js';
import { keyOf, transition } from '../write/transition.js';

/** The instances a clear of `taskIds` covers: those named, and every instance of a mapped task cleared as a whole. */
export function instancesToClear(spec: DagSpec, tis: readonly TaskInstance[], taskIds: readonly string[], downstream: boolean): TaskInstance[] {
  const named = new Set(taskIds.filter(isInstanceId));
  const plain = taskIds.filter((id) => !isInstanceId(id));
  const whole = downstream ? downstreamClosure(spec, plain) : new Set(plain);
  return tis.filter((ti) => isInstanceId(ti.taskId) && isTerminal(ti.state) && (named.has(ti.taskId) || whole.has(baseTaskId(ti.taskId))));
}

/** Clears instances (terminal → scheduled) and forgets their outcomes; returns the ids cleared. */
export async function clearInstances(p: Ports, rc: RunCtx, instances: readonly TaskInstance[]): Promise<TaskInstance[]> {
  const cleared: TaskInstance[] = [];
  for (const ti of instances) {
    const { taskId, mapIndex } = parseInstanceId(ti.taskId)!;
    const r = await transition(p, rc, ti, 'scheduled', { mapValue: null }, { forgetUpstream: [] });
    if (!r.ok) continue;
    await p.store.uncountMapped(keyOf(rc, taskId), shardOfIndex(mapIndex), mapIndex);
    cleared.push(r.item);
  }
  return cleared;
}

/** Queues cleared instances whose mapped task is still running (it will not run again to queue them). */
export async function queueCleared(p: Ports, rc: RunCtx, cleared: readonly TaskInstance[]): Promise<void> {
  const running = new Map<string, boolean>();
  for (const ti of cleared) {
    const base = baseTaskId(ti.taskId);
    if (!running.has(base)) running.set(base, (await p.store.getTask(keyOf(rc, base)))?.state === 'running');
    if (running.get(base)) await queueTask(p, rc, ti);
  }
}
