/**
 * What the chaos parent (chaos.ts), its engine processes (node.ts) and the cost probe
 * (cost.ts) share: the engine settings with short times, the environment contract of a
 * child, a seeded random source, a timer on SQS delays and a queue that duplicates sends.
 */
import type { EngineConfig, Queue, QueueMessage, Timer } from '../../lib/engine/index.js';
import { DEFAULT_CONFIG } from '../../lib/engine/index.js';

/** Short times so that a killed process's work is recovered within seconds. */
export const CHAOS_CONFIG: EngineConfig = {
  ...DEFAULT_CONFIG,
  shards: 2,
  leaseMarginMs: 1_000,
  defaultLeaseMs: 4_000,
  // Re-sends back off exponentially now (lib/engine/flow/recover.ts), so a short first wait
  // no longer floods a backlog with copies (the requeue storm of ADR 0005).
  requeueAfterMs: 5_000,
  // A timer lost to a kill is fired by reconcile this long after its time.
  timerGraceMs: 5_000,
  pokeTimeoutMs: 2_000,
  pokeConcurrency: 16,
};

/** Period of the reconcile pass and of the poke cycle; cycle numbers are wall time / this. */
export const CYCLE_MS = 1_000;

/** Environment a child engine process reads. */
export interface ChildEnv {
  CHAOS_DDB_ENDPOINT: string;
  CHAOS_SQS_ENDPOINT: string;
  CHAOS_QUEUE_URL: string;
  CHAOS_TABLE_PREFIX: string;
  CHAOS_BUNDLE_ROOT: string;
  CHAOS_PROCESS_ID: string;
  CHAOS_LOG: string;
  CHAOS_STATS_DIR: string;
  CHAOS_SEED: string;
  CHAOS_DUP_PROBABILITY: string;
}

/** What a child writes to `<statsDir>/<processId>.json`, periodically and at exit. */
export interface ChildStats {
  processId: string;
  pid: number;
  at: number;
  handled: number;
  failedMessages: number;
  duplicateSends: number;
  counters: Record<string, number>;
  sqsRequests: number;
  dynamoRequests: number;
}

/**
 * mulberry32: a small seeded generator; the chaos run is repeatable up to OS scheduling.
 *
 * @example
 * const rnd = seeded(42); rnd(); // 0.6011...
 */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Longest delay an SQS message can have. */
const MAX_DELAY_MS = 900_000;

/**
 * A Timer with no scheduler: the message is sent now with an SQS delay (capped at
 * 15 minutes; chaos waits are seconds). Idempotence comes from the engine, which
 * ignores a stale or duplicate fire. `calls` counts schedule requests (cost probe).
 *
 * @example
 * const timer = new DelayTimer(queue, () => Date.now());
 * await timer.schedule('retry-x', Date.now() + 2_000, fireMessage);
 */
export class DelayTimer implements Timer {
  calls = 0;
  constructor(private readonly queue: Queue, private readonly now: () => number) {}

  async schedule(_id: string, at: number, message: QueueMessage): Promise<void> {
    this.calls++;
    const delayMs = Math.min(MAX_DELAY_MS, Math.max(0, at - this.now()));
    await this.queue.send([message], { delayMs });
  }

  async cancel(_id: string): Promise<void> {
    // A cancelled wait that fires anyway is a stale fire: the engine drops it.
  }
}

/**
 * A queue that sends each message a second time with probability `p`: at-least-once
 * delivery made visible. `duplicates` counts the extra sends.
 *
 * @example
 * const queue = new DuplicatingQueue(sqsQueue, 0.5, seeded(7));
 */
export class DuplicatingQueue implements Queue {
  duplicates = 0;
  constructor(private readonly inner: Queue, private readonly p: number, private readonly rnd: () => number) {}

  async send(messages: readonly QueueMessage[], opts?: { delayMs?: number }): Promise<void> {
    const twice = messages.filter(() => this.rnd() < this.p);
    await this.inner.send(messages, opts);
    if (twice.length > 0) {
      await this.inner.send(twice, opts);
      this.duplicates += twice.length;
    }
  }
}
