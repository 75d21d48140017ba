/**
 * The embedded runtime: the whole of Airless in one process. The engine runs unchanged
 * on in-process ports (or a DynamoDB store): a pump receives from the memory queue and
 * runs up to `concurrency` messages at once, a reconcile pass and a poke cycle run on
 * the runtime's clock, and timers are delivered when due. On a virtual clock
 * (`--time-warp`) time jumps to the next timer whenever nothing is runnable, so retry
 * delays, deferrals, sensor intervals and schedules cost no wall time.
 */
import { maxMapLengthFrom } from '../adapters/map-env.js';
import { MemoryMetrics, MemoryLog, observeStore, type StateEvent } from '../adapters/memory/observe.js';
import { MemoryQueue } from '../adapters/memory/queue.js';
import { MemoryStore } from '../adapters/memory/store.js';
import { MemoryTimer } from '../adapters/memory/timer.js';
import { holdClockDuringCalls, SystemClock, VirtualClock } from '../adapters/clock.js';
import { handleMessage } from '../engine/index.js';
import { MalformedMessageError } from '../engine/index.js';
import type { DagRun } from '../engine/index.js';
import { pokeShard } from '../engine/index.js';
import {
  DEFAULT_CONFIG,
  type BundleSource,
  type Clock,
  type Delivery,
  type EngineConfig,
  type Log,
  type Ports,
  type SensorPoke,
  type Store,
} from '../engine/index.js';
import { reconcile } from '../engine/index.js';
import { loadRunCtx, recoveryDueAt, resendsDueAt } from '../engine/index.js';
import { registerManifest, triggerRun, type TriggerOptions } from '../engine/index.js';
import { isRunTerminal } from '../engine/index.js';
import { threadsStarting, triesInGrace } from '../isolation/pool.js';
import { LocalSecrets } from '../adapters/secrets-local.js';
import type { Notifier, SecretsSource } from '../engine/index.js';
import { AwsNotifier } from '../adapters/callbacks-notify.js';
import { handleEvent, nextJobCheckAt, type AwsEvent, type EventReport, type JobDrivers } from '../engine/index.js';

export interface RuntimeOptions {
  bundles: BundleSource;
  store?: Store;
  /** A VirtualClock for time warp; the system clock by default. */
  clock?: Clock;
  /** Messages handled at once (tasks run concurrently). Default 8. */
  concurrency?: number;
  config?: Partial<EngineConfig>;
  sensors?: Record<string, SensorPoke>;
  log?: Log;
  onEvent?: (e: StateEvent) => void;
  /** Period of the reconcile pass and of the poke cycle, on the runtime's clock. Default 60 s. */
  tickMs?: number;
  /** Create runs from schedules (dev) or not (a single `airless run`). Default true. */
  schedules?: boolean;
  workerId?: string;
  /** Real time in ms for idle detection on a virtual clock (default `performance.now`; tests simulate a slow machine). */
  realNow?: () => number;
  /** Variables and connections; default: AIRLESS_VAR_x and AIRLESS_CONN_x variables, then .airless/ files (secrets-local.ts). */
  secrets?: SecretsSource;
  /** Sends notify.sns / notify.webhook callbacks; default: AwsNotifier (fetch, and SNS with the default credentials). */
  notifier?: Notifier;
  /** The operators' job services (lib/operators: AWS drivers, or mocks); absent: operator tasks fail saying so. */
  jobs?: JobDrivers;
}

export type RunOutcome = 'done' | 'stalled' | 'stopped';

/** Real time in-flight tasks may sit idle before a virtual clock moves under them. */
const IDLE_BEFORE_JUMP_MS = 25;

export class EmbeddedRuntime {
  readonly ports: Ports;
  readonly queue: MemoryQueue;
  readonly timer: MemoryTimer;
  readonly metrics = new MemoryMetrics();
  readonly clock: Clock;
  private inflight = new Set<Promise<void>>();
  /** Messages and events finished so far, and the waiter to tell when the next one does (waitForProgress). */
  private finished = 0;
  private onFinish?: () => void;
  private concurrency: number;
  private tickMs: number;
  private nextTickAt: number;
  private stopped = false;
  private wake?: () => void;
  private schedules: boolean;
  private realNow: () => number;
  /** EventBridge events due for the events path, by time (mock jobs' end events). */
  private events: { at: number; event: AwsEvent }[] = [];

