/**
 * CLI commands on the embedded runtime: build, run, tasks test, dags list, dev.
 */
import path from 'node:path';
import { SystemClock, VirtualClock } from '../adapters/memory/clock.js';
import { MemoryLog, type LogLine, type StateEvent } from '../adapters/memory/observe.js';
import { buildBundle, buildToLocalVersion, LocalBundleSource } from '../build/index.js';
import { NotFoundError } from '../engine/errors.js';
import type { DagRun, DagSpec, Manifest, TaskInstance } from '../engine/model.js';
import { isRunTerminal } from '../engine/states.js';
import { DEFAULT_CONFIG, type Store } from '../engine/ports.js';
import { renderTemplate, templateVars } from '../engine/template.js';
import { sendSignal } from '../engine/waiting.js';
import { taskSpec } from '../engine/dag-index.js';
import { runBody } from '../engine/worker.js';
import { pokeOnce } from '../engine/poke.js';
import { builtinSensors } from '../sensors/index.js';
import { EmbeddedRuntime } from '../../local/runtime.js';
import { attachUi, type UiFlags } from './ui.js';
import { eventLine, parseJsonOption, table, taskTable, UsageError } from './output.js';

/** Where the embedded runtime keeps built bundle versions (ignored by git). */
export const LOCAL_ROOT = path.resolve('.airless', 'bundles');

export interface RunFlags {
  dag?: string;
  all?: boolean;
  conf?: string;
  logicalDate?: string;
  timeWarp?: boolean;
  json?: boolean;
  concurrency?: string;
  signal?: string[];
  quiet?: boolean;
  /** Runs of each DAG, all started at once (a throughput check). */
  runs?: string;
}

function parseDate(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw new UsageError(`--${name} must be an ISO date, got ${text}`);
  return ms;
}

function terminalLog(quiet: boolean) {
  return new MemoryLog((l: LogLine) => {
    if (quiet) return;
    const f = l.fields ?? {};
    if (f.taskId !== undefined && f.tryNumber !== undefined) {
      const { dagId, runId, taskId, tryNumber, ...rest } = f;
      const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
      process.stdout.write(`    [${dagId}.${taskId} try ${tryNumber}] ${l.level === 'info' ? '' : `${l.level}: `}${l.msg}${extra}\n`);
    } else if (l.level !== 'info') {
      process.stderr.write(`    ${l.level}: ${l.msg} ${JSON.stringify(f)}\n`);
    }
  });
}

async function build(dir: string): Promise<{ version: string; manifest: Manifest; bundles: LocalBundleSource }> {
  const { version, manifest } = await buildToLocalVersion(dir, LOCAL_ROOT);
  return { version, manifest, bundles: new LocalBundleSource(LOCAL_ROOT) };
}

export async function cmdBuild(dir: string, out?: string): Promise<number> {
  const outDir = path.resolve(out ?? path.join('dist', 'bundle'));
  const r = await buildBundle({ dir, outDir });
  const tasks = r.manifest.dags.reduce((n, d) => n + d.tasks.length, 0);
  process.stdout.write(`built ${r.manifest.dags.length} DAGs (${tasks} tasks) from ${dir}\n  ${r.bundlePath}\n  ${r.manifestPath}\n  sha256 ${r.manifest.bundleSha256}\n`);
  return 0;
}

export function scheduleText(d: DagSpec): string {
  if (!d.schedule) return 'manual';
  return d.schedule.kind === 'cron' ? `${d.schedule.expr} (${d.schedule.timezone})` : `every ${d.schedule.everyMs / 1000}s`;
}

export async function cmdDagsList(dir: string, json: boolean): Promise<number> {
  const { manifest } = await build(dir);
  if (json) {
    process.stdout.write(`${JSON.stringify(manifest.dags.map((d) => ({ dagId: d.dagId, file: d.file, schedule: d.schedule, tasks: d.tasks.length })))}\n`);
    return 0;
  }
  const rows = manifest.dags.map((d) => [d.dagId, scheduleText(d), String(d.tasks.length), d.file]);
  process.stdout.write(`${table(rows, ['dag', 'schedule', 'tasks', 'file'])}\n`);
  return 0;
}

