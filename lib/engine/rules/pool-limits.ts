/**
 * Pools and per-task concurrency, the pure part: which counters a task takes when it is
 * queued and gives back when it leaves queued/running/deferred, the order of waiters
 * (priority weight, then time), the weight rules, and the checks of a manifest's pools.
 * The counters move in the same atomic write as the task's state (transition.ts), so a
 * crash can never leave a slot taken by a task that no longer holds it.
 * Decisions: docs/adr/0014-pools-and-priority.md.
 */
import { InvalidDagError } from '../model/errors.js';
import type { DagSpec, PoolSpec, TaskInstance, TaskSpec } from '../model/types.js';
import type { LimitMove } from '../model/ports.js';
import type { TaskState } from '../model/states.js';
import { isInstanceId } from './mapping-ids.js';

/**
 * States that hold pool and per-task slots. As Airflow counts queued and running task
 * instances; a deferred try keeps its slots (Airflow's pool option `include_deferred`), so
 * a resumed deferral never waits again and a pool is never over-committed.
 */
export const HOLDS_LIMITS: ReadonlySet<TaskState> = new Set(['queued', 'running', 'deferred']);

export const WEIGHT_RULES = ['downstream', 'upstream', 'absolute'] as const;
export type WeightRule = (typeof WEIGHT_RULES)[number];

/** Airflow clamps weights to a 32-bit integer (`db_safe_priority`). */
const MAX_WEIGHT = 2 ** 31 - 1;
const MIN_WEIGHT = -(2 ** 31);

/** True when the task waits for pool or per-task slots before it is queued. */
export function isLimited(t: TaskSpec): boolean {
  return t.pool !== undefined || t.maxActiveTisPerDag !== undefined || t.maxActiveTisPerDagrun !== undefined;
}

/**
 * The counters a task takes, the pool first. Keyed by the spec's task id (and run), never
 * by instance, so every instance of a task (mapped ones included) counts against them.
 *
 * @example
 * limitKeys('etl', 'r1', t); // ['pool:warehouse', 'run:etl/r1/size']
 */
/**
 * True when writes of `taskId` move `t`'s counters. A mapped task's own item (the one that
 * expands) takes none: its instances (`size#3`) do, each like a task, so a pool or
 * `maxActiveTisPerDagrun` limits the instances that run at once, not the expansion.
 *
 * @example
 * limitsApply(sizeSpec, 'size');   // false: the expander holds no pool slot
 * limitsApply(sizeSpec, 'size#3'); // true
 */
export function limitsApply(t: TaskSpec, taskId: string): boolean {
  return isLimited(t) && (t.expand === undefined || isInstanceId(taskId));
}

export function limitKeys(dagId: string, runId: string, t: TaskSpec): string[] {
  const keys: string[] = [];
  if (t.pool !== undefined) keys.push(`pool:${t.pool}`);
  if (t.maxActiveTisPerDagrun !== undefined) keys.push(`run:${dagId}/${runId}/${t.taskId}`);
  if (t.maxActiveTisPerDag !== undefined) keys.push(`dag:${dagId}/${t.taskId}`);
  return keys;
}

function takes(dagId: string, runId: string, t: TaskSpec, expiresAt?: number): LimitMove[] {
  const out: LimitMove[] = [];
  if (t.pool !== undefined) out.push({ key: `pool:${t.pool}`, delta: t.poolSlots ?? 1 });
  if (t.maxActiveTisPerDagrun !== undefined) {
    out.push({ key: `run:${dagId}/${runId}/${t.taskId}`, delta: 1, max: t.maxActiveTisPerDagrun, ...(expiresAt ? { expiresAt } : {}) });
  }
  if (t.maxActiveTisPerDag !== undefined) out.push({ key: `dag:${dagId}/${t.taskId}`, delta: 1, max: t.maxActiveTisPerDag });
  return out;
}

/**
 * The counter moves of a task write from `ti.state` to `to`, and the fields that go with
 * them: being queued takes every counter (`slotsHeld` set), leaving the holding states gives
 * them back (`slotsHeld` removed). Undefined for a task without limits.
 */
export function limitMoves(
  dagId: string,
  runId: string,
  t: TaskSpec,
  ti: TaskInstance,
  to: TaskState,
  expiresAt?: number,
): { moves: LimitMove[]; fields: { slotsHeld?: true | null; waitKey?: null; waitRank?: null } } | undefined {
  if (!limitsApply(t, ti.taskId)) return undefined;
  // A waiter that leaves `scheduled` any way (queued, marked, timed out) leaves the index.
  const unwait = ti.waitKey !== undefined && to !== 'scheduled' ? { waitKey: null, waitRank: null } : {};
  // Only a try being queued takes slots: sensors and timers that wait from `scheduled` take none.
  if (!ti.slotsHeld && to === 'queued') {
    return { moves: takes(dagId, runId, t, expiresAt), fields: { slotsHeld: true, waitKey: null, waitRank: null } };
  }
  if (ti.slotsHeld && !HOLDS_LIMITS.has(to)) {
    return { moves: takes(dagId, runId, t).map((m) => ({ key: m.key, delta: -m.delta })), fields: { slotsHeld: null, ...unwait } };
  }
  return { moves: [], fields: unwait };
}

