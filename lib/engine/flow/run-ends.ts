/**
 * How a run finds out that it has ended, without a step that reads its whole task list
 * for every task that ends (issue 22; docs/adr/0020-linear-runs-and-two-writes-per-task.md).
 *
 * - A small run (at most {@link LISTED_MAX_TASKS} tasks, at most {@link LISTED_MAX_LEAVES}
 *   leaves, nothing mapped) is `listed`: when a leaf ends, or a task whose downstream was
 *   decided before it ended, the run's tasks are read (one query of a bounded size) and the
 *   run's state decided from them. No write at all.
 * - Any other run is `counted`: every task of the spec that ends is counted in its shard
 *   (one idempotent write, run-ends-store.ts); the write that completes a shard closes it,
 *   and the write that closes the last shard reads the shards once and decides the run.
 *   No step reads or writes a number of items that grows with the run.
 *
 * This module decides; settle.ts writes the run's end (it cannot be imported here).
 */
import { taskSpec, type RunCtx } from '../rules/dag-index.js';
import { hasMappedTask } from '../rules/mapping-ids.js';
import type { DagSpec } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import type { TaskState } from '../model/states.js';
import { runStateLeaves } from '../rules/setup-teardown.js';
import { retainUntil } from '../write/transition.js';
import type { RunEndEntry } from '../model/run-ends-store.js';

export type CompletionMode = 'listed' | 'counted';

/** A run is listed only while its task list is one small query. */
export const LISTED_MAX_TASKS = 100;
/** ...and it has few leaves: each leaf that ends reads the list once. */
export const LISTED_MAX_LEAVES = 16;
/** Tasks per shard of a counted run: a shard item stays well under 1 KB. */
export const RUN_END_SHARD_SIZE = 100;

interface SpecFacts {
  mode: CompletionMode;
  index: Map<string, number>;
  shards: number;
}

const facts = new WeakMap<DagSpec, SpecFacts>();

function factsOf(spec: DagSpec): SpecFacts {
  let f = facts.get(spec);
  if (!f) {
    const leaves = spec.tasks.filter((t) => t.downstream.length === 0).length;
    const listed = spec.tasks.length <= LISTED_MAX_TASKS && leaves <= LISTED_MAX_LEAVES && !hasMappedTask(spec);
    f = {
      mode: listed ? 'listed' : 'counted',
      index: new Map(spec.tasks.map((t, i) => [t.taskId, i])),
      shards: Math.ceil(spec.tasks.length / RUN_END_SHARD_SIZE),
    };
    facts.set(spec, f);
  }
  return f;
}

/**
 * @example
 * completionMode(chainOf10); // 'listed'
 * completionMode(fanOutOf1000); // 'counted'
 */
export function completionMode(spec: DagSpec): CompletionMode {
  return factsOf(spec).mode;
}

/** Index of a task in its spec (the key of its count). */
export function taskIndex(spec: DagSpec, taskId: string): number {
  const i = factsOf(spec).index.get(taskId);
  if (i === undefined) throw new Error(`task ${taskId} is not in dag ${spec.dagId}`);
  return i;
}

/** Tasks in shard `s` of a spec. */
export function shardSize(spec: DagSpec, s: number): number {
  return Math.min(RUN_END_SHARD_SIZE, spec.tasks.length - s * RUN_END_SHARD_SIZE);
}

const endsBadly = (state: TaskState): boolean => state === 'failed' || state === 'upstream_failed';

/**
 * Whether the end of `taskId` (already written, its downstream already settled) calls for
 * a look at the whole run: a listed run is looked at when a leaf ends or `mayBeDone` (a
 * downstream was decided before this task ended); a counted run counts the end instead.
 *
 * @example
 * if (needsListing(rc, taskId, mayBeDone)) await completeRunIfDone(p, rc);
 */
export function needsListing(rc: RunCtx, taskId: string, mayBeDone: boolean): boolean {
  if (factsOf(rc.spec).mode !== 'listed') return false;
  return mayBeDone || taskSpec(rc.spec, taskId).downstream.length === 0;
}

/**
 * Counts the ends of tasks of a counted run (no-op for a listed run). Returns the run's
 * state when these counts completed it (the caller ends the run), else undefined.
 *
 * @example
 * const done = await countEnds(p, rc, [{ taskId: 't7', state: 'success' }]);
 * if (done) await endRun(p, rc, done);
 */
export async function countEnds(p: Ports, rc: RunCtx, ends: ReadonlyArray<{ taskId: string; state: TaskState }>): Promise<'success' | 'failed' | undefined> {
  const f = factsOf(rc.spec);
  if (f.mode !== 'counted' || ends.length === 0) return undefined;
  const byShard = new Map<number, RunEndEntry[]>();
  for (const e of ends) {
    const index = taskIndex(rc.spec, e.taskId);
    const s = Math.floor(index / RUN_END_SHARD_SIZE);
    byShard.set(s, [...(byShard.get(s) ?? []), { index, failed: endsBadly(e.state) }]);
  }
  const run = { dagId: rc.run.dagId, runId: rc.run.runId };
  const expiresAt = retainUntil(p);
  let closedAll = false;
  for (const [s, entries] of byShard) {
    const shard = await p.store.countRunEnds(run, s, entries, expiresAt);
    if (shard.ok.length + shard.failed.length < shardSize(rc.spec, s)) continue;
    if ((await p.store.closeRunEndShard(run, s, expiresAt)) >= f.shards) closedAll = true;
  }
  return closedAll ? decideCounted(p, rc) : undefined;
}

/** Every shard is closed: the run failed when a leaf that speaks for it ended badly. */
async function decideCounted(p: Ports, rc: RunCtx): Promise<'success' | 'failed'> {
  const f = factsOf(rc.spec);
  const shards = await p.store.getRunEnds(rc.run, Array.from({ length: f.shards }, (_, i) => i));
  const failed = new Set([...shards.values()].flatMap((s) => s.failed));
  for (const id of runStateLeaves(rc.spec)) if (failed.has(f.index.get(id)!)) return 'failed';
  return 'success';
}

/**
 * Forgets the ends of cleared tasks of a counted run (no-op for a listed run), so the run
 * is counted again as they end anew.
 */
export async function uncountEnds(p: Ports, rc: RunCtx, taskIds: readonly string[]): Promise<void> {
  if (factsOf(rc.spec).mode !== 'counted') return;
  const byShard = new Map<number, number[]>();
  for (const id of taskIds) {
    const i = factsOf(rc.spec).index.get(id);
    if (i === undefined) continue;
    const s = Math.floor(i / RUN_END_SHARD_SIZE);
    byShard.set(s, [...(byShard.get(s) ?? []), i]);
  }
  for (const [s, indexes] of byShard) await p.store.uncountRunEnds(rc.run, s, indexes);
}
