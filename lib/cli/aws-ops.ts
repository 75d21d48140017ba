/**
 * CLI operations that go through the engine (trigger, signal, clear, pause) or read its
 * state (runs, tasks, logs): typed on the engine's `Ports`, so a deployed stack's ports
 * and a dev's run them alike; what only a stack has (its schedules, CloudWatch Logs)
 * comes in as its own argument.
 */
import { FilterLogEventsCommand, type CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { GetScheduleCommand, ResourceNotFoundException, UpdateScheduleCommand, type SchedulerClient } from '@aws-sdk/client-scheduler';
import { isAwsError } from '../adapters/aws/aws-errors.js';
import { scheduleName } from '../adapters/aws/schedule-names.js';
import { ScheduleSync } from '../adapters/aws/schedule-sync.js';
import { InvalidInputError, NotFoundError } from '../engine/index.js';
import type { DagRecord, Ports } from '../engine/index.js';
import { clearTasks, setPaused, triggerRun } from '../engine/index.js';
import { sendSignal } from '../engine/index.js';
import { baseTaskId, isInstanceId } from '../engine/index.js';
import { aws } from './aws-stack.js';
import { color, table, taskTable } from './output.js';
import type { ScheduleSwitch } from './target.js';

type Out = (line: string) => void;
const iso = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19));

/**
 * @example
 * await cmdTrigger(ports, 'etl_daily', { full: true }, console.log);
 */
export async function cmdTrigger(p: Ports, dagId: string, conf: Record<string, unknown> | undefined, out: Out, logicalDate?: number, runId?: string): Promise<number> {
  const run = await triggerRun(p, dagId, { conf: conf ?? {}, ...(logicalDate === undefined ? {} : { logicalDate }), ...(runId === undefined ? {} : { runId }) });
  out(`run ${run.runId} of ${dagId}: ${color(run.state)}`);
  return 0;
}

/** Recent runs of a DAG, newest first. */
export async function cmdRuns(p: Ports, dagId: string, out: Out, limit = 25): Promise<number> {
  await requireDag(p, dagId);
  const runs = await p.store.listRuns(dagId, { limit });
  if (runs.length === 0) {
    out(`no runs of ${dagId} yet`);
    return 0;
  }
  const dur = (a?: number, b?: number) => (a !== undefined && b !== undefined ? `${((b - a) / 1000).toFixed(1)}s` : '');
  out(table(
    runs.map((r) => [r.runId, color(r.state), r.runType, iso(r.logicalDate), iso(r.startedAt), dur(r.startedAt, r.endedAt)]),
    ['run', 'state', 'type', 'logical date', 'started', 'duration'],
  ));
  for (const r of runs) if (r.error) out(`${r.runId}: ${r.error}`);
  return 0;
}

/** Task states and tries of one run, in the DAG's task order. */
export async function cmdTasks(p: Ports, dagId: string, runId: string, out: Out): Promise<number> {
  const dag = await requireDag(p, dagId);
  const run = await p.store.getRun(dagId, runId);
  if (!run) throw new NotFoundError(`unknown run ${dagId}/${runId}; list runs with \`airless runs ${dagId}\``);
  out(`run ${runId}: ${color(run.state)}${run.error ? ` (${run.error})` : ''}`);
  out(taskTable(await p.store.listTasks(dagId, runId), dag.spec.tasks.map((t) => t.taskId)));
  return 0;
}

/**
 * @example
 * await cmdSignal(ports, 'approve-2026-01-01', { ok: true }, console.log);
 */
export async function cmdSignal(p: Ports, key: string, payload: unknown, out: Out): Promise<number> {
  const resumed = await sendSignal(p, key, payload);
  out(`signal ${key} stored; resumed ${resumed} waiting task(s)`);
  return 0;
}

/** Clears a task (and by default its downstream) so it runs again. */
export async function cmdClear(p: Ports, dagId: string, runId: string, taskId: string, downstream: boolean, out: Out): Promise<number> {
  const dag = await requireDag(p, dagId);
  // `size#3`: one instance of the mapped task `size` (docs/mapping.md).
  if (!dag.spec.tasks.some((t) => t.taskId === taskId || (t.expand && t.taskId === baseTaskId(taskId) && isInstanceId(taskId)))) throw new NotFoundError(`unknown task ${taskId} in dag ${dagId}`);
  const cleared = await clearTasks(p, dagId, runId, [taskId], { downstream });
  out(cleared.length ? `cleared ${cleared.join(', ')} in ${dagId}/${runId}` : `nothing to clear in ${dagId}/${runId} (tasks not finished)`);
  return 0;
}

