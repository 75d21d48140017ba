/**
 * Test helpers for waiting tasks: a sensor type that counts its pokes per target, a
 * timer that loses schedules, a store that crashes once on a chosen write, and poke
 * cycles driven by hand.
 */
import type { EmbeddedRuntime } from '../../lib/runtime/embedded.js';
import { pokeShard, type PokeReport } from '../../lib/engine/index.js';
import type { Clock, QueueMessage, Store, Timer } from '../../lib/engine/index.js';
import type { TaskPatch } from '../../lib/engine/index.js';
import { defineSensor } from '../../lib/sdk/index.js';

/**
 * A custom sensor type whose targets turn true on demand; every poke is recorded with
 * the virtual time it happened at.
 *
 * @example
 * const s = countingSensor('probe', clock);
 * s.truthy.add('t1');
 * sensor('wait', { type: s.def, pokeContext: { target: 't1' } });
 */
export function countingSensor(type: string, clock: { now(): number }) {
  const truthy = new Set<string>();
  const errors = new Map<string, string>();
  const pokes: Array<{ target: string; at: number }> = [];
  const def = defineSensor(type, (pc: { target: string }) => {
    pokes.push({ target: pc.target, at: clock.now() });
    const e = errors.get(pc.target);
    if (e) throw new Error(e);
    return truthy.has(pc.target);
  });
  return {
    def,
    truthy,
    errors,
    pokes,
    /** Pokes of one target (or all). */
    count(target?: string): number {
      return target === undefined ? pokes.length : pokes.filter((p) => p.target === target).length;
    },
    /** Virtual times of the pokes of one target. */
    times(target: string): number[] {
      return pokes.filter((p) => p.target === target).map((p) => p.at);
    },
  };
}

/** A clock whose `now()` can be read before it exists (sensors are defined before the runtime). */
export function lateClock(): { now(): number; set(c: Clock): void } {
  let c: Clock | undefined;
  return { now: () => c!.now(), set: (x) => { c = x; } };
}

/** One poke cycle over all `shards` pokers, run one after another; returns their reports. */
export async function pokeCycle(rt: EmbeddedRuntime, shards: number, cycle: number, cycleMs?: number): Promise<PokeReport[]> {
  const out: PokeReport[] = [];
  for (let s = 0; s < shards; s++) out.push(await pokeShard(rt.ports, s, { shards, cycle, cycleMs }));
  return out;
}

/**
 * A timer that loses (or fails) the first `n` schedules whose id starts with `prefix`:
 * the crash between a state write and arming its timer.
 */
export function lossyTimer(inner: Timer, prefix: string, n = 1, mode: 'throw' | 'drop' = 'throw') {
  const lost: Array<{ id: string; at: number; message: QueueMessage }> = [];
  const timer: Timer = {
    async schedule(id, at, message) {
      if (id.startsWith(prefix) && lost.length < n) {
        lost.push({ id, at, message });
        if (mode === 'throw') throw new Error(`timer unavailable (simulated crash) for ${id}`);
        return;
      }
      return inner.schedule(id, at, message);
    },
  };
  return { timer, lost };
}

/** A store whose first `updateTask` matching `when` throws (a crash before that write). */
export function crashOnceStore(inner: Store, when: (patch: TaskPatch) => boolean): { store: Store; crashed: () => boolean } {
  let done = false;
  const store = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'updateTask') {
        return (async (key, expect, patch, slot, limits) => {
          if (!done && when(patch)) {
            done = true;
            throw new Error('simulated crash before the write');
          }
          return target.updateTask(key, expect, patch, slot, limits);
        }) as Store['updateTask'];
      }
      const v = (target as any)[prop];
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { store, crashed: () => done };
}

export const MIN = 60_000;
