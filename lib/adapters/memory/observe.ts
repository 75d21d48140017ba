/**
 * Metrics and logs in process: counters for tests and benchmarks, a log that prints
 * or collects, and a store decorator that reports every task and run state change
 * (the CLI's live progress lines).
 */
import type { DagRun, TaskInstance } from '../../engine/index.js';
import type { Log, Metrics, Store } from '../../engine/index.js';

export class MemoryMetrics implements Metrics {
  readonly counts = new Map<string, number>();
  readonly timings = new Map<string, number[]>();
  count(name: string, value = 1): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + value);
  }
  timing(name: string, ms: number): void {
    const a = this.timings.get(name);
    if (a) a.push(ms);
    else this.timings.set(name, [ms]);
  }
  get(name: string): number {
    return this.counts.get(name) ?? 0;
  }
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  msg: string;
  fields?: Record<string, unknown>;
}

/** Collects log lines; optionally forwards them to a sink (the terminal). */
export class MemoryLog implements Log {
  readonly lines: LogLine[] = [];
  constructor(private sink?: (l: LogLine) => void, private keep = 10_000) {}
  private add(level: LogLine['level'], msg: string, fields?: Record<string, unknown>) {
    const l = { level, msg, fields };
    this.lines.push(l);
    // Keeps the last `keep` lines (a long dev keeps logging); drops a tenth at once, so the
    // copy is paid once per keep/10 lines.
    if (this.lines.length > this.keep) this.lines.splice(0, this.lines.length - this.keep + Math.floor(this.keep / 10));
    this.sink?.(l);
  }
  info(msg: string, fields?: Record<string, unknown>) { this.add('info', msg, fields); }
  warn(msg: string, fields?: Record<string, unknown>) { this.add('warn', msg, fields); }
  error(msg: string, fields?: Record<string, unknown>) { this.add('error', msg, fields); }
}

export type StateEvent =
  | { type: 'task'; ti: TaskInstance; from?: TaskInstance['state'] }
  | { type: 'run'; run: DagRun; from?: DagRun['state'] };

/** Wraps a store so that every successful state change is reported to `onEvent`. */
export function observeStore(store: Store, onEvent: (e: StateEvent) => void): Store {
  const wrapped = {} as Store;
  wrapped.updateTask = async (key, expect, patch, slot, limits) => {
    const r = await store.updateTask(key, expect, patch, slot, limits);
    if (r.ok && patch.state) onEvent({ type: 'task', ti: r.item, from: Array.isArray(expect.state) ? undefined : (expect.state as TaskInstance['state']) });
    return r;
  };
  wrapped.clearTask = async (key, expect, patch, forget) => {
    const r = await store.clearTask(key, expect, patch, forget);
    if (r.ok) onEvent({ type: 'task', ti: r.item, from: Array.isArray(expect.state) ? undefined : (expect.state as TaskInstance['state']) });
    return r;
  };
  // Tasks created already decided (queued, skipped) are state changes too.
  wrapped.putTask = async (ti) => {
    const r = await store.putTask(ti);
    if (r.ok && r.item.state !== 'scheduled') onEvent({ type: 'task', ti: r.item });
    return r;
  };
  wrapped.updateRun = async (dagId, runId, expect, patch) => {
    const r = await store.updateRun(dagId, runId, expect, patch);
    if (r.ok && patch.state) onEvent({ type: 'run', run: r.item, from: Array.isArray(expect.state) ? undefined : (expect.state as DagRun['state']) });
    return r;
  };
  wrapped.createRun = async (run) => {
    const r = await store.createRun(run);
    if (r.ok) onEvent({ type: 'run', run: r.item });
    return r;
  };
  // A backfill's step creates or reopens a run in the same write (flow/backfill.ts).
  wrapped.stepBackfill = async (id, step, run) => {
    const r = await store.stepBackfill(id, step, run);
    const key = run && ('put' in run ? run.put : run.reopen);
    const after = r.ok && key ? await store.getRun(key.dagId, key.runId) : undefined;
    if (after) onEvent({ type: 'run', run: after, from: run && 'reopen' in run ? run.reopen.expectState : undefined });
    return r;
  };
  // Every other method goes to the store itself, bound, so its own fields stay its own.
  return new Proxy(wrapped, {
    get(target, prop) {
      if (prop in target) return (target as any)[prop];
      const v = (store as any)[prop];
      return typeof v === 'function' ? v.bind(store) : v;
    },
  });
}
