/**
 * Expanding a mapped task: the worker that claims the mapped task (or reconcile, when that
 * worker's lease ran out mid-way) reads its sources, checks them, and creates one queued
 * instance per element in chunks of conditional puts, sending their messages as it goes
 * (the queue adapter batches them by 10). A cursor on the mapped task records how far it
 * got, so a crash resumes there; the conditional puts make two expanders racing on the
 * same chunk create each instance once, and only the creator sends its message.
 */
import type { RunCtx } from '../rules/dag-index.js';
import { IN_XCOM, elementAt, inlineJson, instanceId, mapLength, namedSources } from '../rules/mapping-ids.js';
import { completeMapped } from './mapping-settle.js';
import { MAP_ITEM_KEY } from './mapping-values.js';
import { resolveSource } from './inputs.js';
import type { TaskInstance, TaskSpec } from '../model/types.js';
import type { Ports, TaskMessage } from '../model/ports.js';
import { afterTerminal, decideTask } from './settle.js';
import { queueTask } from './queue-task.js';
import { annotate, createTask, keyOf, retainUntil } from '../write/transition.js';
import { limitsApply } from '../rules/pool-limits.js';
import { failTry, finishTask } from './worker-finish.js';
import type { FollowAllowance, FollowUp } from './eager-follow.js';

/** Instances created per step of the cursor (puts in flight at once). */
export const EXPAND_CHUNK = 100;
const OPS = { decideTask, afterTerminal };

/** True for the mapped task itself (not one of its instances). */
export function isMappedParent(t: TaskSpec, ti: TaskInstance): boolean {
  return t.expand !== undefined && ti.mapIndex === undefined && !ti.taskId.includes('#');
}

/** The arrays behind an expand, or a one-line reason it cannot be mapped. */
async function resolveSources(p: Ports, rc: RunCtx, t: TaskSpec): Promise<unknown[][] | string> {
  const arrays: unknown[][] = [];
  for (const [name, s] of namedSources(t.expand!)) {
    // A literal array, another task's output (or a property of it), or a zip (flow/inputs.ts).
    const r = await resolveSource(p, rc, s);
    const field = name ? ` (for "${name}")` : '';
    if (!r.ok) return `task ${t.taskId} cannot expand${field}: ${r.error}`;
    const v = r.value;
    if (!Array.isArray(v)) {
      const what = v === undefined ? 'nothing' : v === null ? 'null' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
      const of = 'task' in s ? `the XCom of task ${s.task}${s.key ? ` (key ${s.key})` : ''}` : 'its source';
      return `task ${t.taskId} cannot expand over ${of}${field}: it must be an array, got ${what}`;
    }
    arrays.push(v);
  }
  return arrays;
}

/**
 * Expands (or resumes expanding) the mapped task `ti`, held by this worker in `running`.
 * An empty source skips the task; a source that is not an array, or more elements than
 * `maxMapLength`, fails it without retries (the same input would fail again). Returns the
 * follow-up claimed under `allow` when the mapped task ended here (flow/eager-follow.ts).
 */
export async function expandTask(p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance, allow?: FollowAllowance): Promise<FollowUp> {
  let parent = ti;
  let arrays: unknown[][] | string | undefined;
  if (parent.mapLength === undefined) {
    arrays = await resolveSources(p, rc, t);
    if (typeof arrays === 'string') return (await failTry(p, rc, t, parent, arrays, true, allow)).next;
    const n = mapLength(t.expand!, arrays);
    const cap = p.config.maxMapLength ?? 10_000;
    if (n > cap) {
      return (await failTry(p, rc, t, parent, `task ${t.taskId} would map ${n} instances, more than maxMapLength ${cap} (raise it with AIRLESS_MAX_MAP_LENGTH or EngineConfig.maxMapLength)`, true, allow)).next;
    }
    if (n === 0) {
      // As Airflow: a task mapped over nothing is skipped (one instance, no map index) and
      // never ran: its try number goes back (Airflow's is 0).
      return (await finishTask(p, rc, t, parent, { kind: 'skipped', reason: 'mapped over an empty list', untried: true }, allow)).next;
    }
    // No TTL on the count items: one set now would expire them while a long mapping still runs.
    await p.store.initMapCounts(keyOf(rc, t.taskId), n);
    const r = await annotate(p, parent, { mapLength: n, mapCursor: 0 });
    if (!r.ok) return;
    parent = r.item;
    p.log.info('expanding mapped task', { dagId: rc.run.dagId, runId: rc.run.runId, taskId: t.taskId, instances: n });
  }
  const n = parent.mapLength!;
  if (arrays === undefined && parent.mapCursor === n) {
    // Runs again after a clear: queue the instances that were cleared (mapping-clear.ts).
    for (const inst of await p.store.listMapped(keyOf(rc, t.taskId))) if (inst.state === 'scheduled') await queueTask(p, rc, inst);
  } else if ((parent.mapCursor ?? 0) < n) {
    arrays ??= await resolveSources(p, rc, t);
    if (typeof arrays === 'string' || mapLength(t.expand!, arrays) !== n) {
      return (await failTry(p, rc, t, parent, typeof arrays === 'string' ? arrays : `task ${t.taskId}: its source changed while it was being expanded`, true, allow)).next;
    }
    const created = await createInstances(p, rc, t, parent, arrays);
    if (!created) return;
    parent = created;
  }
  // Expanded: the mapped task now waits for its instances without a lease (nothing runs it).
  await annotate(p, parent, { leaseUntil: null, mapCursor: n });
  return (await completeMapped(p, rc, t.taskId, OPS, allow)).next;
}

async function createInstances(p: Ports, rc: RunCtx, t: TaskSpec, parent: TaskInstance, arrays: unknown[][]): Promise<TaskInstance | undefined> {
  const n = parent.mapLength!;
  const limited = limitsApply(t, instanceId(t.taskId, 0));
  for (let start = parent.mapCursor ?? 0; start < n; start += EXPAND_CHUNK) {
    const end = Math.min(n, start + EXPAND_CHUNK);
    const messages: TaskMessage[] = [];
    const waiting: TaskInstance[] = [];
    const indexes = Array.from({ length: end - start }, (_, k) => start + k);
    await Promise.all(indexes.map(async (i) => {
      const id = instanceId(t.taskId, i);
      const element = elementAt(t.expand!, arrays, i);
      let mapItem = inlineJson(element);
      if (mapItem === undefined) {
        await p.store.putXcom({ ...keyOf(rc, id), key: MAP_ITEM_KEY }, element, retainUntil(p));
        mapItem = IN_XCOM;
      }
      // An instance under a pool or a per-task limit waits for its slot like any task (pools.ts).
      const r = await createTask(p, rc, t, limited ? 'scheduled' : 'queued', {}, { instance: { taskId: id, fields: { mapIndex: i, mapItem } } });
      // Only the expander whose put created the instance sends its message (or queues it).
      if (r.ok && limited) waiting.push(r.item);
      else if (r.ok) messages.push({ kind: 'task', dagId: rc.run.dagId, runId: rc.run.runId, taskId: id, tryNumber: 1 });
    }));
    if (messages.length > 0) await p.queue.send(messages);
    for (const ti of waiting) await queueTask(p, rc, ti);
    const r = await annotate(p, parent, { mapCursor: end });
    if (!r.ok) return undefined;
    parent = r.item;
  }
  return parent;
}
