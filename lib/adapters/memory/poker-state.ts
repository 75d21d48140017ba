/**
 * The poker state items of the Store port in process (lib/engine/model/poker-state.ts),
 * with the DynamoDB adapter's semantics (dynamo-poker-state.ts): a write succeeds only
 * over the version before it.
 */
import type { PokerState, PokerStateCas } from '../../engine/index.js';
import { conditionFailed } from './records.js';

/**
 * @example
 * const states = new MemoryPokerStates((v) => sensorsIn(v) > 0);
 * await states.putPokerState({ shard: 0, want: 'on', version: 1, since: Date.now() });
 */
export class MemoryPokerStates {
  private readonly items = new Map<number, PokerState>();

  /** `hasSensors(v)`: whether virtual shard v holds a sensor registration. */
  constructor(private readonly hasSensors: (virtualShard: number) => boolean) {}

  async getPokerState(shard: number): Promise<PokerState | undefined> {
    const s = this.items.get(shard);
    return s && { ...s };
  }

  async putPokerState(next: PokerState): Promise<PokerStateCas> {
    const cur = this.items.get(next.shard);
    if ((cur?.version ?? 0) !== next.version - 1) return conditionFailed(cur && { ...cur }) as PokerStateCas;
    this.items.set(next.shard, { ...next });
    return { ok: true, item: { ...next } };
  }

  async hasSensorTriggers(virtualShard: number): Promise<boolean> {
    return this.hasSensors(virtualShard);
  }
}
