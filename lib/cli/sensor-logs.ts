/**
 * The log of a batched sensor, for `airless logs`. Its own lines (registration, outcome)
 * name the task; the poker's lines about its target name only the target's hashcode, since
 * one poke serves every task waiting on it (AIP-17). A try's target lines are those with its
 * hashcode from its registration line (`SENSOR_WAITS_LINE`, which names the hashcode) to its
 * next line (the outcome), or to the end while it still waits.
 */
import { FilterLogEventsCommand, type CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { LogLine } from '../adapters/memory/observe.js';
import { SENSOR_WAITS_LINE } from '../engine/index.js';
import { aws } from './aws-stack.js';

/** A line of the task itself, at a position (an index or a time) in its log. */
export interface TaskLine {
  at: number;
  tryNumber: number;
  msg: string;
  hashcode?: unknown;
}

/** Where a try of a batched sensor waited on a poke target. */
export interface TargetWindow {
  hashcode: string;
  tryNumber: number;
  from: number;
  /** Its next line; absent while it still waits. */
  to?: number;
}

/**
 * The task's latest try as the store has it. Its registration line may be in no log: a
 * run's root sensor is registered by `airless trigger` itself, whose lines go to the
 * terminal, not to CloudWatch. Then its window runs from its start to its end, and its
 * hashcode is the trigger row's (while it waits) or its outcome line's.
 */
export interface CurrentTry {
  tryNumber: number;
  startedAt?: number;
  endedAt?: number;
  /** The poke target's hashcode from its trigger row, while it waits. */
  hashcode?: string;
}

/**
 * The poke-target windows of a task's lines (sorted by `at`).
 *
 * @example
 * targetWindows([{ at: 3, tryNumber: 1, msg: SENSOR_WAITS_LINE, hashcode: 'h' }, { at: 9, tryNumber: 1, msg: 'sensor condition met' }]);
 * // [{ hashcode: 'h', tryNumber: 1, from: 3, to: 9 }]
 */
export function targetWindows(lines: readonly TaskLine[], current?: CurrentTry): TargetWindow[] {
  const out: TargetWindow[] = [];
  lines.forEach((l, i) => {
    if (l.msg !== SENSOR_WAITS_LINE || typeof l.hashcode !== 'string') return;
    const next = lines[i + 1];
    out.push({ hashcode: l.hashcode, tryNumber: l.tryNumber, from: l.at, ...(next ? { to: next.at } : {}) });
  });
  if (current && current.startedAt !== undefined && !out.some((w) => w.tryNumber === current.tryNumber)) {
    const named = lines.find((l) => l.tryNumber === current.tryNumber && typeof l.hashcode === 'string')?.hashcode as string | undefined;
    const hashcode = current.hashcode ?? named;
    if (hashcode) out.push({ hashcode, tryNumber: current.tryNumber, from: current.startedAt, ...(current.endedAt !== undefined ? { to: current.endedAt } : {}) });
  }
  return out;
}

/** The try whose window holds a target line with `hashcode` at `at`. */
export function tryOfTargetLine(windows: readonly TargetWindow[], hashcode: unknown, at: number): number | undefined {
  return windows.find((w) => w.hashcode === hashcode && at >= w.from && (w.to === undefined || at <= w.to))?.tryNumber;
}

/** One line of `airless logs` in a dev: the try it belongs to, and whether the poker wrote it for the target. */
export interface DevLogLine {
  tryNumber: number;
  line: LogLine;
  target: boolean;
}

/**
 * A task's lines in a dev's memory log, with its poke target's lines in place.
 *
 * @example
 * for (const { tryNumber, line } of devTaskLog(log.lines, { dagId, runId, taskId })) print(tryNumber, line.msg);
 */
export function devTaskLog(lines: readonly LogLine[], q: { dagId: string; runId: string; taskId: string; tryNumber?: number }): DevLogLine[] {
  const mine = (l: LogLine) => l.fields?.dagId === q.dagId && l.fields?.runId === q.runId && l.fields?.taskId === q.taskId;
  const task: TaskLine[] = [];
  lines.forEach((l, i) => { if (mine(l)) task.push({ at: i, tryNumber: Number(l.fields?.tryNumber), msg: l.msg, hashcode: l.fields?.hashcode }); });
  const windows = targetWindows(task);
  const out: DevLogLine[] = [];
  lines.forEach((line, i) => {
    const target = !mine(line) && line.fields?.taskId === undefined && windows.length > 0;
    const tryNumber = mine(line) ? Number(line.fields?.tryNumber) : target ? tryOfTargetLine(windows, line.fields?.hashcode, i) : undefined;
    if (tryNumber === undefined || (q.tryNumber !== undefined && tryNumber !== q.tryNumber)) return;
    out.push({ tryNumber, line, target: !mine(line) });
  });
  return out;
}

/**
 * The poker's lines about a sensor's targets (from `taskLines`, the task's own CloudWatch
 * lines with a `timestamp`), each with the `tryNumber` of the try it served.
 *
 * @example
 * const target = await fetchTargetLines(logs, pokerLogGroup, taskLines, run.endedAt, { tryNumber: 1, startedAt, endedAt });
 */
export async function fetchTargetLines(
  logs: CloudWatchLogsClient, logGroupName: string, taskLines: readonly Record<string, unknown>[], endTime?: number, current?: CurrentTry,
): Promise<Record<string, unknown>[]> {
  const windows = targetWindows(taskLines.map((l) => ({
    at: Date.parse(String(l.timestamp)), tryNumber: Number(l.tryNumber), msg: String(l.message ?? ''), hashcode: l.hashcode,
  })), current);
  const out: Record<string, unknown>[] = [];
  for (const w of windows) {
    let token: string | undefined;
    do {
      const page = await aws(`CloudWatch Logs FilterLogEvents ${logGroupName}`, () => logs.send(new FilterLogEventsCommand({
        logGroupName, filterPattern: `{ $.hashcode = ${JSON.stringify(w.hashcode)} }`, startTime: w.from, endTime: w.to ?? endTime, nextToken: token,
      })));
      for (const ev of page.events ?? []) {
        const line = parseLogLine(ev.message ?? '');
        // The task's own lines (the registration carries the hashcode too) are already shown.
        if (!line || line.hashcode !== w.hashcode || line.taskId !== undefined) continue;
        out.push({ ...line, tryNumber: w.tryNumber, timestamp: line.timestamp ?? (ev.timestamp ? new Date(ev.timestamp).toISOString() : '') });
      }
      token = page.nextToken;
    } while (token);
  }
  return out;
}

/** A structured log line, as Powertools writes it (possibly after a Lambda text prefix). */
export function parseLogLine(message: string): Record<string, unknown> | undefined {
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  try {
    const v = JSON.parse(message.slice(start));
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
