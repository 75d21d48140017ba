/**
 * The {@link PokerSchedules} port in process: which shards' schedules are enabled, and
 * every switch in the order it landed. Tests hold a switch back (`beforeLanding`) to
 * make calls land in the order they need.
 */
import type { PokerSchedules } from '../../engine/index.js';

export interface PokerSwitch {
  shard: number;
  enabled: boolean;
}

/**
 * @example
 * const pokers = new MemoryPokerSchedules({ shards: 8 });
 * await pokers.setEnabled(3, true);
 * pokers.enabledShards(); // [3]
 */
export class MemoryPokerSchedules implements PokerSchedules {
  private readonly state = new Map<number, boolean>();
  /** Every switch, in the order it landed. */
  readonly landed: PokerSwitch[] = [];
  /** Reads of a schedule's state. */
  reads = 0;

  constructor(private readonly o: {
    /** Schedules that exist: 0 .. shards-1, deployed disabled. */
    shards: number;
    /** Runs before a switch lands (after the call is made). */
    beforeLanding?: (s: PokerSwitch) => Promise<void>;
  }) {
    for (let shard = 0; shard < o.shards; shard++) this.state.set(shard, false);
  }

  async setEnabled(shard: number, enabled: boolean): Promise<void> {
    if (!this.state.has(shard)) throw new Error(`no poker schedule ${shard}`);
    await this.o.beforeLanding?.({ shard, enabled });
    this.state.set(shard, enabled);
    this.landed.push({ shard, enabled });
  }

  async isEnabled(shard: number): Promise<boolean | undefined> {
    this.reads++;
    return this.state.get(shard);
  }

  /** Shards whose schedule is enabled now. */
  enabledShards(): number[] {
    return [...this.state].filter(([, on]) => on).map(([shard]) => shard).sort((a, b) => a - b);
  }

  /** Changes a schedule behind the engine's back (a deploy, an operator). */
  force(shard: number, enabled: boolean): void {
    this.state.set(shard, enabled);
  }
}
