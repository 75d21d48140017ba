/**
 * Settling a mapped task from its instances' outcomes, without ever listing them: each
 * instance that ends counts itself in its shard (one idempotent write), the write that
 * completes a shard closes it on the summary, and the write that closes the last shard
 * decides the mapped task's own state, once. Downstream tasks get at most one flag per
 * outcome per shard (`size#failed`, read by mappedView), so rules that can decide early
 * (`one_failed`, `all_success` upstream-failing) do so at the first such instance.
 *
 * Sending a task on (queueTask, wakeReady) comes from queue-task.ts, below both. Deciding
 * and settling stay in settle.ts, which calls in here and passes those two (`ops`): a mapped
 * task's end settles its downstream, so the recursion is real, and a parameter keeps this
 * module from importing settle.ts (no import cycles, docs/adr/0026).
 */
import { countsSlots, taskSpec, type RunCtx } from '../rules/dag-index.js';
import { MAP_OUTCOMES, MAP_SEP, baseTaskId, isInstanceId, outcomeOfState, parseInstanceId, shardOfIndex, type MapOutcome } from '../rules/mapping-ids.js';
import type { TaskInstance } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { isTerminal, type TaskState } from '../model/states.js';
import { keyOf, transition } from '../write/transition.js';
import { queueTask, wakeReady } from './queue-task.js';
import { followUpOf, type FollowAllowance, type FollowUp } from './eager-follow.js';

/**
 * The two steps of settle.ts this module calls back: they call in here too (a mapped task's
 * end settles its downstream). Each returns the follow-up it claimed under `allow`.
 */
export interface SettleOps {
  decideTask(p: Ports, rc: RunCtx, ti: TaskInstance, allow?: FollowAllowance): Promise<FollowUp>;
  afterTerminal(p: Ports, rc: RunCtx, taskId: string, state: TaskState, chosen?: readonly string[], allow?: FollowAllowance): Promise<FollowUp>;
}

/**
 * Everything that follows a mapped instance (`size#42`) reaching a terminal state. Returns
 * the follow-up claimed under `allow` (flow/eager-follow.ts) when a downstream became ready.
 */
export async function settleInstance(p: Ports, rc: RunCtx, id: string, state: TaskState, ops: SettleOps, allow?: FollowAllowance): Promise<FollowUp> {
  const { taskId, mapIndex } = parseInstanceId(id)!;
  const parent = keyOf(rc, taskId);
  const outcome = outcomeOfState(state);
  const shard = shardOfIndex(mapIndex);
  const s = await p.store.countMapped(parent, shard, mapIndex, outcome);
  // The first instance of this outcome in its shard tells the downstream tasks.
  let next: FollowUp;
  if (s.indexes[outcome].length === 1 && s.indexes[outcome][0] === mapIndex) next = await recordFlag(p, rc, taskId, outcome, ops, allow);
  const counted = MAP_OUTCOMES.reduce((n, o) => n + s.indexes[o].length, 0);
  // want 0: the shard item was never initialised (or was lost); never close on it.
  if (s.want === 0 || counted < s.want) return next;
  const c = await p.store.closeMapShard(parent, shard);
  if (c.closed < c.want) return next;
  const completed = await completeMapped(p, rc, taskId, ops, allow);
  return next ?? completed.next;
}

async function recordFlag(p: Ports, rc: RunCtx, taskId: string, outcome: MapOutcome, ops: SettleOps, allow?: FollowAllowance): Promise<FollowUp> {
  return followUpOf(await Promise.all(
    taskSpec(rc.spec, taskId).downstream.map(async (d) => {
      const item = await p.store.recordUpstream(keyOf(rc, d), `${taskId}${MAP_SEP}${outcome}`, outcome);
      return item.state === 'scheduled' ? ops.decideTask(p, rc, item, allow) : undefined;
    }),
  ));
}

/**
 * Decides a mapped task once every shard is closed: failed when an instance failed,
 * success when one succeeded, else skipped (all skipped). Safe to call any number of
 * times and from anywhere (the last instance, the expander, reconcile). `done`: this call
 * ended it; `next`: the follow-up claimed under `allow` on the way.
 */
