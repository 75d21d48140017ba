/**
 * Simulated Lambda functions: each container is a worker thread (container-bootstrap.mjs)
 * with its own process.env (the template's environment, the gateway endpoint and the
 * function's fake credentials), loaded once and reused; the timeout terminates the
 * thread and the container is replaced; reserved concurrency caps containers in use.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import type { RehearsalClock } from './clock.js';

export interface FunctionSpec {
  logicalId: string;
  name: string;
  arn: string;
  roleArn: string;
  codeDir: string;
  handler: string;
  timeoutMs: number;
  memoryMb: number;
  env: Record<string, string>;
  logGroupName: string;
  /** ReservedConcurrentExecutions; undefined = no cap. */
  reservedConcurrency?: number;
  /** EventInvokeConfig MaximumRetryAttempts for async invokes (AWS default 2). */
  asyncRetries: number;
}

export interface InvokeResult {
  ok: boolean;
  result?: unknown;
  error?: { errorType: string; errorMessage: string };
  durationMs: number;
}

interface Container {
  worker: Worker;
  ready: Promise<void>;
  initError?: { errorType: string; errorMessage: string };
  busy?: { id: number; resolve: (r: InvokeResult) => void; timer: NodeJS.Timeout; started: number };
}

/** One function: its containers and invocations. */
export class RehearsalFunction {
  readonly spec: FunctionSpec;
  private readonly idle: Container[] = [];
  private readonly busy = new Set<Container>();
  private readonly waiting: (() => void)[] = [];
  private nextId = 0;
  invocations = 0;
  containersStarted = 0;

  constructor(spec: FunctionSpec, private readonly o: { clock: RehearsalClock; tmpRoot: string; onLogLine: (fn: FunctionSpec, line: string) => void; maxContainers?: number }) {
    this.spec = spec;
  }

  /** Invocations running now. */
  get inFlight(): number {
    return this.busy.size + this.waiting.length;
  }

  /**
   * Runs one invocation (RequestResponse) and resolves with its outcome; never rejects.
   * @example
   * const r = await fn.invoke({ shard: 0 });
   */
  async invoke(event: unknown): Promise<InvokeResult> {
    // Reserved concurrency, and the rehearsal's own cap on containers per function (each
    // container loads the whole bundle and SDK; this machine is not a Lambda fleet).
    const cap = Math.min(this.spec.reservedConcurrency ?? Infinity, this.o.maxContainers ?? Infinity);
    while (this.busy.size >= cap) await new Promise<void>((resolve) => this.waiting.push(resolve));
    const c = this.idle.pop() ?? this.start();
    this.busy.add(c);
    this.invocations++;
    try {
      await c.ready;
      if (c.initError) {
        this.discard(c);
        return { ok: false, error: c.initError, durationMs: 0 };
      }
      return await this.run(c, event);
    } finally {
      this.busy.delete(c);
      this.waiting.shift()?.();
    }
  }

  /** Times out every invocation in flight now, as if its timeout had passed (the faults scenario). */
  expireInFlight(): number {
    let n = 0;
    for (const c of this.busy) {
      if (c.busy) {
        clearTimeout(c.busy.timer);
        this.timeout(c);
        n++;
      }
    }
    return n;
  }

  async stop(): Promise<void> {
    const all = [...this.idle, ...this.busy];
    this.idle.length = 0;
    await Promise.all(all.map((c) => c.worker.terminate().catch(() => 0)));
  }

  private run(c: Container, event: unknown): Promise<InvokeResult> {
    const id = this.nextId++;
    const started = this.o.clock.now();
    return new Promise<InvokeResult>((resolve) => {
      const timer = setTimeout(() => this.timeout(c), this.spec.timeoutMs);
      c.busy = { id, resolve, timer, started };
      c.worker.postMessage({ id, event, requestId: randomUUID(), deadline: started + this.spec.timeoutMs });
    }).then((r) => {
      if (!c.initError && r.error?.errorType !== 'Sandbox.Timedout') this.idle.push(c);
      else this.discard(c);
      return r;
    });
  }

  private timeout(c: Container): void {
    const b = c.busy;
    if (!b) return;
    c.busy = undefined;
    this.discard(c);
    this.o.onLogLine(this.spec, `Task timed out after ${(this.spec.timeoutMs / 1000).toFixed(2)} seconds`);
    b.resolve({ ok: false, error: { errorType: 'Sandbox.Timedout', errorMessage: `Task timed out after ${(this.spec.timeoutMs / 1000).toFixed(2)} seconds` }, durationMs: this.o.clock.now() - b.started });
  }

  private discard(c: Container): void {
    void c.worker.terminate().catch(() => 0);
  }

  private start(): Container {
    const n = this.containersStarted++;
    const tmp = join(this.o.tmpRoot, `${this.spec.logicalId}-${n}`);
    mkdirSync(tmp, { recursive: true });
    const worker = new Worker(new URL('./container-bootstrap.mjs', import.meta.url), {
      // The handlers cache bundles under an absolute /tmp path (lib/adapters/aws/lambda.ts),
      // which on this machine every container would share: point it into the container's own /tmp.
      env: { ...this.spec.env, TMPDIR: tmp, AIRLESS_BUNDLE_CACHE: join(tmp, 'airless-bundles') },
      stdout: true,
      stderr: true,
      workerData: {
        clockBuffer: this.o.clock.buffer,
        codeDir: this.spec.codeDir,
        handler: this.spec.handler,
        functionName: this.spec.name,
        functionArn: this.spec.arn,
        memoryMb: this.spec.memoryMb,
        logGroupName: this.spec.logGroupName,
        logStreamName: `rehearsal/[$LATEST]${n}`,
      },
    });
    for (const stream of [worker.stdout, worker.stderr]) {
      createInterface({ input: stream }).on('line', (line) => this.o.onLogLine(this.spec, line));
    }
    const c: Container = { worker, ready: Promise.resolve() };
    c.ready = new Promise<void>((resolve) => {
      worker.on('message', (m: { type: string; id?: number; ok?: boolean; result?: unknown; error?: InvokeResult['error'] }) => {
        if (m.type === 'ready') resolve();
        else if (m.type === 'initError') c.initError = m.error;
        else if (m.type === 'result' && c.busy && c.busy.id === m.id) {
          const b = c.busy;
          c.busy = undefined;
          clearTimeout(b.timer);
          b.resolve({ ok: !!m.ok, result: m.result, error: m.error, durationMs: this.o.clock.now() - b.started });
        }
      });
      worker.on('error', (e) => {
        c.initError = { errorType: 'Runtime.ExitError', errorMessage: String(e?.message ?? e) };
        resolve();
        const b = c.busy;
        if (b) {
          c.busy = undefined;
          clearTimeout(b.timer);
          b.resolve({ ok: false, error: c.initError, durationMs: 0 });
        }
      });
    });
    return c;
  }
}