  constructor(opts: RuntimeOptions) {
    this.clock = opts.clock ?? new SystemClock();
    this.queue = new MemoryQueue(this.clock, { maxReceiveCount: 5 });
    this.queue.onSend = () => this.wake?.();
    this.timer = new MemoryTimer(this.clock, this.queue);
    // A store of real I/O holds a virtual clock while its calls are in flight.
    const base = opts.store ? (this.clock instanceof VirtualClock ? holdClockDuringCalls(opts.store, this.clock) : opts.store) : new MemoryStore();
    this.concurrency = opts.concurrency ?? 8;
    this.tickMs = opts.tickMs ?? 60_000;
    this.nextTickAt = this.clock.now();
    this.schedules = opts.schedules ?? true;
    this.realNow = opts.realNow ?? (() => performance.now());
    this.ports = {
      store: opts.onEvent ? observeStore(base, opts.onEvent) : base,
      queue: this.queue,
      timer: this.timer,
      clock: this.clock,
      bundles: opts.bundles,
      metrics: this.metrics,
      log: opts.log ?? new MemoryLog(),
      config: { ...DEFAULT_CONFIG, maxMapLength: maxMapLengthFrom(process.env), ...opts.config },
      sensors: opts.sensors,
      workerId: opts.workerId ?? 'local',
      secrets: opts.secrets ?? new LocalSecrets(),
      notifier: opts.notifier ?? new AwsNotifier(),
      jobs: opts.jobs,
    };
  }

  /** Delivers an EventBridge event to the events path now, as a rule's target would. */
  putEvent(event: unknown): Promise<EventReport> {
    return handleEvent(this.ports, event);
  }

  /** Delivers an EventBridge event at `at` on the runtime's clock (a simulated job's end). */
  scheduleEvent(event: AwsEvent, at: number): void {
    this.events.push({ at, event });
    this.events.sort((a, b) => a.at - b.at);
    this.wake?.();
  }

  get virtual(): boolean {
    return this.clock instanceof VirtualClock;
  }

  async register(version: string) {
    return registerManifest(this.ports, version, await this.ports.bundles.manifest(version));
  }

  trigger(dagId: string, opts?: TriggerOptions): Promise<DagRun> {
    return triggerRun(this.ports, dagId, opts);
  }

  /** Runs until the run is finished. */
  async runToCompletion(dagId: string, runId: string, opts: { maxVirtualMs?: number } = {}): Promise<RunOutcome> {
    return this.runUntil(async () => {
      const run = await this.ports.store.getRun(dagId, runId);
      return run !== undefined && isRunTerminal(run.state);
    }, opts);
  }

  /** Messages being handled right now (tasks running, pokes, ticks). */
  get inflightCount(): number {
    return this.inflight.size;
  }

