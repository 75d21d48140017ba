/**
 * The run-end counts of the Store port in process (lib/engine/model/run-ends-store.ts), with
 * the same set semantics as the DynamoDB items (lib/adapters/aws/dynamo-run-ends.ts).
 */
import type { RunEndEntry, RunEndShard, RunRef } from '../../engine/index.js';

interface Shard { ok: Set<number>; failed: Set<number> }
interface Run { closed: Set<number>; shards: Map<number, Shard> }

const keyOf = (r: RunRef): string => `${r.dagId}\u0000${r.runId}`;
const sorted = (s: Set<number>): number[] => [...s].sort((a, b) => a - b);

/**
 * @example
 * const ends = new MemoryRunEnds();
 * await ends.countRunEnds({ dagId: 'etl', runId: 'r1' }, 0, [{ index: 3, failed: false }]);
 */
export class MemoryRunEnds {
  private readonly runs = new Map<string, Run>();

  private run(r: RunRef): Run {
    let run = this.runs.get(keyOf(r));
    if (!run) this.runs.set(keyOf(r), (run = { closed: new Set(), shards: new Map() }));
    return run;
  }

  private shard(r: RunRef, s: number): Shard {
    const run = this.run(r);
    let shard = run.shards.get(s);
    if (!shard) run.shards.set(s, (shard = { ok: new Set(), failed: new Set() }));
    return shard;
  }

  async countRunEnds(r: RunRef, s: number, entries: readonly RunEndEntry[]): Promise<RunEndShard> {
    const shard = this.shard(r, s);
    for (const e of entries) {
      (e.failed ? shard.ok : shard.failed).delete(e.index);
      (e.failed ? shard.failed : shard.ok).add(e.index);
    }
    return { ok: sorted(shard.ok), failed: sorted(shard.failed) };
  }

  async uncountRunEnds(r: RunRef, s: number, indexes: readonly number[]): Promise<void> {
    const shard = this.shard(r, s);
    for (const i of indexes) {
      shard.ok.delete(i);
      shard.failed.delete(i);
    }
    this.run(r).closed.delete(s);
  }

  async closeRunEndShard(r: RunRef, s: number): Promise<number> {
    const run = this.run(r);
    run.closed.add(s);
    return run.closed.size;
  }

  async getRunEnds(r: RunRef, shards: readonly number[]): Promise<Map<number, RunEndShard>> {
    const out = new Map<number, RunEndShard>();
    for (const s of shards) {
      const shard = this.runs.get(keyOf(r))?.shards.get(s);
      if (shard) out.set(s, { ok: sorted(shard.ok), failed: sorted(shard.failed) });
    }
    return out;
  }
}
