/**
 * A LoadedBundle whose task methods and sensor pokes run in worker threads (pool.ts):
 * the BundleSource adapters (local folder, S3) load bundles through it, so the embedded
 * runtime and the worker and poker Lambdas isolate every try alike. The engine sees
 * ordinary callables; the thread, the RPC for XCom, logs and render, and the termination
 * at the execution timeout all live here.
 */
import { totalmem } from 'node:os';
import path from 'node:path';
import { loadBundle } from './load.js';
import type { Manifest } from '../engine/index.js';
import type { LoadedBundle, SensorPoke, TaskCallable } from '../engine/index.js';
import { TaskCodeError } from './errors.js';
import { maskProcessOutput } from './output-mask.js';
import { IsolationPool, type HostContext, type Reserved } from './pool.js';

export interface IsolationOptions {
  /** `'thread'` (default) or `'none'` (every task in-process: trusted code only). Env: AIRLESS_ISOLATION. */
  mode?: 'thread' | 'none';
  /** Heap limit per try, MB. Env: AIRLESS_TRY_MEMORY_MB. Default: {@link defaultTryMemoryMb}. */
  memoryMb?: number;
}

/**
 * Half the Lambda function's memory (AWS_LAMBDA_FUNCTION_MEMORY_SIZE), at least 64 MB; off
 * Lambda a quarter of the machine's memory, at most 4 GB. Half, so that one runaway try hits
 * its own limit before the function as a whole runs out.
 *
 * @example
 * defaultTryMemoryMb({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024' }); // 512
 */
export function defaultTryMemoryMb(env: Record<string, string | undefined> = process.env): number {
  const fromEnv = Number(env.AIRLESS_TRY_MEMORY_MB);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  const lambda = Number(env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE);
  if (Number.isFinite(lambda) && lambda > 0) return Math.max(64, Math.floor(lambda / 2));
  return Math.min(4096, Math.floor(totalmem() / 4 / 2 ** 20));
}

const pools = new Map<string, IsolationPool>();
const RESOLVED = Promise.resolve();

/** Terminates every pool's threads (tests; a CLI that wants to end at once). */
export async function closeIsolationPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close()));
}

/**
 * Loads `bundle.mjs` (sha256 checked against the manifest, as loadBundle does) and returns
 * it with isolated task methods and pokes. One warm pool per bundle file and sha, shared
 * by every caller in the process.
 *
 * @example
 * const bundle = await loadIsolatedBundle('/tmp/b/bundle.mjs', manifest);
 * await bundle.taskMethod('etl', 'extract', 'execute')?.(ctx); // runs in a thread
 */