/**
 * The waiting line of a run's maxActiveTasks slots (flow/active-tasks.ts): tasks its run's
 * counter refused wait here, in the same index as pool waiters.
 *
 * @example
 * activeTasksLine('etl', 'r1'); // 'mat:etl/r1'
 */
export function activeTasksLine(dagId: string, runId: string): string {
  return `mat:${dagId}/${runId}`;
}

/**
 * The sort key of a waiter: highest weight first, then the earliest to start waiting,
 * then the task key (as Airflow orders by `-priority_weight`, then logical date).
 *
 * @example
 * waitRank(5, 1767225600000, 'etl/r1/size') < waitRank(1, 1767225600000, 'etl/r1/a'); // true
 */
export function waitRank(weight: number, since: number, taskKey: string): string {
  const inverted = MAX_WEIGHT - clampWeight(weight);
  return `${String(inverted).padStart(10, '0')}:${String(Math.max(0, since)).padStart(15, '0')}:${taskKey}`;
}

function clampWeight(w: number): number {
  return Math.min(MAX_WEIGHT, Math.max(MIN_WEIGHT, w));
}

/**
 * Effective priority weights, as Airflow's `priority_weight_total`: `absolute` is the
 * task's own weight; `downstream` adds the own weights of every task downstream of it
 * (each once); `upstream` of every task upstream. Clamped to 32 bits.
 *
 * @example
 * // a -> b -> c, all weight 1, rule downstream: a 3, b 2, c 1
 * priorityWeights(tasks, new Map([['a', { weight: 1, rule: 'downstream' }], ...]));
 */
export function priorityWeights(
  tasks: readonly Pick<TaskSpec, 'taskId' | 'upstream' | 'downstream'>[],
  own: ReadonlyMap<string, { weight: number; rule: WeightRule }>,
): Map<string, number> {
  const byId = new Map(tasks.map((t) => [t.taskId, t]));
  const weightOf = (id: string) => own.get(id)?.weight ?? 1;
  const out = new Map<string, number>();
  for (const t of tasks) {
    const { weight, rule } = own.get(t.taskId) ?? { weight: 1, rule: 'downstream' as const };
    if (rule === 'absolute') {
      out.set(t.taskId, clampWeight(weight));
      continue;
    }
    const way = rule === 'downstream' ? 'downstream' : 'upstream';
    const seen = new Set<string>();
    const stack = [...t[way]];
    let total = weight;
    while (stack.length) {
      const id = stack.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      total += weightOf(id);
      stack.push(...(byId.get(id)?.[way] ?? []));
    }
    out.set(t.taskId, clampWeight(total));
  }
  return out;
}

const POOL_NAME = /^[A-Za-z0-9_.-]{1,250}$/;

/** What is wrong with a pool declaration, or undefined. */
export function poolProblem(p: PoolSpec): string | undefined {
  if (typeof p.name !== 'string' || !POOL_NAME.test(p.name)) {
    return `invalid pool name ${JSON.stringify(p.name)}: use 1-250 characters from A-Z a-z 0-9 _ . -`;
  }
  if (!Number.isInteger(p.slots) || p.slots < 1) return `pool "${p.name}": slots must be an integer >= 1, got ${String(p.slots)}`;
  return undefined;
}

/** Checks a task's pool and limit fields (validateDagSpec). */
export function checkTaskLimits(t: TaskSpec, fail: (msg: string) => never): void {
  if (t.pool !== undefined && (typeof t.pool !== 'string' || !POOL_NAME.test(t.pool))) fail(`invalid pool ${JSON.stringify(t.pool)}`);
  for (const k of ['poolSlots', 'maxActiveTisPerDag', 'maxActiveTisPerDagrun'] as const) {
    const v = t[k];
    if (v !== undefined && (!Number.isInteger(v) || v < 1)) fail(`${k} must be an integer >= 1, got ${String(v)}`);
  }
  if (t.poolSlots !== undefined && t.pool === undefined) fail('poolSlots is set but pool is not');
  if (t.priorityWeight !== undefined && !Number.isInteger(t.priorityWeight)) fail(`priorityWeight must be an integer, got ${String(t.priorityWeight)}`);
}

/**
 * Refuses a bundle whose tasks use a pool it does not declare, or ask for more slots than
 * the pool has (such a task could never run).
 *
 * @throws InvalidDagError naming the file, the DAG and the task.
 */
export function checkPools(dags: readonly DagSpec[], pools: readonly PoolSpec[]): void {
  const byName = new Map<string, PoolSpec>();
  for (const p of pools) {
    const problem = poolProblem(p);
    if (problem) throw new InvalidDagError(problem);
    byName.set(p.name, p);
  }
  const declared = [...byName.keys()].sort().join(', ') || 'none';
  for (const d of dags) {
    for (const t of d.tasks) {
      if (t.pool === undefined) continue;
      const where = { file: d.file || undefined, dagId: d.dagId, taskId: t.taskId };
      const pool = byName.get(t.pool);
      if (!pool) {
        throw new InvalidDagError(
          `pool "${t.pool}" is not declared: declare it in a DAG file of the bundle with definePool('${t.pool}', { slots: N }) (declared: ${declared})`,
          where,
        );
      }
      if ((t.poolSlots ?? 1) > pool.slots) {
        throw new InvalidDagError(`poolSlots ${t.poolSlots} is more than pool "${t.pool}" has (${pool.slots}): the task could never run`, where);
      }
    }
  }
}
