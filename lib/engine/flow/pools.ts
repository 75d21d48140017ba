/**
 * Pools and per-task concurrency, the moving part. A limited task that is ready joins the
 * waiting index of its first counter (`waitKey`, ordered by `waitRank`: weight, then time),
 * then the best waiters of that counter are started while slots are free. A task that
 * gives slots back starts the best waiters of each counter it held directly, without
 * polling; reconcile only repeats this for what an index lag or a crash missed.
 * A waiting task is `scheduled`: it holds no worker and no message.
 */
import { loadRunCtx, taskSpec, type RunCtx } from '../rules/dag-index.js';
import type { DagSpec, PoolSpec, TaskInstance, TaskKey } from '../model/types.js';
import { taskKeyString } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { activeTasksLine, checkPools, limitKeys, waitRank } from '../rules/pool-limits.js';
import { annotate, transition } from '../write/transition.js';

/** Waiters read per look at the index. */
const BATCH = 10;
/**
 * Entries that turn out stale (started by a concurrent wake, or an index that lags) a wake
 * passes before it stops. It bounds a burst of arrivals on a roomy pool to a constant
 * number of reads per task instead of one per waiter; what it leaves, reconcile starts.
 */
const MAX_STALE = 10;

type StartOutcome = 'started' | 'full' | 'passed' | 'stale';

/** Counters already woken for a run context (one reconcile pass over a run, one run wake). */
const rewoken = new WeakMap<RunCtx, Set<string>>();

/**
 * Queues a ready task that has pool or per-task limits: it waits in the index of its
 * first counter, then the best waiter of that counter starts if a slot is free (the task
 * itself, unless a better one waits). True when this task was queued. A deferral that
 * resumes still holds its slots and is queued at once.
 *
 * @example
 * if (isLimited(t)) return queueLimited(p, rc, ti);
 */
export async function queueLimited(p: Ports, rc: RunCtx, ti: TaskInstance): Promise<boolean> {
  if (ti.slotsHeld) {
    const r = await transition(p, rc, ti, 'queued');
    if (r.ok) await send(p, r.item);
    return r.ok;
  }
  if (ti.state === 'scheduled' && ti.ready && ti.waitKey !== undefined) {
    // Already waiting: decided again by reconcile (the safety net) or a run's wake. Once
    // per counter and pass, start every waiter that fits, not one look per waiter.
    let seen = rewoken.get(rc);
    if (!seen) rewoken.set(rc, (seen = new Set()));
    if (seen.has(ti.waitKey)) return false;
    seen.add(ti.waitKey);
    return (await wakeWaiters(p, ti.waitKey, Number.POSITIVE_INFINITY)).has(taskKeyString(ti));
  }
  const t = taskSpec(rc.spec, ti.taskId);
  const fields = {
    ready: true,
    waitKey: limitKeys(rc.run.dagId, rc.run.runId, t)[0],
    waitRank: waitRank(t.priorityWeight ?? 1, p.clock.now(), taskKeyString(ti)),
  };
  // A retry waits in `scheduled` like a first try; the try number moves when it is queued.
  const r = ti.state === 'scheduled' ? await annotate(p, ti, fields) : await transition(p, rc, ti, 'scheduled', fields);
  if (!r.ok) return false;
  const waiting = r.item;
  // One arrival adds one waiter and frees nothing: it starts at most one task.
  const started = await wakeWaiters(p, waiting.waitKey!, 1);
  return started.has(taskKeyString(waiting));
}

/** After a task gave its slots back (`ti` as it was read, holding them): starts the best waiters of each counter. */
export async function wakeLimits(p: Ports, rc: RunCtx, ti: TaskInstance): Promise<void> {
  if (!ti.slotsHeld) return;
  const t = taskSpec(rc.spec, ti.taskId);
  for (const key of limitKeys(rc.run.dagId, rc.run.runId, t)) {
    await wakeWaiters(p, key, key.startsWith('pool:') ? (t.poolSlots ?? 1) : 1);
  }
}

