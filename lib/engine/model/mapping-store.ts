/**
 * Store operations of dynamic task mapping (part of the Store port). The counts are kept
 * in shard items of MAP_SHARD_SIZE instances each and a summary item per mapped task, so no
 * item grows with n and no item takes more than one write per 100 instances but its own
 * shard's; every operation is idempotent (sets, not counters), so a repeated call after a
 * crash changes nothing. docs/adr/0013-dynamic-task-mapping.md.
 */
import type { TaskInstance, TaskKey } from './types.js';

/** The outcomes an instance counts as (rules/mapping-ids.ts reads them off task states). */
export const MAP_OUTCOMES = ['success', 'failed', 'skipped', 'upstream_failed'] as const;
export type MapOutcome = (typeof MAP_OUTCOMES)[number];

export interface MapShardState {
  /** Instances this shard counts. */
  want: number;
  /** Map indexes counted per outcome. */
  indexes: Record<MapOutcome, number[]>;
}

export interface MappingStore {
  /**
   * Creates the summary (shard count) and every shard item (with its `want`) of a mapped
   * task, before its first instance exists. Idempotent.
   */
  initMapCounts(parent: TaskKey, n: number, expiresAt?: number): Promise<void>;
  /**
   * Counts instance `mapIndex` under `outcome` in its shard (and under no other outcome),
   * idempotently; returns the shard after the write.
   */
  countMapped(parent: TaskKey, shard: number, mapIndex: number, outcome: MapOutcome): Promise<MapShardState>;
  /** Forgets an instance's outcome and reopens its shard (a cleared instance). */
  uncountMapped(parent: TaskKey, shard: number, mapIndex: number): Promise<void>;
  /** Marks a shard complete; returns how many shards are complete and how many there are. */
  closeMapShard(parent: TaskKey, shard: number): Promise<{ closed: number; want: number }>;
  /** The closed shards and the shard count (undefined before initMapCounts). */
  getMapSummary(parent: TaskKey): Promise<{ closed: number[]; want: number } | undefined>;
  /** Shard items, for the parent's final state and for repair. */
  getMapShards(parent: TaskKey, shards: readonly number[]): Promise<Map<number, MapShardState>>;
  /** The instances of a mapped task (`<taskId>#*`), any order: one Query, paginated. */
  listMapped(parent: TaskKey): Promise<TaskInstance[]>;
}
