/**
 * Pools and per-task limit counters, and the index of tasks waiting for them, in process:
 * the memory store's half of pools (the DynamoDB store's is dynamo-limits.ts). Same
 * semantics: a pool counter keeps the slots left (`free`), a per-task counter the slots
 * used; a set of moves applies all or nothing; a give-back to a missing counter is dropped.
 */
import type { LimitMove, PoolSpec, PoolState, TaskInstance, TaskKey } from '../../engine/index.js';

interface Counter {
  free?: number;
  slots?: number;
  description?: string;
  used?: number;
}

const keyOf = (t: TaskKey): string => `${t.dagId}\u0000${t.runId}\u0000${t.taskId}`;
const isPool = (key: string): boolean => key.startsWith('pool:');

/**
 * @example
 * const limits = new MemoryLimits();
 * limits.refusal([{ key: 'pool:warehouse', delta: 1 }]); // 'pool:warehouse' until the pool is registered
 */
export class MemoryLimits {
  private readonly counters = new Map<string, Counter>();
  /** waitKey -> its waiters in index order (rank, then task key), as the DynamoDB `waiting` index keeps them. */
  private readonly waiters = new Map<string, WaitLine>();

  /** The key of the first counter that cannot take its move, or undefined when all fit. */
  refusal(moves: readonly LimitMove[]): string | undefined {
    for (const m of moves) {
      if (m.delta <= 0) continue;
      const c = this.counters.get(m.key);
      if (isPool(m.key)) {
        if (!c || (c.free ?? 0) < m.delta) return m.key;
      } else if (m.max !== undefined && (c?.used ?? 0) + m.delta > m.max) {
        return m.key;
      }
    }
    return undefined;
  }

  /** Applies moves that `refusal` accepted. */
  apply(moves: readonly LimitMove[]): void {
    for (const m of moves) {
      const c = this.counters.get(m.key);
      if (isPool(m.key)) {
        if (c) c.free = (c.free ?? 0) - m.delta;
      } else if (c || m.delta > 0) {
        const next = c ?? {};
        next.used = (next.used ?? 0) + m.delta;
        this.counters.set(m.key, next);
      }
    }
  }

  registerPool(p: PoolSpec): void {
    const c = this.counters.get(`pool:${p.name}`);
    if (!c) {
      this.counters.set(`pool:${p.name}`, { slots: p.slots, free: p.slots, description: p.description });
      return;
    }
    c.free = (c.free ?? 0) + p.slots - (c.slots ?? 0);
    c.slots = p.slots;
    c.description = p.description;
  }

  getPool(name: string): PoolState | undefined {
    const c = this.counters.get(`pool:${name}`);
    if (!c) return undefined;
    return { name, slots: c.slots ?? 0, free: c.free ?? 0, ...(c.description !== undefined ? { description: c.description } : {}) };
  }

  /** Slots a per-task counter has in use (tests). */
  used(key: string): number {
    return this.counters.get(key)?.used ?? 0;
  }

  /** Keeps the waiting index in step with a task as stored (called on every task write). */
  index(t: TaskInstance, previous?: TaskInstance): void {
    if (previous?.waitKey !== undefined) this.waiters.get(previous.waitKey)?.delete(keyOf(t));
    if (t.waitKey === undefined || t.waitRank === undefined) return;
    let line = this.waiters.get(t.waitKey);
    if (!line) this.waiters.set(t.waitKey, (line = new WaitLine()));
    line.add(keyOf(t), t.waitRank, { dagId: t.dagId, runId: t.runId, taskId: t.taskId });
  }

  listWaiters(waitKey: string, limit: number): TaskKey[] {
    return this.waiters.get(waitKey)?.first(limit) ?? [];
  }
}

interface Waiter { sort: string; k: string; key: TaskKey }

/**
 * One waiting line, kept sorted (binary search on insert and delete): reading its best
 * waiters costs what the DynamoDB index query costs, never a sort of the whole line.
 */
class WaitLine {
  private readonly items: Waiter[] = [];
  private readonly sortOf = new Map<string, string>();

  add(k: string, rank: string, key: TaskKey): void {
    this.delete(k);
    const sort = `${rank}\u0000${k}`;
    this.items.splice(this.find(sort), 0, { sort, k, key });
    this.sortOf.set(k, sort);
  }

  delete(k: string): void {
    const sort = this.sortOf.get(k);
    if (sort === undefined) return;
    this.sortOf.delete(k);
    const i = this.find(sort);
    if (this.items[i]?.sort === sort) this.items.splice(i, 1);
  }

  first(limit: number): TaskKey[] {
    return this.items.slice(0, limit).map((w) => ({ ...w.key }));
  }

  /** The first position whose sort key is not below `sort`. */
  private find(sort: string): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.items[mid]!.sort < sort) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