/**
 * Pauses or unpauses a DAG: the registry first (the engine stops creating runs at
 * once), then, on a stack, the State of its EventBridge schedule (`schedules`), rebuilt
 * from the schedule's own target so the CLI needs no role ARN. A dev has no schedules.
 *
 * @example
 * await cmdPause(ports, 'etl_daily', true, console.log);
 */
export async function cmdPause(p: Ports, dagId: string, paused: boolean, out: Out, schedules?: ScheduleSwitch): Promise<number> {
  const dag = await requireDag(p, dagId);
  await setPaused(p, dagId, paused);
  const word = paused ? 'paused' : 'unpaused';
  if (!schedules) {
    out(`${dagId} ${word}`);
    return 0;
  }
  const state = await schedules(dag, paused);
  out(`${dagId} ${word}${state ? `; schedule ${state}` : ' (no schedule)'}`);
  return 0;
}

/**
 * Sets the State of a DAG's schedule; undefined when the DAG has no schedule.
 *
 * @example
 * await syncScheduleState(scheduler, 'Airless-dags', dagRecord, true, Date.now()); // 'DISABLED'
 */
export async function syncScheduleState(
  scheduler: SchedulerClient,
  groupName: string,
  dag: DagRecord,
  paused: boolean,
  now: number,
): Promise<string | undefined> {
  const name = scheduleName(dag.dagId);
  let current;
  try {
    current = await scheduler.send(new GetScheduleCommand({ Name: name, GroupName: groupName }));
  } catch (e) {
    if (e instanceof ResourceNotFoundException || isAwsError(e, 'ResourceNotFoundException')) return undefined;
    return aws(`EventBridge Scheduler GetSchedule ${groupName}/${name}`, () => Promise.reject(e));
  }
  const t = current.Target;
  if (!t?.Arn || !t.RoleArn) return undefined;
  const sync = new ScheduleSync({ scheduler, groupName, targetQueueArn: t.Arn, roleArn: t.RoleArn, dlqArn: t.DeadLetterConfig?.Arn });
  const input = sync.desiredSchedule(dag.spec, { now, isPaused: () => paused });
  if (!input) return undefined;
  await aws(`EventBridge Scheduler UpdateSchedule ${groupName}/${name}`, () => scheduler.send(new UpdateScheduleCommand({ ...input })));
  return input.State;
}

export interface LogQuery {
  dagId: string;
  runId: string;
  taskId: string;
  tryNumber?: number;
  logGroupName: string;
  startTime?: number;
  endTime?: number;
}

/**
 * The CloudWatch Logs filter pattern for a task's structured lines.
 *
 * @example
 * logFilterPattern({ dagId: 'etl', runId: 'r1', taskId: 'x', tryNumber: 2 });
 * // '{ ($.dagId = "etl") && ($.runId = "r1") && ($.taskId = "x") && ($.tryNumber = 2) }'
 */
export function logFilterPattern(q: Pick<LogQuery, 'dagId' | 'runId' | 'taskId' | 'tryNumber'>): string {
  const s = (v: string) => JSON.stringify(v);
  const parts = [`($.dagId = ${s(q.dagId)})`, `($.runId = ${s(q.runId)})`, `($.taskId = ${s(q.taskId)})`];
  if (q.tryNumber !== undefined) parts.push(`($.tryNumber = ${q.tryNumber})`);
  return `{ ${parts.join(' && ')} }`;
}

import { fetchTargetLines, parseLogLine, type CurrentTry } from './sensor-logs.js';

export { parseLogLine };

/**
 * Task log lines from the worker's log group, oldest first. The filter runs in
 * CloudWatch and again here, so a line that only mentions the ids is never shown.
 */
export async function fetchTaskLogs(logs: CloudWatchLogsClient, q: LogQuery): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  let token: string | undefined;
  do {
    const page = await aws(`CloudWatch Logs FilterLogEvents ${q.logGroupName}`, () => logs.send(new FilterLogEventsCommand({
      logGroupName: q.logGroupName, filterPattern: logFilterPattern(q), startTime: q.startTime, endTime: q.endTime, nextToken: token,
    })));
    for (const ev of page.events ?? []) {
      const line = parseLogLine(ev.message ?? '');
      if (!line || line.dagId !== q.dagId || line.runId !== q.runId || line.taskId !== q.taskId) continue;
      if (q.tryNumber !== undefined && Number(line.tryNumber) !== q.tryNumber) continue;
      lines.push({ ...line, timestamp: line.timestamp ?? (ev.timestamp ? new Date(ev.timestamp).toISOString() : '') });
    }
    token = page.nextToken;
  } while (token);
  return lines;
}

