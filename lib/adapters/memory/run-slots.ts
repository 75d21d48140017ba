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
  /** The holders of each DAG as its item's map, made once per change (a read of a DAG with many runs held is on every run's start and end). */
  private readonly asMap = new Map<string, Readonly<Record<string, number>>>();

  take(dagExists: boolean, dagId: string, runId: string, max: number, now: number): RunSlotTake {
    if (!dagExists) return 'no_dag';
    let held = this.holders.get(dagId);
    if (held?.has(runId)) return 'held';
    if ((held?.size ?? 0) >= max) return 'full';
    if (!held) this.holders.set(dagId, (held = new Map()));
    held.set(runId, now);
    this.asMap.delete(dagId);
    return 'taken';
  }

  release(dagExists: boolean, dagId: string, runId: string): number | undefined {
    if (!dagExists) return undefined;
    const held = this.holders.get(dagId);
    if (held?.delete(runId)) this.asMap.delete(dagId);
    return held?.size ?? 0;
  }

  holds(dagId: string, runId: string): boolean {
    return this.holders.get(dagId)?.has(runId) ?? false;
  }

  /** A DAG record as read: with the runs holding its slots, when any do. */
  decorate(rec: DagRecord): DagRecord {
    const held = this.holders.get(rec.dagId);
    if (!held?.size) return rec;
    let runSlots = this.asMap.get(rec.dagId);
    if (!runSlots) this.asMap.set(rec.dagId, (runSlots = Object.freeze(Object.fromEntries(held))));
    return { ...rec, activeRuns: held.size, runSlots };
  }

  /** A deleted (or newly put) DAG item holds no slots, as its DynamoDB item would not. */
  forget(dagId: string): void {
    this.holders.delete(dagId);
    this.asMap.delete(dagId);
  }
}
