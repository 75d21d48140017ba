/**
 * Sensor benchmark (AIP-17's numbers): one poke cycle over `sensors` waiting sensors with
 * `distinct` distinct poke contexts, `shards` pokers running at once (as the poker Lambdas
 * do), each poke taking `pokeMs` of real time. Reports the pokes of one cycle, what a
 * poke-per-sensor design would make, and the wall time of the cycle.
 *
 * Run: npx tsx bench/sensors.ts [--sensors 20000] [--distinct 12000] [--shards 8] [--pokeMs 50] [--concurrency 64]
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { SystemClock } from '../lib/adapters/clock.js';
import { MemoryLog, MemoryMetrics } from '../lib/adapters/memory/observe.js';
import { MemoryStore } from '../lib/adapters/memory/store.js';
import type { TriggerRecord } from '../lib/engine/index.js';
import { pokeShard } from '../lib/engine/index.js';
import { DEFAULT_CONFIG, type Ports } from '../lib/engine/index.js';
import { sensorHash } from '../lib/engine/index.js';

export interface SensorBenchOptions {
  sensors: number;
  distinct: number;
  shards: number;
  pokeMs: number;
  /** Concurrent pokes per poker (EngineConfig.pokeConcurrency); default the engine's. */
  pokeConcurrency?: number;
}

export interface SensorBenchResult {
  sensors: number;
  distinct: number;
  shards: number;
  pokeConcurrency: number;
  pokesPerCycle: number;
  naivePokesPerCycle: number;
  /** Wall time of the cycle with every shard's poker running at once in this process. */
  cycleMs: number;
  /** Slowest shard when each poker runs alone: the cycle time with one Lambda per shard. */
  slowestShardMs: number;
}

/**
 * @example
 * const r = await sensorBench({ sensors: 20_000, distinct: 12_000, shards: 8, pokeMs: 50 });
 * console.log(r.pokesPerCycle, r.cycleMs);
 */
export async function sensorBench(opts: SensorBenchOptions): Promise<SensorBenchResult> {
  const { sensors, distinct, shards } = opts;
  if (distinct > sensors || distinct < 1) throw new Error('need 1 <= distinct <= sensors');
  const pokeConcurrency = opts.pokeConcurrency ?? DEFAULT_CONFIG.pokeConcurrency;

  const together = await setup(opts, pokeConcurrency);
  let start = performance.now();
  await Promise.all(Array.from({ length: shards }, (_, s) => pokeShard(together.ports, s, { shards, cycle: together.cycle })));
  const cycleMs = Math.round(performance.now() - start);

  const alone = await setup(opts, pokeConcurrency);
  let slowestShardMs = 0;
  for (let s = 0; s < shards; s++) {
    start = performance.now();
    await pokeShard(alone.ports, s, { shards, cycle: alone.cycle });
    slowestShardMs = Math.max(slowestShardMs, Math.round(performance.now() - start));
  }
  if (alone.pokes() !== together.pokes()) throw new Error(`poke counts differ: ${alone.pokes()} vs ${together.pokes()}`);
  return {
    sensors, distinct, shards, pokeConcurrency,
    pokesPerCycle: together.pokes(), naivePokesPerCycle: sensors, cycleMs, slowestShardMs,
  };
}

/** A memory store holding `sensors` registrations over `distinct` targets, and ports whose poke sleeps `pokeMs`. */
async function setup(opts: SensorBenchOptions, pokeConcurrency: number) {
  const { sensors, distinct, shards, pokeMs } = opts;
  const store = new MemoryStore();
  const clock = new SystemClock();
  let pokes = 0;
  const ports: Ports = {
    store,
    queue: { send: async () => {} },
    timer: { schedule: async () => {} },
    clock,
    bundles: {
      manifest: async () => { throw new Error('the bench needs no bundle'); },
      load: async () => { throw new Error('the bench needs no bundle'); },
    },
    metrics: new MemoryMetrics(),
    log: new MemoryLog(undefined, 0),
    config: { ...DEFAULT_CONFIG, shards, pokeConcurrency },
    // The target is not there yet: every waiter keeps waiting, as on most cycles.
    sensors: { bench: async () => { pokes++; await new Promise((r) => setTimeout(r, pokeMs)); return false; } },
    workerId: 'bench',
  };
  const now = clock.now();
  for (let i = 0; i < sensors; i++) {
    const pokeContext = { target: `t${i % distinct}` };
    const t: TriggerRecord = {
      id: `bench/r/s${i}`, kind: 'sensor', dagId: 'bench', runId: 'r', taskId: `s${i}`, tryNumber: 1,
      createdAt: now, timeoutAt: now + 86_400_000, sensorType: 'bench', pokeContext, ...sensorHash('bench', pokeContext),
      nextPokeAt: now, pokeIntervalMs: 60_000, softFail: false,
    };
    await store.putTrigger(t);
  }
  return { ports, cycle: Math.floor(now / 60_000), pokes: () => pokes };
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await sensorBench({
    sensors: arg('sensors', 20_000),
    distinct: arg('distinct', 12_000),
    shards: arg('shards', 8),
    pokeMs: arg('pokeMs', 50),
    pokeConcurrency: process.argv.includes('--concurrency') ? arg('concurrency', 64) : undefined,
  });
  console.log(JSON.stringify(r));
}
