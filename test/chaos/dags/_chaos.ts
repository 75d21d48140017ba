/**
 * What the chaos DAGs share: the append-only evidence log, the deterministic failure
 * rule and a small amount of work per task. Runs inside the chaos child processes,
 * which set CHAOS_LOG and CHAOS_PROCESS_ID (bundle code may read the environment; the
 * engine may not).
 */
import { appendFileSync } from 'node:fs';
import type { TaskContext } from 'airless';

/** Set by the child before each poke pass, so a poke can record its cycle. */
export interface ChaosGlobal {
  cycle?: number;
}

export function chaosGlobal(): ChaosGlobal {
  const g = globalThis as { __airlessChaos?: ChaosGlobal };
  g.__airlessChaos ??= {};
  return g.__airlessChaos;
}

/** One JSON line, appended with O_APPEND (atomic for lines this small). */
export function logLine(entry: Record<string, unknown>): void {
  const file = process.env.CHAOS_LOG;
  if (!file) return;
  appendFileSync(file, `${JSON.stringify({ ...entry, pid: process.env.CHAOS_PROCESS_ID ?? String(process.pid) })}\n`, { flag: 'a' });
}

/** FNV-1a: a stable hash so failures and work times depend only on (run, task, try). */
export function h(text: string): number {
  let x = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    x ^= text.charCodeAt(i);
    x = Math.imul(x, 0x01000193);
  }
  return x >>> 0;
}

export interface WorkOptions {
  /** Fail the first try of about one task in `failFirstTryOneIn` (0 = never). */
  failFirstTryOneIn?: number;
  /** Fail every try when this holds for the run. */
  alwaysFail?: (runId: string) => boolean;
  method?: string;
}

/**
 * A task body: records the try, works 20-220 ms (a window for kills to land in), then
 * fails or succeeds by a rule on (runId, taskId, try).
 */
export async function work(ctx: TaskContext, opts: WorkOptions = {}): Promise<string> {
  const key = `${ctx.dagId}/${ctx.runId}`;
  logLine({ kind: 'task', run: key, task: ctx.taskId, try: ctx.tryNumber, method: opts.method ?? 'execute' });
  await new Promise((r) => setTimeout(r, 20 + (h(`${key}#${ctx.taskId}#${ctx.tryNumber}`) % 200)));
  if (opts.alwaysFail?.(ctx.runId)) throw new Error(`${ctx.taskId} fails on purpose for this run`);
  const n = opts.failFirstTryOneIn ?? 0;
  if (n > 0 && ctx.tryNumber === 1 && h(`${key}#${ctx.taskId}`) % n === 0) {
    throw new Error(`${ctx.taskId} fails its first try on purpose`);
  }
  return `${ctx.taskId}@${ctx.tryNumber}`;
}