/** `airless run`: one run (or one run of every DAG with --all) to completion. */
export async function cmdRun(dir: string, f: RunFlags): Promise<number> {
  const { version, manifest, bundles } = await build(dir);
  const dagIds = f.all ? manifest.dags.map((d) => d.dagId) : f.dag ? [f.dag] : [];
  if (dagIds.length === 0) throw new UsageError('airless run needs --dag ID (or --all)');
  for (const id of dagIds) if (!manifest.dags.some((d) => d.dagId === id)) throw new NotFoundError(`unknown dag ${id} (dags: ${manifest.dags.map((d) => d.dagId).join(', ')})`);
  const conf = parseJsonOption('conf', f.conf);
  const logicalDate = parseDate('logical-date', f.logicalDate);
  const clock = f.timeWarp ? new VirtualClock(Date.now()) : new SystemClock();
  const print = !f.json && !f.quiet;
  const rt = new EmbeddedRuntime({
    bundles, clock, schedules: false, sensors: builtinSensors(),
    concurrency: Number(f.concurrency ?? 8), log: terminalLog(!print),
    onEvent: print ? (e: StateEvent) => process.stdout.write(`${eventLine(e, clock.now())}\n`) : undefined,
  });
  await rt.register(version);
  const started = Date.now();
  const virtualStart = clock.now();
  const results: { run: DagRun; tasks: TaskInstance[]; spec: DagSpec; outcome: string }[] = [];
  const copies = Number(f.runs ?? 1);
  if (!Number.isInteger(copies) || copies < 1 || copies > 100_000) throw new UsageError(`--runs must be a whole number from 1 to 100000, got ${f.runs}`);
  for (const dagId of dagIds) {
    const runs: DagRun[] = [];
    for (let i = 0; i < copies; i++) {
      const base = `manual__${new Date(logicalDate ?? clock.now()).toISOString()}`;
      const run = await rt.trigger(dagId, { conf, logicalDate, runId: copies > 1 ? `${base}-${i + 1}` : undefined });
      for (const s of f.signal ?? []) await presend(rt, run, s);
      runs.push(run);
    }
    const outcome = await rt.runUntil(async () => {
      for (const r of runs) if (!isRunTerminal((await rt.ports.store.getRun(dagId, r.runId))!.state)) return false;
      return true;
    });
    for (const run of runs) {
      const final = (await rt.ports.store.getRun(dagId, run.runId))!;
      results.push({ run: final, tasks: await rt.ports.store.listTasks(dagId, run.runId), spec: manifest.dags.find((d) => d.dagId === dagId)!, outcome });
    }
  }
  const wallMs = Date.now() - started;
  if (copies > 1 && !f.json) {
    const tasks = results.reduce((n, r) => n + r.tasks.length, 0);
    process.stdout.write(`${results.length} runs, ${tasks} task instances in ${wallMs} ms of wall time: ${Math.round(tasks / (wallMs / 1000))} tasks/s (${results.filter((r) => r.run.state === 'success').length} succeeded)\n`);
  }
  if (print && copies === 1) {
    for (const r of results) {
      process.stdout.write(`\n${r.run.dagId}  ${r.run.runId}  ${r.run.state}${r.outcome === 'stalled' ? ' (stalled: nothing left to run or wait for)' : ''}\n`);
      process.stdout.write(`${taskTable(r.tasks, r.spec.tasks.map((t) => t.taskId))}\n`);
    }
    process.stdout.write(`\n${results.length} run(s) in ${wallMs} ms of wall time${f.timeWarp ? `, ${((clock.now() - virtualStart) / 60_000).toFixed(1)} min of virtual time` : ''}\n`);
    if (f.all) process.stdout.write(`next: \`npx airless dev ${dir}\` runs these DAGs on their schedules, on real time\n`);
  }
  if (f.json) {
    const r = results[results.length - 1];
    const line = (x: typeof r) => ({
      dagId: x.run.dagId, runId: x.run.runId, state: x.run.state,
      tasks: x.spec.tasks.map((t) => {
        const ti = x.tasks.find((y) => y.taskId === t.taskId);
        return { taskId: t.taskId, state: ti?.state ?? 'none', tryNumber: ti?.tryNumber ?? 0 };
      }),
    });
    process.stdout.write(`${JSON.stringify(results.length === 1 ? line(r) : { runs: results.map(line) })}\n`);
  }
  return results.every((r) => r.run.state === 'success') ? 0 : 1;
}

/** `--signal KEY[=JSON]`: a signal sent before the run waits (rendered with the run's template vars). */
async function presend(rt: EmbeddedRuntime, run: DagRun, spec: string): Promise<void> {
  const eq = spec.indexOf('=');
  const keyT = eq < 0 ? spec : spec.slice(0, eq);
  const payload = eq < 0 ? true : JSON.parse(spec.slice(eq + 1));
  const vars = templateVars({
    dagId: run.dagId, runId: run.runId, taskId: '', logicalDate: run.logicalDate,
    dataIntervalStart: run.dataIntervalStart, dataIntervalEnd: run.dataIntervalEnd, params: {}, conf: run.conf,
  });
  await sendSignal(rt.ports, renderTemplate(keyT, vars), payload);
}