/**
 * Starts up to `maxStarts` waiters of one counter, best first, until the counter refuses
 * one. A waiter refused by another of its counters moves to that counter's index and the
 * next is tried; one refused by its run's maxActiveTasks keeps waiting (the run wakes it).
 * Returns the keys of the tasks it started.
 */
export async function wakeWaiters(p: Ports, waitKey: string, maxStarts: number, known?: RunCtx): Promise<Set<string>> {
  const started = new Set<string>();
  const passed = new Set<string>();
  const runs = new Map<string, Promise<RunCtx | undefined>>();
  // The caller's run, already read (a run's own maxActiveTasks line).
  if (known) runs.set(`${known.run.dagId}/${known.run.runId}`, Promise.resolve(known));
  let stale = 0;
  // A refused start is a failed transaction, billed like a write: a full pool is seen by a read instead.
  if (waitKey.startsWith('pool:') && ((await p.store.getPool(waitKey.slice(5)))?.free ?? 0) <= 0) return started;
  for (;;) {
    const keys = (await p.store.listWaiters(waitKey, BATCH + passed.size)).filter((k) => !passed.has(taskKeyString(k)));
    if (keys.length === 0) return started;
    for (const k of keys) {
      const out = await tryStart(p, k, waitKey, runs);
      if (out === 'full') return started;
      if (out === 'started') {
        started.add(taskKeyString(k));
        if (started.size >= maxStarts) return started;
      } else {
        passed.add(taskKeyString(k));
      }
      stale = out === 'stale' ? stale + 1 : 0;
      if (stale >= MAX_STALE) return started;
    }
  }
}

async function tryStart(p: Ports, key: TaskKey, waitKey: string, runs: Map<string, Promise<RunCtx | undefined>>): Promise<StartOutcome> {
  const ti = await p.store.getTask(key);
  if (!ti || ti.state !== 'scheduled' || !ti.ready || ti.waitKey !== waitKey) return 'stale';
  const runKey = `${key.dagId}/${key.runId}`;
  let pending = runs.get(runKey);
  if (!pending) runs.set(runKey, (pending = loadRunCtx(p, key.dagId, key.runId)));
  const rc = await pending;
  if (!rc || rc.run.state !== 'running') {
    // Its run ended without it (marked, timed out): it leaves the index.
    await annotate(p, ti, { waitKey: null, waitRank: null });
    return 'stale';
  }
  const r = await transition(p, rc, ti, 'queued');
  if (r.ok) {
    await send(p, r.item);
    return 'started';
  }
  if (r.reason !== 'slots') return 'stale';
  if (r.limit === waitKey) return 'full';
  // The run's maxActiveTasks counter refused it (no limit key): that line is full, or this
  // pooled task moves to it, keeping its place (flow/active-tasks.ts).
  if (r.limit === undefined) {
    if (waitKey === activeTasksLine(ti.dagId, ti.runId)) return 'full';
    await annotate(p, ti, { waitKey: activeTasksLine(ti.dagId, ti.runId) });
    return 'passed';
  }
  if (r.limit !== undefined) {
    // Another counter of this task is full: wait there, keeping the place in line.
    await annotate(p, ti, { waitKey: r.limit });
  }
  return 'passed';
}

async function send(p: Ports, ti: TaskInstance): Promise<void> {
  await p.queue.send([{ kind: 'task', dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber }]);
}

/**
 * Registers a bundle's pools (creating them, or moving their slots to the declared number),
 * after checking that every pool its tasks use is declared. A pool a later bundle no
 * longer declares is kept: runs pinned to an older bundle may still hold its slots.
 */
export async function registerPools(p: Ports, dags: readonly DagSpec[], pools: readonly PoolSpec[]): Promise<void> {
  checkPools(dags, pools);
  for (const pool of pools) await p.store.registerPool(pool);
}
