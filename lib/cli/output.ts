/**
 * What the CLI prints: one line per state change for a person, a summary table at the
 * end, and errors in one line with an exit code (0 ok, 1 run failed, 2 invalid input).
 */
import { AirlessError, InvalidDagError, InvalidInputError, NotFoundError, BundleError, MalformedMessageError, isInstanceId } from '../engine/index.js';
import type { StateEvent } from '../adapters/memory/observe.js';
import type { DagRun, DagSpec, TaskInstance } from '../engine/index.js';
import { groupInstances, instanceRows, mappedNote } from './mapped.js';
import { displayText, displayValue } from '../adapters/xcom-display.js';

const tty = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number) => (s: string) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
const COLORS: Record<string, (s: string) => string> = {
  success: paint(32), failed: paint(31), upstream_failed: paint(33), skipped: paint(35), up_for_retry: paint(33),
  running: paint(36), queued: paint(2), deferred: paint(34), sensing: paint(34), scheduled: paint(2),
};
export const color = (state: string) => (COLORS[state] ?? ((s: string) => s))(state);

/** `2026-01-01 02:00:00.000Z`: the clock's time (virtual under --time-warp), always with its zone. */
export function timestamp(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').slice(0, 23)}Z`;
}

/** Formats a state change as one line, with the clock's time (virtual under --time-warp). */
export function eventLine(e: StateEvent, now: number): string {
  const t = timestamp(now);
  if (e.type === 'run') return `${t}  run  ${e.run.dagId}/${e.run.runId}  ${e.from ? `${e.from} -> ` : ''}${color(e.run.state)}`;
  const ti = e.ti;
  const extra = ti.state === 'failed' || ti.state === 'up_for_retry' ? `  ${ti.error ?? ''}` : '';
  return `${t}  ${ti.dagId}.${ti.taskId}  ${e.from ? `${e.from} -> ` : ''}${color(ti.state)}  try ${ti.tryNumber}${extra}`;
}

/** `850ms`, `12.3s`, `4m05s`, `2h10m`, `3d4h`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86_400)}d${Math.floor((s % 86_400) / 3600)}h`;
}

/** A plain text table. */
export function table(rows: string[][], header: string[]): string {
  const all = [header, ...rows];
  const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
  const widths = header.map((_, i) => Math.max(...all.map((r) => strip(r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => c + ' '.repeat(widths[i] - strip(c).length)).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** One finished run as the CLI reports it. */
export interface RunResult {
  run: DagRun;
  tasks: TaskInstance[];
  spec: DagSpec;
  outcome: string;
  /** Return values by task id. */
  xcoms: Record<string, unknown>;
}

/** Longest XCom text shown; longer values are cut and marked. */
export const XCOM_TEXT_MAX = 1024;

/** The `tasks` array of `airless run --json` (documented in docs/cli.md). */
export function taskRows(r: RunResult) {
  const byId = new Map(r.tasks.map((t) => [t.taskId, t]));
  const mapped = groupInstances(r.tasks);
  return r.spec.tasks.flatMap((t) => {
    const ti = byId.get(t.taskId);
    const row: Record<string, unknown> = {
      taskId: t.taskId, state: ti?.state ?? 'none', tryNumber: ti?.tryNumber ?? 0,
      durationMs: ti?.startedAt !== undefined && ti.endedAt !== undefined ? ti.endedAt - ti.startedAt : null,
    };
    if (ti?.error) row.error = ti.error;
    if (t.taskId in r.xcoms) {
      // displayValue/displayText: any value the codec keeps (BigInt, Map, cycles) becomes JSON data.
      const x = displayText(r.xcoms[t.taskId], XCOM_TEXT_MAX);
      if (x.truncated) row.xcomTruncated = x.text;
      else row.xcom = displayValue(r.xcoms[t.taskId]);
    }
    return [row, ...instanceRows(mapped.get(t.taskId))];
  });
}

/** The task table of one run: state, tries, duration (virtual under --time-warp), XCom, error. */
export function runTaskTable(r: RunResult, opts: { virtual: boolean }): string {
  const byId = new Map(r.tasks.map((t) => [t.taskId, t]));
  const mapped = groupInstances(r.tasks);
  const rows = r.spec.tasks.map(({ taskId: id }) => {
    const t = byId.get(id);
    const dur = t?.startedAt !== undefined && t.endedAt !== undefined ? formatDuration(t.endedAt - t.startedAt) : '';
    const xcom = id in r.xcoms ? displayText(r.xcoms[id], 40).text : '';
    return [id, color(t?.state ?? 'none') + mappedNote(mapped.get(id)), String(t?.tryNumber ?? 0), dur, xcom, (t?.error ?? '').slice(0, 80)];
  });
  return table(rows, ['task', 'state', 'try', opts.virtual ? 'duration (virtual)' : 'duration', 'xcom', 'error']);
}

/** Task states of a run in `order` (the stack commands' table). */
export function taskTable(tasks: TaskInstance[], order: string[]): string {
  const byId = new Map(tasks.map((t) => [t.taskId, t]));
  const mapped = groupInstances(tasks);
  const rows = order.map((id) => {
    const t = byId.get(id);
    const dur = t?.startedAt !== undefined && t.endedAt !== undefined ? formatDuration(t.endedAt - t.startedAt) : '';
    return [id, color(t?.state ?? 'none') + mappedNote(mapped.get(id)), String(t?.tryNumber ?? 0), dur, (t?.error ?? '').slice(0, 80)];
  });
  return table(rows, ['task', 'state', 'try', 'duration', 'error']);
}

/** One line per run: for `--all` and `--runs N`. */
export function runTable(results: readonly RunResult[]): string {
  const rows = results.map((r) => {
    // Counted per task, as the `tasks` column: a mapped task's instances are summed up in its own state.
    const tasks = r.tasks.filter((t) => !isInstanceId(t.taskId));
    const n = (s: string) => tasks.filter((t) => t.state === s).length;
    const dur = r.run.startedAt !== undefined && r.run.endedAt !== undefined ? formatDuration(r.run.endedAt - r.run.startedAt) : '';
    const failed = tasks.filter((t) => t.state === 'failed').map((t) => t.taskId).join(', ');
    return [r.run.dagId, r.run.runId, color(r.run.state), String(r.spec.tasks.length), String(n('success')), String(n('failed') + n('upstream_failed')), dur, failed];
  });
  return table(rows, ['dag', 'run', 'state', 'tasks', 'ok', 'failed', 'duration', 'failed tasks']);
}

export class UsageError extends AirlessError {}

/** Exit code for an error: 2 for invalid input of any kind, 1 otherwise. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof InvalidDagError || err instanceof InvalidInputError || err instanceof UsageError ||
      err instanceof NotFoundError || err instanceof BundleError || err instanceof MalformedMessageError) return 2;
  return 1;
}

/** Prints an error in one line (the cause too), never a stack trace unless AIRLESS_DEBUG is set. */
export function printError(err: unknown, write: (line: string) => void = (l) => void process.stderr.write(`${l}\n`)): void {
  const e = err as Error;
  const text = e?.message ?? String(err);
  let msg = text.startsWith('airless') ? text : `airless: ${text}`;
  const cause = (e as { cause?: Error })?.cause;
  if (cause?.message && !msg.includes(cause.message)) msg += ` (${cause.message.split('\n')[0]})`;
  write(msg);
  if (process.env.AIRLESS_DEBUG) write(e?.stack ?? '');
}