/** The log groups `airless logs` reads: the worker's, and those of the poker and the tick (a sensor's lines are there). */
export interface TaskLogGroups {
  worker: string;
  poker?: string;
  tick?: string;
}

/**
 * Prints a task's log lines: time, level, try, message and the other fields. A task's
 * lines come from whichever function moved it (worker, poker, tick); a batched sensor's
 * log also shows the poker's lines about its target (lib/cli/sensor-logs.ts).
 */
export async function cmdLogs(
  p: Ports, logs: CloudWatchLogsClient, q: Omit<LogQuery, 'startTime' | 'endTime' | 'logGroupName'> & { groups: TaskLogGroups }, out: Out,
): Promise<number> {
  if (q.tryNumber !== undefined && (!Number.isInteger(q.tryNumber) || q.tryNumber < 1)) {
    throw new InvalidInputError(`--try must be a positive integer, got ${q.tryNumber}`);
  }
  const run = await p.store.getRun(q.dagId, q.runId);
  if (!run) throw new NotFoundError(`unknown run ${q.dagId}/${q.runId}; list runs with \`airless runs ${q.dagId}\``);
  const margin = 5 * 60_000;
  const window = { startTime: run.queuedAt - margin, endTime: run.endedAt === undefined ? undefined : run.endedAt + margin };
  const { groups, ...task } = q;
  const names = [groups.worker, groups.poker, groups.tick].filter((g): g is string => g !== undefined);
  const own = byTime((await Promise.all(names.map((logGroupName) => fetchTaskLogs(logs, { ...task, ...window, logGroupName })))).flat());
  const target = groups.poker ? await fetchTargetLines(logs, groups.poker, own, window.endTime, await currentTry(p, q)) : [];
  // At one timestamp the poke comes before the outcome it caused.
  const lines = byTime([...target, ...own]);
  if (lines.length === 0) {
    out(`no log lines for ${q.dagId}/${q.runId}/${q.taskId}${q.tryNumber ? ` try ${q.tryNumber}` : ''} in ${names.join(', ')}`);
    return 0;
  }
  const known = new Set(['timestamp', 'level', 'message', 'service', 'dagId', 'runId', 'taskId', 'tryNumber', 'sampling_rate', 'xray_trace_id', 'cold_start', 'function_arn', 'function_memory_size', 'function_name', 'function_request_id']);
  for (const l of lines) {
    const extra = Object.entries(l).filter(([k]) => !known.has(k));
    out(`${String(l.timestamp)}  ${String(l.level ?? '').padEnd(5)}  try ${String(l.tryNumber ?? '?')}  ${String(l.message ?? '')}${extra.length ? `  ${JSON.stringify(Object.fromEntries(extra))}` : ''}`);
  }
  return 0;
}

/** The task's latest try, for a sensor whose registration line is in no log group (sensor-logs.ts). */
async function currentTry(p: Ports, q: { dagId: string; runId: string; taskId: string; tryNumber?: number }): Promise<CurrentTry | undefined> {
  const ti = await p.store.getTask(q);
  if (!ti || (q.tryNumber !== undefined && q.tryNumber !== ti.tryNumber)) return undefined;
  const trigger = ti.state === 'sensing' ? await p.store.getTrigger(`${q.dagId}/${q.runId}/${q.taskId}`) : undefined;
  return { tryNumber: ti.tryNumber, startedAt: ti.startedAt, endedAt: ti.endedAt, ...(trigger?.hashcode ? { hashcode: trigger.hashcode } : {}) };
}

/** Lines in time order (a stable sort: lines of one moment keep their order). */
function byTime(lines: Record<string, unknown>[]): Record<string, unknown>[] {
  const at = (l: Record<string, unknown>) => Date.parse(String(l.timestamp)) || 0;
  return lines.map((l, i) => [l, i] as const).sort(([a, i], [b, j]) => at(a) - at(b) || i - j).map(([l]) => l);
}

async function requireDag(p: Ports, dagId: string): Promise<DagRecord> {
  const dag = await p.store.getDag(dagId);
  if (!dag) throw new NotFoundError(`unknown dag ${dagId}; push your DAGs with \`airless push <dir>\``);
  return dag;
}
