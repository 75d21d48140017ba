/**
 * A warm pool of worker threads for one bundle version. Each try (or poke) borrows a
 * thread for its duration; a try that must stop (execution timeout, poke timeout) has its
 * thread terminated, which V8 does even in the middle of a synchronous loop, and the pool
 * starts a replacement. Idle threads are unref'd: they never keep a process alive.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { THREAD_SOURCE } from './thread-main.js';
import { TaskCodeError } from './errors.js';
import { MAX_VALUE_DEPTH, redact } from '../engine/index.js';

/** The main-thread side of a task's context, which serves the thread's I/O. */
export interface HostContext {
  taskId: string;
  xcom: { pull(taskId: string, key?: string): Promise<unknown>; push(key: string, value: unknown): Promise<void> };
  log: { info(m: string, f?: Record<string, unknown>): void; warn(m: string, f?: Record<string, unknown>): void; error(m: string, f?: Record<string, unknown>): void };
  render(template: string): string;
  /** Serves `render` when present: `{{ var... }}` and `{{ conn... }}` are read first (the thread waits meanwhile). */
  renderAsync?(template: string): Promise<string>;
  variables?: { get(key: string, opts?: { default?: unknown; deserializeJson?: boolean }): Promise<unknown> };
  connections?: { get(connId: string): Promise<unknown> };
  /** Receives the extras the try set with `ctx.outletEvents(asset).extra` (sent with its result). */
  setOutletExtras?(extras: Record<string, Record<string, unknown>>): void;
}

export interface PoolOptions {
  /** Absolute path of `bundle.mjs`. */
  bundlePath: string;
  /** Makes a rebuilt bundle at the same path a new module in the thread. */
  sha: string;
  /** Old-generation heap limit of each thread, MB (`resourceLimits.maxOldGenerationSizeMb`). */
  memoryMb: number;
  /** Idle threads kept warm beyond those in use (default 64). */
  maxIdle?: number;
}

/** A thread taken by {@link IsolationPool.reserve}; opaque to callers. */
export interface Reserved {
  readonly dead: boolean;
}

interface Job {
  id: number;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  host?: HostContext;
  /** The try's abort signal, watched while it runs. */
  signal?: AbortSignal;
  thread: Thread;
}

// The thread's code is a string literal (thread-main.ts), never a function's toString():
// a bundler rewrites functions (esbuild's minified `__require` and `__name` helpers), not strings.
// The prelude gives the thread its `import()` (thread-main.ts calls `globalThis.__airlessImport`).
const SOURCE = `globalThis.__airlessImport = (u) => import(u);\n${THREAD_SOURCE}`;
let nextId = 0;
let starting = 0;

/**
 * Threads still starting (loading their bundle), in every pool. A runtime on a virtual
 * clock counts them as progress: a thread's start-up is not task code waiting on the clock.
 *
 * @example
 * if (progressed || threadsStarting() > 0) idleSince = performance.now();
 */
export function threadsStarting(): number {
  return starting;
}

/** Real time a try may run in a thread before a virtual clock treats it as waiting on time. */
export const TRY_GRACE_MS = 1_000;
let running = 0;
let lastStartedAt = 0;

/**
 * True while a try started less than {@link TRY_GRACE_MS} of real time ago is still
 * running in some thread. A runtime on a virtual clock counts that as progress: a try
 * doing real work (its XCom round trips, a slow store) is not task code waiting on the
 * clock, and jumping time under it would time it out. A try that runs longer (a spin,
 * an ignored abort) lets virtual time move again, so its execution timeout still fires.
 */
export function triesInGrace(now = performance.now()): boolean {
  return running > 0 && now - lastStartedAt < TRY_GRACE_MS;
}

class Thread {
  readonly worker: Worker;
  private readonly sync: MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  job?: Job;
  dead = false;
  private ready = false;
  /** The bundle is loaded (or failed to load): a try can start at once. */
  get isLoaded(): boolean {
    return this.ready;
  }
  private onReady!: () => void;
  /** Resolves once the thread has loaded its bundle (or died). */
  readonly loaded = new Promise<void>((resolve) => { this.onReady = resolve; });

