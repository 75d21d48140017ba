/**
 * The mapping operations of the Store port in process (lib/engine/model/mapping-store.ts), with
 * the same set semantics as the DynamoDB items (lib/adapters/aws/dynamo-mapping.ts).
 */
import { MAP_OUTCOMES, shardCount, shardWant, type MapOutcome, type MapShardState, type TaskInstance, type TaskKey } from '../../engine/index.js';

interface Shard { want: number; sets: Record<MapOutcome, Set<number>> }
interface Summary { n: number; closed: Set<number>; shards: Map<number, Shard> }

const keyOf = (k: TaskKey): string => `${k.dagId}\u0000${k.runId}\u0000${k.taskId}`;
const emptySets = (): Record<MapOutcome, Set<number>> =>
  Object.fromEntries(MAP_OUTCOMES.map((o) => [o, new Set<number>()])) as Record<MapOutcome, Set<number>>;

function stateOf(s: Shard): MapShardState {
  return { want: s.want, indexes: Object.fromEntries(MAP_OUTCOMES.map((o) => [o, [...s.sets[o]].sort((a, b) => a - b)])) as Record<MapOutcome, number[]> };
}

export class MemoryMapCounts {
  private readonly maps = new Map<string, Summary>();

  constructor(private readonly listTasks: (dagId: string, runId: string) => Promise<TaskInstance[]>) {}

  async initMapCounts(parent: TaskKey, n: number): Promise<void> {
    const k = keyOf(parent);
    if (this.maps.get(k)?.n === n) return;
    const shards = new Map<number, Shard>();
    for (let s = 0; s < shardCount(n); s++) shards.set(s, { want: shardWant(n, s), sets: emptySets() });
    this.maps.set(k, { n, closed: new Set(), shards });
  }

  private shard(parent: TaskKey, shard: number): Shard {
    const s = this.maps.get(keyOf(parent))?.shards.get(shard);
    if (!s) throw new Error(`no map counts for ${keyOf(parent).replaceAll('\u0000', '/')} shard ${shard}`);
    return s;
  }

  async countMapped(parent: TaskKey, shard: number, mapIndex: number, outcome: MapOutcome): Promise<MapShardState> {
    const s = this.shard(parent, shard);
    for (const o of MAP_OUTCOMES) s.sets[o].delete(mapIndex);
    s.sets[outcome].add(mapIndex);
    return stateOf(s);
  }

  async uncountMapped(parent: TaskKey, shard: number, mapIndex: number): Promise<void> {
    const s = this.shard(parent, shard);
    for (const o of MAP_OUTCOMES) s.sets[o].delete(mapIndex);
    this.maps.get(keyOf(parent))!.closed.delete(shard);
  }

  async closeMapShard(parent: TaskKey, shard: number): Promise<{ closed: number; want: number }> {
    const m = this.maps.get(keyOf(parent))!;
    m.closed.add(shard);
    return { closed: m.closed.size, want: m.shards.size };
  }

  async getMapSummary(parent: TaskKey): Promise<{ closed: number[]; want: number } | undefined> {
    const m = this.maps.get(keyOf(parent));
    return m && { closed: [...m.closed].sort((a, b) => a - b), want: m.shards.size };
  }

  async getMapShards(parent: TaskKey, shards: readonly number[]): Promise<Map<number, MapShardState>> {
    const out = new Map<number, MapShardState>();
    for (const s of shards) {
      const sh = this.maps.get(keyOf(parent))?.shards.get(s);
      if (sh) out.set(s, stateOf(sh));
    }
    return out;
  }

  async listMapped(parent: TaskKey): Promise<TaskInstance[]> {
    const prefix = `${parent.taskId}#`;
    return (await this.listTasks(parent.dagId, parent.runId)).filter((t) => t.taskId.startsWith(prefix));
  }
}
