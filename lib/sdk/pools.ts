/**
 * `definePool` and the pool, priority and per-task concurrency options of a task, as a
 * DAG author writes them. What they do at run time: lib/engine/flow/pools.ts and
 * docs/pools.md.
 */
import { InvalidDagError, isLimited, poolProblem, priorityWeights, WEIGHT_RULES, type WeightRule } from '../engine/index.js';
import type { PoolSpec, TaskSpec } from '../engine/index.js';
import type { PoolDefinition, TaskOptions } from './types.js';

/**
 * Declares a pool: at most `slots` slots of it are taken at once by queued and running
 * tries of the tasks that name it (`pool: 'warehouse'`), across all DAGs of the bundle.
 * Export it from any DAG file of the bundle (or pass the result as a task's `pool`).
 *
 * @example
 * export const warehouse = definePool('warehouse', { slots: 4, description: 'the shared warehouse' });
 * // in a DAG: task('load', load, { pool: 'warehouse', priorityWeight: 5 })
 * @throws InvalidDagError for a bad name or slot count.
 */
export function definePool(name: string, options: { slots: number; description?: string }): PoolDefinition {
  const slots = options?.slots;
  const problem = poolProblem({ name, slots });
  if (problem) throw new InvalidDagError(problem);
  if (options.description !== undefined && typeof options.description !== 'string') {
    throw new InvalidDagError(`pool "${name}": description must be a string`);
  }
  return Object.freeze({ __airless: 'pool' as const, name, slots, ...(options.description !== undefined ? { description: options.description } : {}) });
}

/** The manifest form of a pool definition. */
export function poolSpec(def: PoolDefinition): PoolSpec {
  return { name: def.name, slots: def.slots, ...(def.description !== undefined ? { description: def.description } : {}) };
}

/** True when `v` is what `definePool()` returns (also across copies of this module). */
export function isPoolDefinition(v: unknown): v is PoolDefinition {
  return typeof v === 'object' && v !== null && (v as { __airless?: unknown }).__airless === 'pool';
}

/** A task's own weight and rule, kept while the DAG is built (the effective weight needs the whole graph). */
export interface OwnWeight {
  weight: number;
  rule: WeightRule;
}

/**
 * Reads the pool and concurrency options of a task into spec fields; `usePool` receives a
 * pool given by object. Fields are set only when given (a plain task's spec is unchanged).
 */
export function limitOptions(
  o: TaskOptions,
  fail: (msg: string) => never,
  usePool: (p: PoolDefinition) => void,
): { fields: Partial<TaskSpec>; own: OwnWeight } {
  const fields: Partial<TaskSpec> = {};
  if (o.pool !== undefined) {
    if (isPoolDefinition(o.pool)) {
      usePool(o.pool);
      fields.pool = o.pool.name;
    } else if (typeof o.pool === 'string') {
      fields.pool = o.pool;
    } else {
      fail(`pool must be a pool name or a definePool() result, got ${JSON.stringify(o.pool)}`);
    }
  }
  const int = (k: 'poolSlots' | 'maxActiveTisPerDag' | 'maxActiveTisPerDagrun') => {
    const v = o[k];
    if (v === undefined) return;
    if (!Number.isInteger(v) || v < 1) fail(`${k} must be an integer >= 1, got ${JSON.stringify(v)}`);
    fields[k] = v;
  };
  int('poolSlots');
  int('maxActiveTisPerDag');
  int('maxActiveTisPerDagrun');
  if (fields.poolSlots !== undefined && fields.pool === undefined) fail('poolSlots is set but pool is not');
  const weight = o.priorityWeight ?? 1;
  if (!Number.isInteger(weight)) fail(`priorityWeight must be an integer, got ${JSON.stringify(o.priorityWeight)}`);
  const rule = o.weightRule ?? 'downstream';
  if (!WEIGHT_RULES.includes(rule)) fail(`weightRule must be one of ${WEIGHT_RULES.join(', ')}, got ${JSON.stringify(rule)}`);
  return { fields, own: { weight, rule } };
}

/**
 * Writes the effective priority weight on each limited task (the only tasks that ever wait
 * for one another), computed over the whole DAG as Airflow's weight rules do.
 */
export function applyPriorityWeights(tasks: TaskSpec[], own: ReadonlyMap<string, OwnWeight>): void {
  if (!tasks.some(isLimited)) return;
  const weights = priorityWeights(tasks, own);
  for (const t of tasks) if (isLimited(t)) t.priorityWeight = weights.get(t.taskId)!;
}
