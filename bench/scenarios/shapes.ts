/**
 * Scenario 1, the scheduler shapes: each shape runs on the embedded runtime, on the
 * memory store or on DynamoDB Local (DynamoStore with the in-process queue).
 * Wall time is measured around triggering plus running; task lag comes from the task
 * instances' `startedAt`/`endedAt`, which only mean something on a real clock, so the
 * memory store runs each shape twice: on a VirtualClock (wall time, as `--time-warp`
 * runs) and on a high-resolution real clock (lag).
 */
import { performance } from 'node:perf_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTables, deleteTables } from '../../lib/adapters/aws/dynamo-schema.js';
import { DynamoStore } from '../../lib/adapters/aws/dynamo-store.js';
import { VirtualClock } from '../../lib/adapters/clock.js';
import { MemoryLog } from '../../lib/adapters/memory/observe.js';
import type { TaskInstance } from '../../lib/engine/index.js';
import type { Clock, Store } from '../../lib/engine/index.js';
import { InlineBundleSource } from '../../lib/runtime/inline-bundles.js';
import { EmbeddedRuntime } from '../../lib/runtime/embedded.js';
import { PerfClock } from '../clock.js';
import { shapePlans, type ShapePlan } from '../dags.js';
import { shapeBundle } from '../isolated-shapes.js';
import { taskLag } from '../lag.js';

export interface ShapeResult {
  name: string;
  /** `memory, isolated`: the same shape from a built bundle, each try in a worker thread. */
  store: 'memory' | 'memory, isolated' | 'dynamodb-local';
  tasks: number;
  /** Best of {@link WALL_RUNS} runs on a virtual clock. */
  wallMs: number;
  /** CPU time of the process, every thread (isolation threads included), in that run: steadier than wall time on a loaded machine. */
  cpuMs: number;
  totalTaskLagMs: number;
  p50StepLagMs: number;
  p99StepLagMs: number;
  tasksPerSec: number;
  /** Every run ended in success (a benchmark of failing runs measures nothing). */
  allSucceeded: boolean;
}

export interface ShapeOptions {
  scale: number;
  concurrency: number;
  /** DynamoDB Local client; without it only the memory store runs. */
  dynamodb?: DynamoDBClient;
}

type Built = Awaited<ReturnType<typeof shapeBundle>>;

interface Timed {
  wallMs: number;
  cpuMs: number;
  tis: TaskInstance[];
  allSucceeded: boolean;
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Triggers every run of the shape, runs them to the end, and reads the task instances back. */
export async function runShape(plan: ShapePlan, clock: Clock, concurrency: number, store?: Store, built?: Built): Promise<Timed> {
  const bundles = built?.bundles ?? new InlineBundleSource(plan.dags);
  const version = built?.version ?? (bundles as InlineBundleSource).version;
  const rt = new EmbeddedRuntime({
    bundles, clock, store, concurrency, schedules: false,
    // One reconcile pass at start, then none: it is the safety net, not the hot path.
    tickMs: 3_600_000,
    log: new MemoryLog(undefined, 100),
  });
  await rt.register(version);
  await rt.tick();
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  for (const r of plan.runs) await rt.trigger(r.dagId, { runId: r.runId });
  const outcome = await rt.runUntil(async () => (await rt.ports.store.listActiveRuns()).length === 0);
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  if (outcome !== 'done') throw new Error(`shape "${plan.name}" ended ${outcome}`);
  const tis: TaskInstance[] = [];
  let allSucceeded = true;
  for (const r of plan.runs) {
    tis.push(...(await rt.ports.store.listTasks(r.dagId, r.runId)));
    allSucceeded &&= (await rt.ports.store.getRun(r.dagId, r.runId))?.state === 'success';
  }
  if (tis.length !== plan.tasks) throw new Error(`shape "${plan.name}": ${tis.length} task instances, expected ${plan.tasks}`);
  return { wallMs, cpuMs, tis, allSucceeded };
}

function result(plan: ShapePlan, store: ShapeResult['store'], wall: Timed, lagRun: Timed): ShapeResult {
  const lag = taskLag(lagRun.tis, new Map(plan.dags.map((d) => [d.spec.dagId, d.spec])));
  return {
    name: plan.name,
    store,
    tasks: plan.tasks,
    wallMs: round(wall.wallMs, 1),
    cpuMs: round(wall.cpuMs, 1),
    totalTaskLagMs: round(lag.totalMs, 1),
    p50StepLagMs: round(lag.p50Ms, 3),
    p99StepLagMs: round(lag.p99Ms, 3),
    tasksPerSec: Math.round(plan.tasks / (wall.wallMs / 1000)),
    allSucceeded: wall.allSucceeded && lagRun.allSucceeded,
  };
}

/** Wall-time runs per shape and store; the fastest counts (the others met a busy machine). */
export const WALL_RUNS = 3;

async function bestOf(plan: ShapePlan, concurrency: number, built?: Built): Promise<Timed> {
  let best: Timed | undefined;
  for (let i = 0; i < WALL_RUNS; i++) {
    const t = await runShape(plan, new VirtualClock(Date.UTC(2026, 0, 1)), concurrency, undefined, built);
    if (!best || t.wallMs < best.wallMs) best = { ...t, allSucceeded: t.allSucceeded && best?.allSucceeded !== false };
    else best.allSucceeded &&= t.allSucceeded;
  }
  return best!;
}

/**
 * @example
 * const rows = await shapeBench({ scale: 0.1, concurrency: 32 }); // memory store only
 */
export async function shapeBench(opts: ShapeOptions): Promise<ShapeResult[]> {
  const out: ShapeResult[] = [];
  const plans = shapePlans(opts.scale);
  // One pass of every shape first warms the JIT, so the figures are those of a running
  // process, not of compiling the engine (a cold one-shot CLI run is reported apart:
  // `airless run ... --runs 100`, about 0.1 s for the first shape).
  for (const plan of plans) await runShape(plan, new VirtualClock(Date.UTC(2026, 0, 1)), opts.concurrency);
  for (const plan of plans) {
    const wall = await bestOf(plan, opts.concurrency);
    const lagRun = await runShape(plan, new PerfClock(), opts.concurrency);
    out.push(result(plan, 'memory', wall, lagRun));
  }
  // The same shapes with every try in a worker thread (warm pool: one pass first).
  const built = await shapeBundle(plans);
  for (const plan of plans) await runShape(plan, new VirtualClock(Date.UTC(2026, 0, 1)), opts.concurrency, undefined, built);
  for (const plan of plans) {
    const wall = await bestOf(plan, opts.concurrency, built);
    const lagRun = await runShape(plan, new PerfClock(), opts.concurrency, undefined, built);
    out.push(result(plan, 'memory, isolated', wall, lagRun));
  }
  if (opts.dynamodb) {
    for (const [i, plan] of plans.entries()) {
      const prefix = `bench-shape${i}-${Date.now().toString(36)}-`;
      await createTables(opts.dynamodb, prefix);
      try {
        const store = new DynamoStore({ client: opts.dynamodb, tablePrefix: prefix });
        const timed = await runShape(plan, new PerfClock(), opts.concurrency, store);
        out.push(result(plan, 'dynamodb-local', timed, timed));
      } finally {
        await deleteTables(opts.dynamodb, prefix);
      }
    }
  }
  return out;
}
