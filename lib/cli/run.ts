/**
 * `airless run`: runs of DAGs to the end on the embedded runtime, on memory or on a
 * DynamoDB store (`--dynamodb-endpoint URL`, or `--store dynamodb-local`, which starts
 * DynamoDB Local for the run and stops it after), with the same output and exit codes.
 */
import { SystemClock, VirtualClock } from '../adapters/clock.js';
import type { StateEvent } from '../adapters/memory/observe.js';
import { NotFoundError } from '../engine/index.js';
import type { DagRun, DagSpec, TaskInstance } from '../engine/index.js';
import type { Store } from '../engine/index.js';
import { baseTaskId, isInstanceId, isRunTerminal } from '../engine/index.js';
import { EmbeddedRuntime } from '../runtime/embedded.js';
import { sendRunSignal } from '../runtime/signals.js';
import { builtinSensors } from '../sensors/index.js';
import { build, localDynamoStore, terminalLog } from './local.js';
import type { SignalOption } from './options.js';
import { eventLine, formatDuration, runTable, taskRows, runTaskTable, type RunResult } from './output.js';
import { UsageError } from './output.js';
import { reserveStdout } from '../isolation/output-mask.js';
import { holdAssetConsumers, runsSince } from './run-follow.js';
import { localJobs } from './jobs.js';

export interface RunOptions {
  dag?: string;
  all?: boolean;
  conf?: Record<string, unknown>;
  logicalDate?: number;
  timeWarp?: boolean;
  json?: boolean;
  concurrency?: number;
  signal?: SignalOption[];
  quiet?: boolean;
  /** Runs of each DAG, all started at once (a throughput check). */
  runs?: number;
  store?: 'memory' | 'dynamodb-local';
  dynamodbEndpoint?: string;
  typecheck?: boolean;
  /** Also run the runs the runs' asset events trigger among the DAGs of the folder (default true; `--no-follow`). */
  follow?: boolean;
  /** Operators' jobs simulated (they succeed a minute after they start) instead of started on AWS. */
  mockOperators?: boolean;
}

/** At most this many failure lines under --quiet (then a count of the rest). */
const MAX_FAILURE_LINES = 20;

/**
 * The failures of runs that did not succeed, one line per failed task (a mapped task's
 * failed instances on its own line, counted), or the run's own reason when no task failed.
 *
 * @example
 * failureLines(results); // ['airless: run etl r1 failed: task load (try 2): connection refused']
 */
export function failureLines(results: readonly RunResult[]): string[] {
  const lines: string[] = [];
  for (const r of results) {
    if (r.run.state === 'success') continue;
    const head = `airless: run ${r.run.dagId} ${r.run.runId} ${r.run.state === 'failed' ? 'failed' : `stopped (${r.outcome})`}`;
    const failed = r.tasks.filter((t) => t.state === 'failed' && !isInstanceId(t.taskId));
    for (const t of failed) {
      const instances = r.tasks.filter((i) => i.state === 'failed' && isInstanceId(i.taskId) && baseTaskId(i.taskId) === t.taskId);
      const why = t.error ?? instances.find((i) => i.error)?.error ?? 'no error recorded';
      const mapped = instances.length > 0 ? `, ${instances.length} mapped instance(s) failed, first ${instances[0]!.taskId}` : '';
      lines.push(`${head}: task ${t.taskId} (try ${t.tryNumber}${mapped}): ${why}`);
    }
    if (failed.length === 0) lines.push(`${head}: ${r.run.error ?? (r.run.state === 'failed' ? 'no task failed' : 'nothing left to run or wait for')}`);
  }
  return lines.length > MAX_FAILURE_LINES ? [...lines.slice(0, MAX_FAILURE_LINES), `airless: and ${lines.length - MAX_FAILURE_LINES} more failure line(s)`] : lines;
}

