/**
 * Poker schedules that run only while sensors wait (issue 22 §4, docs/adr/0024-nothing-at-idle.md).
 * Each poker shard has one state item, written only by compare-and-set on its version:
 * what its schedule should be. The Store keeps it (part of the Store port, this
 * sub-interface); the runtime switches the schedules ({@link PokerSchedules}, optional:
 * without it the pokers run as deployed and nothing here is called).
 */

/**
 * What a shard's poker schedule should be: `on` while sensors may wait; `draining` after
 * a cycle found none (still enabled: a cycle at least a minute later decides); `off`
 * once it has been found empty across that minute (disabled).
 */
export type PokerWant = 'on' | 'draining' | 'off';

export interface PokerState {
  shard: number;
  want: PokerWant;
  /** 1 for the first write, +1 for each: every write is conditional on the one before. */
  version: number;
  /** When `want` was set (epoch ms): a draining shard may go off one poke cycle after this. */
  since: number;
}

/** The Store port's `Cas<PokerState>` (ports.ts imports this file, so it is spelled out here). */
export type PokerStateCas = { ok: true; item: PokerState } | { ok: false; current: PokerState | undefined; reason?: 'condition' };

export interface PokerStateStore {
  /** A shard's state, strongly consistent (the protocol reads it after writing a registration). */
  getPokerState(shard: number): Promise<PokerState | undefined>;
  /**
   * Writes `next` when the stored version is `next.version - 1` (absent counts as 0);
   * otherwise fails with the stored state.
   */
  putPokerState(next: PokerState): Promise<PokerStateCas>;
  /** Whether any sensor registration is in virtual shard `virtualShard` (an index: may lag). */
  hasSensorTriggers(virtualShard: number): Promise<boolean>;
}

/**
 * The poker schedules themselves (EventBridge Scheduler on AWS). Both calls are
 * idempotent; two callers may race, and the protocol (flow/poker-schedule.ts) re-reads
 * the state item after every disable so that the last call to land is never a wrong one.
 */
export interface PokerSchedules {
  /** Enables or disables shard `shard`'s schedule (a no-op when it is already so). */
  setEnabled(shard: number, enabled: boolean): Promise<void>;
  /** Whether shard `shard`'s schedule is enabled; undefined when there is no such schedule. */
  isEnabled(shard: number): Promise<boolean | undefined>;
}
