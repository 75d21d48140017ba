/**
 * The triggers of the Store port in process: sensors waiting for the poker, tasks waiting
 * for an event, and poke claims, with the DynamoDB adapter's semantics (dynamo-triggers.ts):
 * conditional puts, and indexes that hold a trigger exactly when it carries their keys.
 */
import type { Cas, TriggerRecord } from '../../engine/index.js';
import { applyPatch, cloneTrigger, compact, conditionFailed } from './records.js';

/**
 * @example
 * const triggers = new MemoryTriggers();
 * await triggers.putTrigger(sensorTrigger); // shardcode 3, nextPokeAt in the past
 * await triggers.listSensorTriggers(3, Date.now()); // [sensorTrigger]
 */
export class MemoryTriggers {
  private readonly items = new Map<string, TriggerRecord>();
  private readonly sensorsByShard = new Map<number, Set<string>>();
  private readonly eventTriggers = new Map<string, Set<string>>();
  private readonly pokeClaims = new Map<string, number>();

  /** Whether virtual shard `v` holds a sensor registration (the poker states read it). */
  hasSensors(virtualShard: number): boolean {
    return (this.sensorsByShard.get(virtualShard)?.size ?? 0) > 0;
  }

  async putTrigger(t: TriggerRecord): Promise<Cas<TriggerRecord>> {
    const existing = this.items.get(t.id);
    if (existing) return conditionFailed(cloneTrigger(existing));
    const stored = compact(cloneTrigger(t));
    this.items.set(t.id, stored);
    this.indexTrigger(stored);
    return { ok: true, item: cloneTrigger(stored) };
  }

  async getTrigger(id: string): Promise<TriggerRecord | undefined> {
    const t = this.items.get(id);
    return t && cloneTrigger(t);
  }

  async deleteTrigger(id: string): Promise<void> {
    const t = this.items.get(id);
    if (!t) return;
    this.unindexTrigger(t);
    this.items.delete(id);
  }

  /** Updates an existing trigger; a missing one stays missing (no partial resurrection). */
  async updateTrigger(id: string, patch: Partial<Omit<TriggerRecord, 'id'>>): Promise<void> {
    const t = this.items.get(id);
    if (!t) return;
    this.unindexTrigger(t);
    applyPatch(t as unknown as Record<string, unknown>, patch);
    this.indexTrigger(t);
  }

  async listSensorTriggers(shard: number, dueBefore: number): Promise<TriggerRecord[]> {
    const out: TriggerRecord[] = [];
    for (const id of this.sensorsByShard.get(shard) ?? []) {
      const t = this.items.get(id)!;
      if (t.nextPokeAt! <= dueBefore) out.push(cloneTrigger(t));
    }
    return out.sort((a, b) => a.nextPokeAt! - b.nextPokeAt! || (a.id < b.id ? -1 : 1));
  }

  async listEventTriggers(eventKey: string): Promise<TriggerRecord[]> {
    return [...(this.eventTriggers.get(eventKey) ?? [])]
      .sort()
      .map((id) => cloneTrigger(this.items.get(id)!));
  }


  async claimPoke(hashcode: string, cycle: number, _expiresAtSec?: number): Promise<boolean> {
    const last = this.pokeClaims.get(hashcode);
    if (last !== undefined && cycle <= last) return false;
    this.pokeClaims.set(hashcode, cycle);
    return true;
  }

  // The indexes mirror the sparse GSIs of the DynamoDB store: an item is in an index
  // exactly when it carries that index's key attributes.
  private indexTrigger(t: TriggerRecord): void {
    if (t.shardcode !== undefined && t.nextPokeAt !== undefined) {
      const s = this.sensorsByShard.get(t.shardcode) ?? new Set<string>();
      s.add(t.id);
      this.sensorsByShard.set(t.shardcode, s);
    }
    if (t.eventKey !== undefined) {
      const s = this.eventTriggers.get(t.eventKey) ?? new Set<string>();
      s.add(t.id);
      this.eventTriggers.set(t.eventKey, s);
    }
  }

  private unindexTrigger(t: TriggerRecord): void {
    if (t.shardcode !== undefined) this.sensorsByShard.get(t.shardcode)?.delete(t.id);
    if (t.eventKey !== undefined) {
      const s = this.eventTriggers.get(t.eventKey);
      s?.delete(t.id);
      if (s?.size === 0) this.eventTriggers.delete(t.eventKey);
    }
  }
}
