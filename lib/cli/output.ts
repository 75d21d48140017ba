/**
 * What the CLI prints: one line per state change for a person, a summary table at the
 * end, and errors in one line with an exit code (0 ok, 1 run failed, 2 invalid input).
 */
import { AirlessError, InvalidDagError, InvalidInputError, NotFoundError, BundleError, MalformedMessageError } from '../engine/errors.js';
import type { StateEvent } from '../adapters/memory/observe.js';
import type { TaskInstance } from '../engine/model.js';

const tty = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number) => (s: string) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
const COLORS: Record<string, (s: string) => string> = {
  success: paint(32), failed: paint(31), upstream_failed: paint(33), skipped: paint(35), up_for_retry: paint(33),
  running: paint(36), queued: paint(2), deferred: paint(34), sensing: paint(34), scheduled: paint(2),
};
export const color = (state: string) => (COLORS[state] ?? ((s: string) => s))(state);

/** Formats a state change as one line, with the clock's time (virtual under --time-warp). */
export function eventLine(e: StateEvent, now: number): string {
  const t = new Date(now).toISOString().replace('T', ' ').slice(0, 23);
  if (e.type === 'run') return `${t}  run  ${e.run.dagId}/${e.run.runId}  ${e.from ? `${e.from} -> ` : ''}${color(e.run.state)}`;
  const ti = e.ti;
  const extra = ti.state === 'failed' || ti.state === 'up_for_retry' ? `  ${ti.error ?? ''}` : '';
  return `${t}  ${ti.dagId}.${ti.taskId}  ${e.from ? `${e.from} -> ` : ''}${color(ti.state)}  try ${ti.tryNumber}${extra}`;
}

/** A plain text table. */
export function table(rows: string[][], header: string[]): string {
  const all = [header, ...rows];
  const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
  const widths = header.map((_, i) => Math.max(...all.map((r) => strip(r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => c + ' '.repeat(widths[i] - strip(c).length)).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function taskTable(tasks: TaskInstance[], order: string[]): string {
  const byId = new Map(tasks.map((t) => [t.taskId, t]));
  const rows = order.map((id) => {
    const t = byId.get(id);
    const dur = t?.startedAt !== undefined && t.endedAt !== undefined ? `${((t.endedAt - t.startedAt) / 1000).toFixed(3)}s` : '';
    return [id, color(t?.state ?? 'none'), String(t?.tryNumber ?? 0), dur, (t?.error ?? '').slice(0, 80)];
  });
  return table(rows, ['task', 'state', 'try', 'duration', 'error']);
}

export class UsageError extends AirlessError {}

/** Exit code for an error: 2 for invalid input of any kind, 1 otherwise. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof InvalidDagError || err instanceof InvalidInputError || err instanceof UsageError ||
      err instanceof NotFoundError || err instanceof BundleError || err instanceof MalformedMessageError) return 2;
  return 1;
}

/** Prints an error in one line (the cause too), never a stack trace unless AIRLESS_DEBUG is set. */
export function printError(err: unknown): void {
  const e = err as Error;
  let msg = `airless: ${e?.message ?? String(err)}`;
  const cause = (e as { cause?: Error })?.cause;
  if (cause?.message && !msg.includes(cause.message)) msg += ` (${cause.message.split('\n')[0]})`;
  process.stderr.write(`${msg}\n`);
  if (process.env.AIRLESS_DEBUG) process.stderr.write(`${e?.stack ?? ''}\n`);
}

/** Parses a JSON option, or fails as invalid input naming the option. */
export function parseJsonOption(name: string, text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a JSON object');
    return v;
  } catch (cause) {
    throw new InvalidInputError(`--${name} must be a JSON object, got ${text}`, { cause });
  }
}