export async function loadIsolatedBundle(bundlePath: string, manifest?: Manifest, opts: IsolationOptions = {}): Promise<LoadedBundle> {
  // Task code is about to run in this process: mask what it prints, as ctx.log masks (output-mask.ts).
  maskProcessOutput();
  const base = await loadBundle(bundlePath, manifest);
  const mode = opts.mode ?? (process.env.AIRLESS_ISOLATION === 'none' ? 'none' : 'thread');
  if (mode === 'none') return base;
  const sha = base.manifest.bundleSha256;
  const abs = path.resolve(bundlePath);
  const memoryMb = opts.memoryMb ?? defaultTryMemoryMb();
  const key = `${abs}\u0000${sha}\u0000${memoryMb}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = new IsolationPool({ bundlePath: abs, sha, memoryMb });
    pools.set(key, pool);
  }
  return isolate(base, pool, path.dirname(abs));
}

/**
 * Wraps `base`: its callables run in `pool`'s threads, except tasks that opted out with
 * `isolation: 'none'`.
 *
 * @example
 * const bundle = isolate(await loadBundle(file, manifest), pool, path.dirname(file));
 */
export function isolate(base: LoadedBundle, pool: IsolationPool, bundleDir: string): LoadedBundle {
  const inProcess = new Set<string>();
  for (const d of base.manifest.dags) {
    for (const t of d.tasks) if (t.isolation === 'none') inProcess.add(`${d.dagId}\u0000${t.taskId}`);
  }
  return {
    manifest: base.manifest,
    taskMethod(dagId: string, taskId: string, method: string): TaskCallable | undefined {
      const local = base.taskMethod(dagId, taskId, method);
      if (!local || inProcess.has(`${dagId}\u0000${taskId}`)) return local;
      const task = new IsolatedTask(pool, bundleDir, { dagId, taskId, method });
      // Bound methods, not closures: one callable per try, and no name helper per closure in bundled code.
      const fn: TaskCallable = task.call.bind(task);
      fn.ready = task.ready.bind(task);
      return fn;
    },
    sensorPoke(type: string): SensorPoke | undefined {
      if (!base.sensorPoke(type)) return undefined;
      let reserved: Reserved | undefined;
      const poke: SensorPoke = async (pc, env) => {
        const thread = reserved;
        reserved = undefined;
        try {
          return await pool.run({ t: 'poke', type, pc, env: { now: env.now } }, undefined, env.signal, thread);
        } catch (e) {
          throw located(e, bundleDir);
        }
      };
      poke.ready = async () => { reserved = await pool.reserve(); };
      return poke;
    },
  };
}

/** One try's callable: `ready()` takes a warm thread (at once when one is idle), the call runs the try in it. */
class IsolatedTask {
  private reserved?: Reserved;

  constructor(
    private readonly pool: IsolationPool,
    private readonly dir: string,
    private readonly at: { dagId: string; taskId: string; method: string },
  ) {}

  ready(): Promise<void> {
    this.reserved = this.pool.reserveNow();
    return this.reserved ? RESOLVED : this.pool.reserve().then((t) => { this.reserved = t; });
  }

  call(ctx: unknown, arg?: unknown): Promise<unknown> {
    const thread = this.reserved;
    this.reserved = undefined;
    return runTask(this.pool, this.dir, this.at, ctx as TaskCtx, arg, thread);
  }
}

type TaskCtx = HostContext & {
  dagId: string; runId: string; mapIndex: number; tryNumber: number; logicalDate: string; dataIntervalStart: string;
  dataIntervalEnd: string; ds: string; params: Record<string, unknown>; conf: Record<string, unknown>; signal: AbortSignal;
  triggeringAssetEvents?: Record<string, unknown>; outletUris?: readonly string[];
};

async function runTask(
  pool: IsolationPool, dir: string, at: { dagId: string; taskId: string; method: string }, c: TaskCtx, arg: unknown, reserved?: Reserved,
): Promise<unknown> {
  const ctx = {
    dagId: c.dagId, runId: c.runId, taskId: c.taskId, tryNumber: c.tryNumber, logicalDate: c.logicalDate,
    dataIntervalStart: c.dataIntervalStart, dataIntervalEnd: c.dataIntervalEnd, ds: c.ds, params: c.params, conf: c.conf,
    mapIndex: c.mapIndex,
    // Assets (lib/engine/flow/asset-context.ts): the thread keeps its own outlet accessors and sends their extras back.
    ...(c.outletUris?.length ? { outlets: c.outletUris } : {}),
    ...(c.triggeringAssetEvents && Object.keys(c.triggeringAssetEvents).length ? { triggeringAssetEvents: c.triggeringAssetEvents } : {}),
  };
  try {
    return await pool.run({ t: 'run', dagId: at.dagId, taskId: at.taskId, method: at.method, ctx, arg }, c, c.signal, reserved);
  } catch (e) {
    const err = located(e, dir);
    // The whole trace, as lines a person reads (the CLI prints it; CloudWatch keeps it in one event).
    if (err instanceof TaskCodeError && err.remoteStack) c.log.error(`task code failed: ${err.remoteStack}`);
    throw err;
  }
}

/** Adds the first stack frame inside the DAG folder to a TaskCodeError's one-line message; trace paths become relative to the DAG folder. */
function located(e: unknown, dir: string): unknown {
  if (!(e instanceof TaskCodeError) || !e.remoteStack) return e;
  const at = firstDagFrame(e.remoteStack, dir);
  // Source-mapped paths lie under the bundle's folder: show them relative to the DAG folder.
  // Frames of the thread's own runner ([worker eval]) are noise to a DAG author.
  const stack = e.remoteStack.split(`${dir}${path.sep}`).join('').split('\n').filter((l) => !l.includes('[worker eval]')).join('\n');
  return new TaskCodeError(at ? `${e.message} (at ${at})` : e.message, stack);
}

/**
 * The first frame of `stack` in a DAG file: a source-mapped path under the bundle's folder
 * (the bundle's map names sources relative to the DAG folder), not in node_modules.
 *
 * @example
 * firstDagFrame('Error: x\n    at f (/b/v1/etl.ts:3:9)', '/b/v1'); // 'etl.ts:3:9'
 */
export function firstDagFrame(stack: string, dir: string): string | undefined {
  const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
  for (const line of stack.split('\n')) {
    const m = /\(?((?:file:\/\/)?\/[^()\s]+):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (!m) continue;
    const file = m[1]!.replace(/^file:\/\//, '');
    if (!file.startsWith(prefix) || file.includes(`${path.sep}node_modules${path.sep}`) || file.endsWith('.mjs')) continue;
    return `${file.slice(prefix.length)}:${m[2]}:${m[3]}`;
  }
  return undefined;
}