/** Opens the store the options ask for; `close` stops what was started for it. */
async function openStore(o: RunOptions): Promise<{ store?: Store; close: () => Promise<void> }> {
  if (o.store === 'dynamodb-local' && o.dynamodbEndpoint) throw new UsageError('airless run: give --store dynamodb-local or --dynamodb-endpoint URL, not both');
  if (o.dynamodbEndpoint) return { store: await localDynamoStore(o.dynamodbEndpoint, { quiet: true, tablePrefix: `airless-run-${Date.now()}` }), close: async () => {} };
  if (o.store !== 'dynamodb-local') return { close: async () => {} };
  const { startDynamoDbLocal } = await import('../runtime/dynamodb-local.js');
  const ddb = await startDynamoDbLocal();
  try {
    if (!o.json && !o.quiet) process.stdout.write(`DynamoDB Local on ${ddb.endpoint} (stopped when the run ends)\n`);
    return { store: await localDynamoStore(ddb.endpoint, { quiet: true, tablePrefix: 'airless-run' }), close: () => ddb.stop() };
  } catch (e) {
    await ddb.stop();
    throw e;
  }
}

/** A run in the `--json` summary. */
export function runJson(x: RunResult) {
  return {
    dagId: x.run.dagId, runId: x.run.runId, runType: x.run.runType, state: x.run.state,
    logicalDate: new Date(x.run.logicalDate).toISOString(),
    durationMs: x.run.startedAt !== undefined && x.run.endedAt !== undefined ? x.run.endedAt - x.run.startedAt : null,
    tasks: taskRows(x),
  };
}

/** A finished run with its tasks and return values, for the summary. */
export async function resultOf(rt: EmbeddedRuntime, run: DagRun, spec: DagSpec, outcome: RunResult['outcome']): Promise<RunResult> {
  const tasks: TaskInstance[] = await rt.ports.store.listTasks(run.dagId, run.runId);
  const xcoms: Record<string, unknown> = {};
  for (const t of tasks) {
    // A mapped instance's value is on its item (lib/cli/mapped.ts shows it).
    if (t.state !== 'success' || t.mapIndex !== undefined) continue;
    const v = await rt.ports.store.getXcom({ dagId: run.dagId, runId: run.runId, taskId: t.taskId, key: 'return_value' });
    if (v !== undefined) xcoms[t.taskId] = v;
  }
  return { run, tasks, spec, outcome, xcoms };
}

/**
 * @example
 * process.exitCode = await cmdRun('examples/dags', { dag: 'etl_daily', timeWarp: true });
 */
export async function cmdRun(dir: string, o: RunOptions): Promise<number> {
  if (!o.dag && !o.all) throw new UsageError('airless run: give --dag ID or --all (see airless help run)');
  // --json: stdout carries the document only; what DAG files and tasks print goes to stderr (masked).
  const stdout = o.json ? reserveStdout() : { write: (text: string) => void process.stdout.write(text), release: () => {} };
  try {
    const { version, manifest, bundles } = await build(dir, o.typecheck ?? true);
    const dagIds = o.all ? manifest.dags.map((d) => d.dagId) : [o.dag!];
    for (const id of dagIds) if (!manifest.dags.some((d) => d.dagId === id)) throw new NotFoundError(`unknown dag ${id} (dags: ${manifest.dags.map((d) => d.dagId).join(', ')})`);
    const { store, close } = await openStore(o);
    try {
      return await runAll(dir, o, dagIds, { version, specs: manifest.dags, bundles, store }, stdout.write);
    } finally {
      await close();
    }
  } finally {
    stdout.release();
  }
}