/** `airless dev`: a long-running local scheduler on real time, until Ctrl-C. */
export async function cmdDev(dir: string, f: { concurrency?: string; dynamodbEndpoint?: string; tickMs?: number; ui?: UiFlags }): Promise<number> {
  const { version, manifest, bundles } = await build(dir);
  const store = f.dynamodbEndpoint ? await localDynamoStore(f.dynamodbEndpoint) : undefined;
  const clock = new SystemClock();
  const rt = new EmbeddedRuntime({
    bundles, clock, schedules: true, sensors: builtinSensors(), store, tickMs: f.tickMs ?? 5_000,
    concurrency: Number(f.concurrency ?? 8), log: terminalLog(false),
    onEvent: (e) => process.stdout.write(`${eventLine(e, clock.now())}\n`),
  });
  const changes = await rt.register(version);
  process.stdout.write(`airless dev: ${manifest.dags.length} DAGs from ${dir} (bundle ${version}; added ${changes.added.length}, updated ${changes.updated.length})\n`);
  for (const d of manifest.dags) process.stdout.write(`  ${d.dagId.padEnd(24)} ${scheduleText(d)}\n`);
  // --- issue 14 hook: the web UI and REST API over this runtime (all logic in lib/cli/ui.ts) ---
  const ui = await attachUi(rt, f.ui ?? {});
  process.stdout.write('Scheduling on real time. Ctrl-C stops.\n');
  const stop = () => { process.stdout.write('\nstopping...\n'); rt.stop(); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await rt.runUntil(async () => false);
  await ui.close();
  return 0;
}

/** `airless tasks test`: runs one task in process, ignoring dependencies and storing nothing, like `airflow tasks test`. */
export async function cmdTasksTest(dir: string, dagId: string, taskId: string, f: { conf?: string; logicalDate?: string }): Promise<number> {
  const { version, manifest, bundles } = await build(dir);
  const spec = manifest.dags.find((d) => d.dagId === dagId);
  if (!spec) throw new NotFoundError(`unknown dag ${dagId} (dags: ${manifest.dags.map((d) => d.dagId).join(', ')})`);
  const t = taskSpec(spec, taskId);
  const clock = new VirtualClock(Date.now());
  const rt = new EmbeddedRuntime({ bundles, clock, schedules: false, sensors: builtinSensors(), log: terminalLog(false) });
  await rt.register(version);
  await rt.ports.store.updateDag(dagId, { paused: true });
  const run = await rt.trigger(dagId, { conf: parseJsonOption('conf', f.conf), logicalDate: parseDate('logical-date', f.logicalDate) });
  const rc = { run, spec };
  const ti: TaskInstance = { dagId, runId: run.runId, taskId, state: 'running', tryNumber: 1, upstream: {}, owner: 'tasks-test', startedAt: clock.now() };
  const bundle = await bundles.load(version);
  const outcome = t.kind === 'sensor'
    ? await pokeOnce(rt.ports, rc, t, ti, bundle)
    : await runBody(rt.ports, rc, t, ti, (ctx) => {
        const fn = bundle.taskMethod(dagId, taskId, 'execute');
        if (!fn) throw new NotFoundError(`task ${taskId} has no execute method`);
        return fn(ctx);
      });
  switch (outcome.kind) {
    case 'success':
      process.stdout.write(`${dagId}.${taskId} succeeded${outcome.value !== undefined ? `, returned ${JSON.stringify(outcome.value)}` : ''}\n`);
      return 0;
    case 'skipped':
      process.stdout.write(`${dagId}.${taskId} skipped${outcome.reason ? `: ${outcome.reason}` : ''}\n`);
      return 0;
    case 'deferred':
      process.stdout.write(`${dagId}.${taskId} deferred: would resume ${outcome.request.resume ?? 'execute'} on ${JSON.stringify(outcome.request.trigger)}\n`);
      return 0;
    case 'failed':
      process.stdout.write(`${dagId}.${taskId} failed: ${outcome.error}\n`);
      return 1;
  }
}

/** A DynamoDB store on any endpoint (DynamoDB Local, LocalStack), creating missing tables. */
export async function localDynamoStore(endpoint: string, opts: { quiet?: boolean } = {}): Promise<Store> {
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const { DynamoStore } = await import('../adapters/aws/dynamo-store.js');
  const { createTables } = await import('../adapters/aws/dynamo-schema.js');
  const client = new DynamoDBClient({
    endpoint, region: process.env.AWS_REGION ?? 'us-east-1',
    credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'local', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'local' },
  });
  const tablePrefix = process.env.AIRLESS_TABLE_PREFIX ?? 'airless-dev';
  await createTables(client, tablePrefix);
  if (!opts.quiet) process.stdout.write(`state in DynamoDB at ${endpoint} (tables ${tablePrefix}-*): it survives a restart\n`);
  return new DynamoStore({ client, tablePrefix });
}

/**
 * `airless signal <key> --dynamodb-endpoint URL`: stores a signal for a local
 * `airless dev` sharing that DynamoDB. The dev process resumes the waiting tasks at its
 * next look at them (reconcile re-checks event waits every minute), as it would a signal
 * sent before the wait.
 */
export async function cmdLocalSignal(endpoint: string, key: string, payload?: string): Promise<number> {
  const store = await localDynamoStore(endpoint, { quiet: true });
  const now = Date.now();
  let value: unknown = true;
  if (payload !== undefined) {
    try {
      value = JSON.parse(payload);
    } catch (cause) {
      throw new UsageError(`--payload must be JSON, got ${payload}`, { cause });
    }
  }
  await store.putSignal({ key, payload: value, createdAt: now, expiresAt: now + DEFAULT_CONFIG.signalRetentionMs });
  const waiting = await store.listEventTriggers(key);
  process.stdout.write(`signal ${key} stored; ${waiting.length} task(s) waiting on it resume within a minute\n`);
  return 0;
}
