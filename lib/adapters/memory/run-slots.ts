/**
 * maxActiveRuns slots in process (lib/engine/model/run-slots-store.ts): per DAG, the runs
 * holding one and when they took it, with the DynamoDB store's semantics
 * (lib/adapters/aws/dynamo-run-slots.ts).
 */
import type { DagRecord, RunSlotTake } from '../../engine/index.js';

/**
 * @example
 * const slots = new MemoryRunSlots();
 * slots.take(true, 'etl', 'r1', 2, Date.now()); // 'taken'
 */
export class MemoryRunSlots {
  private readonly holders = new Map<string, Map<string, number>>();

  take(dagExists: boolean, dagId: string, runId: string, max: number, now: number): RunSlotTake {
    if (!dagExists) return 'no_dag';
    let held = this.holders.get(dagId);
    if (held?.has(runId)) return 'held';
    if ((held?.size ?? 0) >= max) return 'full';
    if (!held) this.holders.set(dagId, (held = new Map()));
    held.set(runId, now);
    return 'taken';
  }

  release(dagExists: boolean, dagId: string, runId: string): number | undefined {
    if (!dagExists) return undefined;
    const held = this.holders.get(dagId);
    held?.delete(runId);
    return held?.size ?? 0;
  }

  holds(dagId: string, runId: string): boolean {
    return this.holders.get(dagId)?.has(runId) ?? false;
  }

  /**
   * A DAG record as read: with the number of runs holding its slots and, when any do, the
   * map of holders as its DynamoDB item has it. The map is made when first looked at (only
   * a start that finds the DAG full does: flow/run-slots.ts), not on every read: a DAG with
   * a thousand runs held made every run's start and end copy a thousand entries.
   */
  decorate(rec: DagRecord): DagRecord {
    const held = this.holders.get(rec.dagId);
    if (!held?.size) return rec;
    const out: DagRecord = { ...rec, activeRuns: held.size };
    let map: Record<string, number> | undefined;
    Object.defineProperty(out, 'runSlots', { enumerable: true, get: () => (map ??= Object.fromEntries(held)) });
    return out;
  }

  /** A deleted (or newly put) DAG item holds no slots, as its DynamoDB item would not. */
  forget(dagId: string): void {
    this.holders.delete(dagId);
  }
}