async function runAll(
  dir: string, o: RunOptions, dagIds: string[],
  w: { version: string; specs: DagSpec[]; bundles: Awaited<ReturnType<typeof build>>['bundles']; store?: Store },
  document: (text: string) => void,
): Promise<number> {
  const clock = o.timeWarp ? new VirtualClock(Date.now()) : new SystemClock();
  const copies = o.runs ?? 1;
  const print = !o.json && !o.quiet;
  let rt: EmbeddedRuntime | undefined;
  const jobs = localJobs(() => rt!, { mock: o.mockOperators });
  rt = new EmbeddedRuntime({
    bundles: w.bundles, clock, schedules: false, sensors: builtinSensors(), store: w.store, jobs: jobs.drivers, config: jobs.config,
    concurrency: o.concurrency ?? 8, log: terminalLog(!print || copies > 1),
    onEvent: print && copies === 1 ? (e: StateEvent) => process.stdout.write(`${eventLine(e, clock.now())}\n`) : undefined,
  });
  await rt.register(w.version);
  if (o.follow === false) await holdAssetConsumers(rt.ports, dagIds);
  const started = Date.now();
  const virtualStart = clock.now();
  const results: RunResult[] = [];
  for (const dagId of dagIds) {
    const spec = w.specs.find((d) => d.dagId === dagId)!;
    const runs: DagRun[] = [];
    for (let i = 0; i < copies; i++) {
      const base = `manual__${new Date(o.logicalDate ?? clock.now()).toISOString()}`;
      const run = await rt.trigger(dagId, { conf: o.conf, logicalDate: o.logicalDate, runId: copies > 1 ? `${base}-${i + 1}` : undefined });
      for (const s of o.signal ?? []) await sendRunSignal(rt.ports, run, spec, s.key, s.payload);
      runs.push(run);
    }
    const outcome = await rt.runUntil(async () => {
      for (const r of runs) if (!isRunTerminal((await rt.ports.store.getRun(dagId, r.runId))!.state)) return false;
      // Following: until the runs that asset events triggered (and theirs) are done too.
      return o.follow === false || (await rt.ports.store.listActiveRuns()).length === 0;
    });
    for (const run of runs) results.push(await resultOf(rt, (await rt.ports.store.getRun(dagId, run.runId))!, spec, outcome));
  }
  if (o.follow !== false) {
    for (const run of await runsSince(rt.ports, w.specs, results.map((r) => r.run))) {
      results.push(await resultOf(rt, run, w.specs.find((d) => d.dagId === run.dagId)!, 'done'));
    }
  }
  const wallMs = Date.now() - started;
  const virtualMs = clock.now() - virtualStart;
  if (print) {
    if (copies === 1 && results.length === 1) {
      const r = results[0];
      process.stdout.write(`\n${r.run.dagId}  ${r.run.runId}  ${r.run.state}${r.outcome === 'stalled' ? ' (stalled: nothing left to run or wait for)' : ''}\n`);
      process.stdout.write(`${runTaskTable(r, { virtual: o.timeWarp ?? false })}\n`);
    } else {
      process.stdout.write(`\n${runTable(results)}\n`);
    }
    const tasks = results.reduce((n, r) => n + r.tasks.length, 0);
    const rate = copies > 1 ? `: ${Math.round(tasks / Math.max(wallMs / 1000, 0.001))} tasks/s` : '';
    process.stdout.write(`\n${results.length} run(s), ${results.filter((r) => r.run.state === 'success').length} succeeded, ${tasks} task instances in ${formatDuration(wallMs)} of wall time${rate}${o.timeWarp ? `, ${formatDuration(virtualMs)} of virtual time` : ''}\n`);
    if (o.all) process.stdout.write(`next: \`npx airless dev ${dir}\` runs these DAGs on their schedules, on real time\n`);
  } else if (o.quiet && copies > 1) {
    const tasks = results.reduce((n, r) => n + r.tasks.length, 0);
    process.stdout.write(`${results.length} runs, ${tasks} task instances in ${wallMs} ms of wall time: ${Math.round(tasks / Math.max(wallMs / 1000, 0.001))} tasks/s (${results.filter((r) => r.run.state === 'success').length} succeeded)\n`);
  }
  // Quiet is quiet on success only: a failure is always said, one line per failed task.
  if (o.quiet && !o.json) for (const l of failureLines(results)) process.stderr.write(`${l}\n`);
  if (o.json) {
    document(`${JSON.stringify(results.length === 1 ? runJson(results[0]) : { runs: results.map(runJson), wallMs, virtualMs: o.timeWarp ? virtualMs : null })}\n`);
  }
  return results.every((r) => r.run.state === 'success') ? 0 : 1;
}