  /** Waits until every message in hand is done (after `stop()`, for a clean exit). */
  async drain(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  /** Pumps until `done()` holds (checked whenever nothing is runnable), `stop()`, or a stall. */
  async runUntil(done: () => Promise<boolean>, opts: { maxVirtualMs?: number } = {}): Promise<RunOutcome> {
    const horizon = this.clock.now() + (opts.maxVirtualMs ?? 400 * 86_400_000);
    let idleSince = this.realNow();
    let activity = this.activity();
    while (!this.stopped) {
      if (await this.pump()) { idleSince = this.realNow(); continue; }
      if (this.inflight.size > 0) {
        const progressed = await this.waitForProgress();
        // Progress is a finished message, a store call begun or ended since the last look
        // (on a starved CPU one call can take longer than the idle window: the window
        // counts from the end of the last call, not from the last finished message), a
        // thread still starting, or an isolated try in its first second.
        const seen = this.activity();
        if (progressed || seen !== activity || threadsStarting() > 0 || triesInGrace()) idleSince = this.realNow();
        activity = seen;
        // On a virtual clock, tasks that wait on the clock (a hung body under an
        // execution timeout) can only move when time does. Once in-flight work has made
        // no progress for a while of real time (so it is not just doing real I/O) and
        // something sleeps on the clock, move time to the next event of any kind (a
        // timer, a delayed message, a tick, a sleeper), never past one.
        // A thread still loading its bundle is not task code waiting on the clock (lib/isolation).
        if (!progressed && this.clock instanceof VirtualClock && this.clock.nextWakeAt() !== undefined && threadsStarting() === 0 &&
            this.realNow() - idleSince > IDLE_BEFORE_JUMP_MS) {
          idleSince = this.realNow();
          if (this.clock.now() >= this.nextTickAt) {
            this.nextTickAt = this.clock.now() + this.tickMs;
            await this.tick();
          } else {
            const next = this.nextEventAt();
            if (next > horizon) return 'stalled';
            this.clock.advanceTo(next);
          }
        }
        continue;
      }
      if (await done()) return 'done';
      const now = this.clock.now();
      if (now >= this.nextTickAt) {
        this.nextTickAt = now + this.tickMs;
        await this.tick();
        continue;
      }
      const next = this.nextEventAt();
      if (this.clock instanceof VirtualClock) {
        if (next > horizon) return 'stalled';
        this.clock.advanceTo(next);
      } else {
        await this.sleepUntil(next);
      }
    }
    return 'stopped';
  }

  /** One reconcile pass and one poke cycle over every shard. */
  async tick(): Promise<void> {
    const report = await reconcile(this.ports, { schedules: this.schedules });
    for (const [dagId, at] of Object.entries(report.nextTicks)) {
      await this.timer.schedule(`tick-${dagId}-${at}`, at, { kind: 'schedule', dagId, tickAt: at });
    }
    const cycle = Math.floor(this.clock.now() / this.tickMs);
    const shards = this.ports.config.shards;
    const pokes = await Promise.all(Array.from({ length: shards }, (_, s) => pokeShard(this.ports, s, { shards, cycle, cycleMs: this.tickMs })));
    if (this.clock instanceof VirtualClock) {
      // On a virtual clock the next tick can wait for the next thing due (a task's
      // dueAt, a sensor's next poke, a schedule tick) instead of ticking every minute
      // through idle hours. Timers and delayed messages wake the runtime by themselves.
      const [first] = await this.ports.store.listDueTasks(Number.MAX_SAFE_INTEGER, 1);
      const wake = Math.min(first?.dueAt ?? Infinity, ...Object.values(report.nextTicks), ...pokes.map((r) => r.nextPokeAt ?? Infinity),
        await this.nextRecoveryAt(), (await nextJobCheckAt(this.ports)) ?? Infinity);
      this.nextTickAt = Math.max(this.nextTickAt, wake);
    }
  }

  /** Earliest time a queued try would be re-sent or a running try's lease ends. */
  private async nextRecoveryAt(): Promise<number> {
    let at = Infinity;
    for (const run of await this.ports.store.listActiveRuns()) {
      if (run.state !== 'running') continue;
      at = Math.min(at, run.timeoutAt ?? Infinity); // dagrunTimeout, enforced by reconcile
      const tis = await this.ports.store.listTasks(run.dagId, run.runId);
      for (const ti of tis) at = Math.min(at, recoveryDueAt(ti, this.ports.config) ?? Infinity);
      // Messages of tasks not created yet that reconcile would send again (a lost root or follow).
      const rc = await loadRunCtx(this.ports, run.dagId, run.runId).catch(() => undefined);
      if (rc) at = Math.min(at, resendsDueAt(rc, tis, this.ports.config));
    }
    return at;
  }

  /** Store calls begun and ended so far on a virtual clock (see VirtualClock.activity). */
  private activity(): number {
    return this.clock instanceof VirtualClock ? this.clock.activity : 0;
  }

  private nextEventAt(): number {
    const candidates = [this.queue.nextVisibleAt(), this.timer.nextAt(), this.nextTickAt, this.events[0]?.at];
    if (this.clock instanceof VirtualClock) candidates.push(this.clock.nextWakeAt());
    return Math.min(...candidates.filter((x): x is number => x !== undefined));
  }

  private async pump(): Promise<boolean> {
    const delivered = (await this.timer.deliverDue()) + this.deliverEvents();
    const free = this.concurrency - this.inflight.size;
    if (free <= 0) return delivered > 0;
    const deliveries = await this.queue.receive(free, 15 * 60_000);
    for (const d of deliveries) {
      const job: Promise<void> = this.handle(d).finally(() => this.done(job));
      this.inflight.add(job);
    }
    return deliveries.length > 0 || delivered > 0;
  }

  /** Hands the due events to the events path, each as its own in-flight work (a Lambda invocation on AWS). */
  private deliverEvents(): number {
    let n = 0;
    while (this.events.length > 0 && this.events[0].at <= this.clock.now()) {
      const { event } = this.events.shift()!;
      const job = this.putEvent(event).then(
        () => undefined,
        (err) => this.ports.log.error('event delivery failed', { error: String((err as Error)?.stack ?? err) }),
      ).finally(() => this.done(job));
      this.inflight.add(job);
      n++;
    }
    return n;
  }

  private async handle(d: Delivery): Promise<void> {
    try {
      await handleMessage(this.ports, d.message);
      await this.queue.ack(d);
    } catch (err) {
      if (err instanceof MalformedMessageError) {
        this.ports.log.error('malformed message', { error: err.message });
        await this.queue.release(d, 0);
        return;
      }
      this.ports.log.error('message failed; it will be retried', { error: String((err as Error)?.stack ?? err) });
      await this.queue.release(d, 1_000);
    }
  }

  private done(job: Promise<void>): void {
    this.inflight.delete(job);
    this.finished++;
    this.onFinish?.();
  }

  /**
   * Waits for a message in hand to finish (true), or for the next turn of the event loop
   * (virtual clock) or a wake-up (real clock). One waiter told by whichever job finishes,
   * not a race over every job in hand: each race left a reaction on each pending job, so a
   * full pump paid for every job in hand at each finish.
   */
  private async waitForProgress(): Promise<boolean> {
    const before = this.finished;
    const any = new Promise<void>((r) => { this.onFinish = r; });
    if (this.virtual) {
      await Promise.race([any, new Promise<void>((r) => setImmediate(r))]);
    } else {
      // Real time: wake for a finished task, a new message, or a due timer.
      let t: NodeJS.Timeout | undefined;
      await Promise.race([any, new Promise<void>((r) => { t = setTimeout(r, 50); this.wake = r; })]);
      clearTimeout(t);
      this.wake = undefined;
    }
    this.onFinish = undefined;
    return this.finished !== before;
  }

  private async sleepUntil(at: number): Promise<void> {
    const ms = Math.max(0, Math.min(at - this.clock.now(), 1_000));
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wake = () => { clearTimeout(t); resolve(); };
    });
    this.wake = undefined;
  }
}
