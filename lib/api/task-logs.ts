/**
 * Per-try task logs. Locally, a sink wraps the runtime's log port and keeps every line
 * that names a task try (`ctx.log` lines and the engine's own lines about the try);
 * on AWS the same entries are read back from CloudWatch Logs.
 */
import type { Log } from '../engine/index.js';

/** One log line of a try, as Airflow 3's structured log messages: `timestamp`, `event`, `level` and extra fields. */
export interface LogEntry {
  timestamp: string;
  event: string;
  level: string;
  [field: string]: unknown;
}

export interface TryRef {
  dagId: string;
  runId: string;
  taskId: string;
  tryNumber: number;
  mapIndex?: number;
}

/** Where the API reads a try's log. */
export interface TaskLogReader {
  read(ref: TryRef): Promise<LogEntry[]>;
}

const keyOf = (r: TryRef) => `${r.dagId}\u0000${r.runId}\u0000${r.taskId}\u0000${r.tryNumber}\u0000${r.mapIndex ?? -1}`;

/**
 * Keeps the log lines of each try in memory, at most `maxPerTry` lines per try and
 * `maxTries` tries (oldest try dropped first), so a long `airless dev` stays bounded.
 *
 * @example
 * const logs = new MemoryTaskLogs(() => clock.now());
 * runtime.ports.log = logs.wrap(runtime.ports.log);
 * await logs.read({ dagId: 'etl', runId, taskId: 'load', tryNumber: 1 });
 */
export class MemoryTaskLogs implements TaskLogReader {
  private tries = new Map<string, LogEntry[]>();
  constructor(private now: () => number, private opts: { maxTries?: number; maxPerTry?: number } = {}) {}

  /** A log port that forwards to `inner` and keeps lines carrying dagId, runId, taskId and tryNumber. */
  wrap(inner: Log): Log {
    const keep = (level: string, msg: string, fields?: Record<string, unknown>) => {
      const f = fields ?? {};
      if (typeof f.dagId !== 'string' || typeof f.runId !== 'string' || typeof f.taskId !== 'string' || typeof f.tryNumber !== 'number') return;
      const { dagId, runId, taskId, tryNumber, mapIndex, ...rest } = f;
      this.append({ dagId, runId, taskId, tryNumber, mapIndex: typeof mapIndex === 'number' ? mapIndex : undefined }, {
        timestamp: new Date(this.now()).toISOString(), level, event: msg, ...rest,
      });
    };
    return {
      info: (msg, fields) => { keep('info', msg, fields); inner.info(msg, fields); },
      warn: (msg, fields) => { keep('warning', msg, fields); inner.warn(msg, fields); },
      error: (msg, fields) => { keep('error', msg, fields); inner.error(msg, fields); },
    };
  }

  append(ref: TryRef, entry: LogEntry): void {
    const k = keyOf(ref);
    let lines = this.tries.get(k);
    if (!lines) {
      lines = [];
      this.tries.set(k, lines);
      if (this.tries.size > (this.opts.maxTries ?? 20_000)) this.tries.delete(this.tries.keys().next().value!);
    }
    if (lines.length < (this.opts.maxPerTry ?? 5_000)) lines.push(entry);
  }

  async read(ref: TryRef): Promise<LogEntry[]> {
    return [...(this.tries.get(keyOf(ref)) ?? [])];
  }
}
