/**
 * Store operations that let a large run find out that it has ended without listing its
 * tasks (part of the Store port; docs/adr/0020-linear-runs-and-two-writes-per-task.md).
 * Each task of the run's spec that ends is counted by its index in the spec, in one shard
 * of RUN_END_SHARD_SIZE tasks, as ended well (`ok`: success, skipped, removed) or badly
 * (`failed`: failed, upstream_failed); the write that completes a shard closes it in the
 * run's summary. Sets, not counters: counting the same task twice changes nothing, so a
 * repeated call after a crash is harmless, and no item grows with the run.
 */

/** The run a count belongs to. */
export interface RunRef {
  dagId: string;
  runId: string;
}

/** One task's end in a shard: its index in the spec and whether it ended badly. */
export interface RunEndEntry {
  index: number;
  failed: boolean;
}

/** A shard's sets after a write. */
export interface RunEndShard {
  ok: number[];
  failed: number[];
}

export interface RunEndsStore {
  /**
   * Counts task ends in one shard (each index in `ok` or `failed`, and removed from the
   * other), idempotently; returns the shard after the write. `expiresAt` (epoch seconds)
   * lets the item expire with its run.
   */
  countRunEnds(run: RunRef, shard: number, entries: readonly RunEndEntry[], expiresAt?: number): Promise<RunEndShard>;
  /** Forgets task ends (cleared tasks) and reopens their shard. */
  uncountRunEnds(run: RunRef, shard: number, indexes: readonly number[]): Promise<void>;
  /** Marks a shard complete; returns the number of complete shards. */
  closeRunEndShard(run: RunRef, shard: number, expiresAt?: number): Promise<number>;
  /** Shards, for the run's final state (read once, by the write that closed the last shard). */
  getRunEnds(run: RunRef, shards: readonly number[]): Promise<Map<number, RunEndShard>>;
}
