/**
 * What one task of each scheduler shape costs the engine in process, counted rather than
 * timed (steady under load, unlike a wall time): store calls per task by method (a `getRun`
 * is one per message, plus one per run read at the end) and promises made per task
 * (async_hooks). docs/adr/0030 quotes these.
 *
 *   npx tsx bench/per-task.ts            # all four shapes
 *   npx tsx bench/per-task.ts intree
 */
import { createHook } from 'node:async_hooks';
import { VirtualClock } from '../lib/adapters/clock.js';
import { MemoryStore } from '../lib/adapters/memory/store.js';
import type { Store } from '../lib/engine/index.js';
import { shapePlans } from './dags.js';
import { runShape } from './scenarios/shapes.js';

const NAMES = ['chain10', 'chain100', 'tree', 'intree'];
const only = process.argv[2];
if (only !== undefined && !NAMES.includes(only)) {
  console.error(`unknown shape "${only}"; choose from ${NAMES.join(', ')}`);
  process.exit(2);
}

/** A memory store that counts its calls by method name. */
function countingStore(counts: Map<string, number>): Store {
  const inner = new MemoryStore();
  return new Proxy(inner, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        counts.set(String(key), (counts.get(String(key)) ?? 0) + 1);
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

let promises = 0;
const hook = createHook({ init(_id, type) { if (type === 'PROMISE') promises++; } });
const clock = () => new VirtualClock(Date.UTC(2026, 0, 1));

for (const [i, name] of NAMES.entries()) {
  if (only && name !== only) continue;
  const plan = shapePlans(1)[i]!;
  await runShape(plan, clock(), 32); // warm
  promises = 0;
  hook.enable();
  await runShape(plan, clock(), 32);
  hook.disable();
  // Store calls in a run of their own: a store handed to the runtime is wrapped to hold the
  // virtual clock during its calls, which makes promises of its own.
  const counts = new Map<string, number>();
  await runShape(plan, clock(), 32, countingStore(counts));
  const per = (n: number) => (n / plan.tasks).toFixed(2);
  const writes = ['putTask', 'updateTask', 'recordUpstream'].reduce((a, k) => a + (counts.get(k) ?? 0), 0);
  console.log(`${plan.name}: ${per(promises)} promises, ${per(writes)} task writes (put, update, record upstream) per task`);
  console.log(`  store calls per task: ${[...counts].sort((a, b) => b[1] - a[1]).filter(([, v]) => v / plan.tasks >= 0.05).map(([k, v]) => `${k} ${per(v)}`).join(', ')}`);
}