  constructor(private readonly pool: IsolationPool, opts: PoolOptions) {
    const { port1, port2 } = new MessageChannel();
    this.sync = port1;
    const bundleUrl = `${new URL(`file://${opts.bundlePath}`).href}?sha=${opts.sha}`;
    this.worker = new Worker(SOURCE, {
      eval: true,
      workerData: { bundleUrl, syncPort: port2, syncFlag: this.flag, maxDepth: MAX_VALUE_DEPTH },
      transferList: [port2],
      resourceLimits: { maxOldGenerationSizeMb: opts.memoryMb },
    });
    starting++;
    this.sync.unref();
    this.worker.on('message', (m) => this.onMessage(m));
    this.worker.on('error', (e: Error & { code?: string }) => {
      const oom = e.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.end(new TaskCodeError(oom ? `the try ran out of memory (limit ${opts.memoryMb} MB per try)` : `${e.name}: ${e.message}`, e.stack));
    });
    this.worker.on('exit', (code) => this.end(new TaskCodeError(`the task ended its thread with process.exit(${code})`)));
    // A message the thread posted that cannot be read here (structured clone's reader
    // overflows on a value nested a few thousand levels deep): without this the try waited
    // for ever, holding its slot. Its thread may be waiting on a reply: replace it.
    this.worker.on('messageerror', (e: Error) => {
      this.kill(new TaskCodeError(`the try's thread sent a message that could not be read (${e.name}: ${e.message}); values a task returns, pushes or logs may nest at most ${MAX_VALUE_DEPTH} levels`));
    });
    // After the listeners: adding a 'message' listener refs the worker's message port again
    // (Node's setupPortReferencing), and a thread that was never lent out (a replacement for
    // a killed one, a warm one) then kept `airless run` alive: the flake of cli-exit.test.ts.
    this.worker.unref();
  }

  private onMessage(m: any): void {
    const job = this.job;
    if (m.t === 'done') {
      if (!job || m.id !== job.id) return;
      this.job = undefined;
      settled(job);
      // Back in the pool before the try's caller resumes: the next try takes this warm thread.
      this.pool.release(this);
      if (m.ok && m.outlets) job.host?.setOutletExtras?.(m.outlets);
      if (m.ok) job.resolve(m.value);
      else if (m.control) job.reject(m.control);
      else job.reject(m.error.name === 'XcomValueError' ? new TaskCodeError(m.error.message) : TaskCodeError.from(m.error));
    } else if (m.t === 'ready') {
      this.started();
    } else if (m.t === 'out') {
      // Masked here too: the pool may run where output-mask.ts is not installed.
      (m.stream === 'stderr' ? process.stderr : process.stdout).write(redact(String(m.text)));
    } else if (m.t === 'log') {
      job?.host?.log[m.level as 'info' | 'warn' | 'error'](m.msg, m.fields);
    } else if (m.t === 'call') {
      if (!job?.host || m.id !== job.id) return;
      const h = job.host;
      const x = h.xcom;
      const missing = (what: string) => Promise.reject(new Error(`${what} are not available to this task`));
      const op: Promise<unknown> =
        m.op === 'pull' ? x.pull(m.args[0], m.args[1])
        : m.op === 'push' ? x.push(m.args[0], m.args[1])
        : m.op === 'var' ? (h.variables?.get(m.args[0], m.args[1]) ?? missing('variables'))
        : (h.connections?.get(m.args[0]) ?? missing('connections'));
      const fail = (e: Error) => this.worker.postMessage({ t: 'reply', callId: m.callId, ok: false, error: { name: e.name, message: e.message } });
      op.then(
        (value) => {
          // A value structured clone cannot write (nested a few thousand levels) fails the call, not the process.
          try {
            this.worker.postMessage({ t: 'reply', callId: m.callId, ok: true, value });
          } catch (e) {
            fail(new Error(`the value could not be sent to the task (${(e as Error).name}: ${(e as Error).message})`));
          }
        },
        fail,
      );
    } else if (m.t === 'render') {
      // The thread blocks until the reply; the main thread may read variables meanwhile.
      const host = job!.host!;
      const reply = (r: { ok: boolean; value?: string; error?: string }) => {
        this.sync.postMessage(r);
        Atomics.store(this.flag, 0, 1);
        Atomics.notify(this.flag, 0);
      };
      const fail = (e: unknown) => reply({ ok: false, error: (e as Error).message });
      try {
        if (host.renderAsync) host.renderAsync(m.template).then((value) => reply({ ok: true, value }), fail);
        else reply({ ok: true, value: host.render(m.template) });
      } catch (e) {
        fail(e);
      }
    } else if (m.t === 'crash' && job) {
      this.job = undefined;
      settled(job);
      job.reject(TaskCodeError.from(m.error, m.what.endsWith(':') ? `${m.what} ` : `${m.what} in task code: `));
    }
  }

  /** The thread is gone (or going): fail its try, if any, and leave the pool. */
  end(reason: unknown): void {
    if (this.dead) return;
    this.dead = true;
    this.started();
    const job = this.job;
    this.job = undefined;
    if (job) {
      settled(job);
      job.reject(reason);
    }
    this.sync.close();
    this.pool.forget(this);
  }

  private started(): void {
    if (!this.ready) starting--;
    this.ready = true;
    this.onReady();
  }

  kill(reason: unknown): void {
    this.end(reason);
    void this.worker.terminate();
  }
}

// One ref'd handle keeps the process alive while a try runs or waits for its thread to
// load (threads themselves stay unref'd): cheaper than a ref and an unref of a worker per try.
let keepAlive: NodeJS.Timeout | undefined;
let holds = 0;
function hold(): void {
  if (holds++ === 0) (keepAlive ??= setInterval(() => {}, 2 ** 30)).ref();
}
function unhold(): void {
  if (--holds === 0) keepAlive?.unref();
}