export async function completeMapped(p: Ports, rc: RunCtx, taskId: string, ops: SettleOps, allow?: FollowAllowance): Promise<{ done: boolean; next: FollowUp }> {
  const key = keyOf(rc, taskId);
  const summary = await p.store.getMapSummary(key);
  if (!summary || summary.closed.length < summary.want) return NOT_DONE;
  const ti = await p.store.getTask(key);
  if (!ti || ti.state !== 'running' || ti.mapLength === undefined || ti.mapCursor !== ti.mapLength) return NOT_DONE;
  const shards = await p.store.getMapShards(key, Array.from({ length: summary.want }, (_, i) => i));
  const counts = Object.fromEntries(MAP_OUTCOMES.map((o) => [o, 0])) as Record<MapOutcome, number>;
  for (const sh of shards.values()) for (const o of MAP_OUTCOMES) counts[o] += sh.indexes[o].length;
  const failed = counts.failed + counts.upstream_failed;
  const state: TaskState = failed > 0 ? 'failed' : counts.success > 0 ? 'success' : 'skipped';
  // Repairs a flag a crash cut short before the task ends (flags are idempotent).
  let next: FollowUp;
  for (const o of MAP_OUTCOMES) if (counts[o] > 0) next = followUpOf([next, await recordFlag(p, rc, taskId, o, ops, allow)]);
  const error = failed > 0 ? `${failed} of ${ti.mapLength} mapped instances failed` : null;
  const r = await transition(p, rc, ti, state, { error });
  if (!r.ok) return { done: false, next };
  next = followUpOf([next, await ops.afterTerminal(p, rc, taskId, state, undefined, allow)]);
  // The mapped task held a maxActiveTasks slot while it ran (when the counter is kept).
  if (countsSlots(rc.spec)) await wakeReady(p, rc);
  return { done: true, next };
}

const NOT_DONE = { done: false, next: undefined } as const;

/**
 * Reconcile's look at the instances of a run (advanceRun passes the tasks it listed):
 * queued and running instances get the same review as plain tasks (a lost message, an
 * expired lease), a scheduled one (a clear cut short) is queued, and an ended instance a
 * crash left uncounted is counted, which closes its shard and may complete its task.
 */
export async function reviewInstances(
  p: Ports,
  rc: RunCtx,
  tis: readonly TaskInstance[],
  review: (ti: TaskInstance) => Promise<unknown>,
  ops: SettleOps,
): Promise<void> {
  const parents = new Map(tis.filter((t) => t.mapLength !== undefined && t.state === 'running').map((t) => [t.taskId, t]));
  if (parents.size === 0) return;
  const work: Promise<unknown>[] = [];
  const ended = new Map<string, TaskInstance[]>();
  for (const ti of tis) {
    if (!isInstanceId(ti.taskId) || !parents.has(baseTaskId(ti.taskId))) continue;
    if (ti.state === 'queued' || ti.state === 'running') work.push(review(ti));
    else if (ti.state === 'scheduled') work.push(queueTask(p, rc, ti));
    else if (isTerminal(ti.state)) ended.set(baseTaskId(ti.taskId), [...(ended.get(baseTaskId(ti.taskId)) ?? []), ti]);
  }
  for (const [taskId, parent] of parents) {
    if (parent.mapCursor !== parent.mapLength) continue;
    work.push(recount(p, rc, taskId, ended.get(taskId) ?? [], ops));
  }
  await Promise.all(work);
}

async function recount(p: Ports, rc: RunCtx, taskId: string, ended: readonly TaskInstance[], ops: SettleOps): Promise<void> {
  const key = keyOf(rc, taskId);
  const summary = await p.store.getMapSummary(key);
  if (!summary) return;
  const closed = new Set(summary.closed);
  const open = Array.from({ length: summary.want }, (_, i) => i).filter((s) => !closed.has(s));
  if (open.length === 0) {
    await completeMapped(p, rc, taskId, ops);
    return;
  }
  const shards = await p.store.getMapShards(key, open);
  const retry: TaskInstance[] = [];
  const firstOf = new Map<number, TaskInstance>();
  for (const ti of ended) {
    const { mapIndex } = parseInstanceId(ti.taskId)!;
    const s = shardOfIndex(mapIndex);
    const sh = shards.get(s);
    if (!sh) continue;
    if (!sh.indexes[outcomeOfState(ti.state)].includes(mapIndex)) retry.push(ti);
    else if (!firstOf.has(s)) firstOf.set(s, ti);
  }
  // A shard fully counted but not closed (a crash between the two writes) closes on a recount.
  for (const [s, ti] of firstOf) {
    const sh = shards.get(s)!;
    if (MAP_OUTCOMES.reduce((n, o) => n + sh.indexes[o].length, 0) >= sh.want) retry.push(ti);
  }
  // A log line, not a metric: each metric name is a billed CloudWatch metric (docs/performance.md).
  if (retry.length > 0) p.log.warn('mapped instances recounted', { dagId: rc.run.dagId, runId: rc.run.runId, taskId, instances: retry.length });
  for (const ti of retry) await settleInstance(p, rc, ti.taskId, ti.state, ops);
}