function started(): void {
  running += 1;
  lastStartedAt = performance.now();
  hold();
}

/** Bookkeeping of a try that ends, whichever way. */
function settled(job: Job): void {
  running -= 1;
  unhold();
  if (job.signal) watched.get(job.signal)?.delete(job.thread);
}

// One abort listener per signal, however many tries share it (tries without an execution
// timeout share one never-aborted signal: a listener each would trip MaxListenersExceeded).
const watched = new WeakMap<AbortSignal, Set<Thread>>();
function watch(signal: AbortSignal, t: Thread): void {
  let threads = watched.get(signal);
  if (!threads) {
    const set = new Set<Thread>();
    threads = set;
    watched.set(signal, set);
    signal.addEventListener('abort', () => { for (const x of set) x.kill(signal.reason); set.clear(); }, { once: true });
  }
  threads.add(t);
}

/**
 * @example
 * const pool = new IsolationPool({ bundlePath: '/tmp/b/bundle.mjs', sha, memoryMb: 512 });
 * const value = await pool.runTask({ dagId: 'etl', taskId: 'extract', method: 'execute', ctx, host }, signal);
 */
export class IsolationPool {
  private readonly idle: Thread[] = [];
  private readonly all = new Set<Thread>();
  private closed = false;

  constructor(private readonly opts: PoolOptions) {}

  /** Starts `n` threads ahead of need (a worker Lambda's batch size, say). */
  warm(n: number): void {
    while (this.idle.length < n && !this.closed) this.idle.push(this.spawn());
  }

  private spawn(): Thread {
    const t = new Thread(this, this.opts);
    this.all.add(t);
    return t;
  }

  private acquire(): Thread {
    let t = this.idle.pop();
    while (t?.dead) t = this.idle.pop();
    return t ?? this.spawn();
  }

  /** @internal a thread finished its job. */
  release(t: Thread): void {
    if (this.closed || this.idle.length >= (this.opts.maxIdle ?? 64)) return void this.retire(t);
    this.idle.push(t);
  }

  /** @internal a thread died. */
  forget(t: Thread): void {
    this.all.delete(t);
    // Keep one warm thread ready in place of the lost one.
    if (!this.closed && this.idle.length === 0) this.idle.push(this.spawn());
  }

  private retire(t: Thread): void {
    t.dead = true;
    this.all.delete(t);
    void t.worker.terminate();
  }

  /**
   * Takes a thread for the next `run` and waits until it has loaded its bundle, so that a
   * try's execution timeout counts its own code, not a thread's start-up (as Airflow's
   * timeout starts inside the task process).
   */
  async reserve(): Promise<Reserved> {
    if (this.closed) throw new Error('the isolation pool is closed');
    const t = this.acquire();
    if (t.isLoaded) return t;
    hold();
    try {
      await t.loaded;
    } finally {
      unhold();
    }
    return t;
  }

  /**
   * A warm, loaded thread at once, or undefined (then {@link reserve} waits for one): lets
   * a caller skip a promise per try on the hot path.
   */
  reserveNow(): Reserved | undefined {
    if (this.closed) return undefined;
    let t = this.idle.pop();
    while (t?.dead) t = this.idle.pop();
    if (!t) return undefined;
    if (!t.isLoaded) {
      this.idle.push(t);
      return undefined;
    }
    return t;
  }

  /**
   * Runs one try in a thread (`reserved`, or any); an abort of `signal` terminates it and
   * rejects with the signal's reason. `message` is sent as it is, with an `id` added.
   */
  run(message: Record<string, unknown>, host: HostContext | undefined, signal?: AbortSignal, reserved?: Reserved): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the isolation pool is closed'));
    let t = reserved as Thread | undefined;
    if (!t || t.dead) t = this.acquire();
    if (signal?.aborted) {
      this.release(t);
      return Promise.reject(signal.reason);
    }
    const id = ++nextId;
    started();
    const thread = t;
    if (signal) watch(signal, thread);
    message.id = id;
    return new Promise((resolve, reject) => {
      const job: Job = { id, host, resolve, reject, signal, thread };
      thread.job = job;
      try {
        thread.worker.postMessage(message);
      } catch (e) {
        // The try's input cannot be written (a value nested too deeply): fail it and give the thread back.
        thread.job = undefined;
        settled(job);
        this.release(thread);
        reject(new TaskCodeError(`the try's input could not be sent to its thread (${(e as Error).name}: ${(e as Error).message}); conf, params and XCom may nest at most ${MAX_VALUE_DEPTH} levels`));
      }
    });
  }

  /** Threads alive (idle and busy). */
  get size(): number {
    return this.all.size;
  }

  /** Terminates every thread; pending tries fail. */
  async close(): Promise<void> {
    this.closed = true;
    const threads = [...this.all];
    this.idle.length = 0;
    await Promise.all(threads.map(async (t) => { t.end(new Error('the isolation pool was closed')); await t.worker.terminate(); }));
  }
}
