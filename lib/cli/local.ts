/**
 * CLI commands on the embedded runtime: build, dags list, a local signal (tasks test is in tasks-test.ts),
 * and what `run` and `dev` share (the type-checked local build, the terminal log, a
 * DynamoDB store on any endpoint).
 */
import { TABLE_PREFIX_ENV } from '../adapters/aws/stack-contract.js';
import path from 'node:path';
import { MemoryLog, type LogLine } from '../adapters/memory/observe.js';
import { buildBundle, buildToLocalVersion, bundleVersion, LocalBundleSource } from '../build/index.js';
import { defaultCacheDir } from '../build/index.js';
import type { DagSpec, Manifest } from '../engine/index.js';
import { DEFAULT_CONFIG, type Store } from '../engine/index.js';
import { nextTick, onceTick } from '../engine/index.js';
import { table, timestamp } from './output.js';
import { displayText } from '../adapters/xcom-display.js';
import { describeCondition } from '../engine/index.js';

/** Where the embedded runtime keeps built bundle versions (ignored by git). */
export const LOCAL_ROOT = path.resolve('.airless', 'bundles');
/** The build cache (type-check verdicts, bundles, .tsbuildinfo) of `run`, `dev`, `dags list`, `tasks test`, `build` and `push`. */
export const BUILD_CACHE = defaultCacheDir();
/** Where `airless build` writes by default: outside any DAG folder given as a subfolder. */
export const DEFAULT_BUILD_OUT = path.join('.airless', 'build');

export function terminalLog(quiet: boolean) {
  return new MemoryLog((l: LogLine) => {
    if (quiet) return;
    const f = l.fields ?? {};
    if (f.taskId !== undefined && f.tryNumber !== undefined) {
      const { dagId, runId, taskId, tryNumber, ...rest } = f;
      const extra = Object.keys(rest).length ? ` ${displayText(rest, 4096).text}` : '';
      process.stdout.write(`    [${dagId}.${taskId} try ${tryNumber}] ${l.level === 'info' ? '' : `${l.level}: `}${l.msg}${extra}\n`);
    } else if (l.level !== 'info') {
      process.stderr.write(`    ${l.level}: ${l.msg} ${displayText(f, 4096).text}\n`);
    }
  });
}

function printWarnings(warnings: readonly string[]): void {
  for (const w of warnings) process.stderr.write(`airless: warning: ${w}\n`);
}

/** Type-checks (unless told not to) and builds `dir` into a local bundle version. */
export async function build(dir: string, typecheck = true): Promise<{ version: string; manifest: Manifest; bundles: LocalBundleSource }> {
  const { version, manifest, warnings } = await buildToLocalVersion(dir, LOCAL_ROOT, { typecheck, cacheDir: BUILD_CACHE });
  printWarnings(warnings);
  return { version, manifest, bundles: new LocalBundleSource(LOCAL_ROOT) };
}

/** `airless build`: type-check, bundle and write bundle.mjs + manifest.json to `out` (default .airless/build). */
export async function cmdBuild(dir: string, o: { out?: string; typecheck?: boolean }): Promise<number> {
  const outDir = path.resolve(o.out ?? DEFAULT_BUILD_OUT);
  const r = await buildBundle({ dir, outDir, typecheck: o.typecheck ?? true, cacheDir: BUILD_CACHE });
  printWarnings(r.warnings);
  const tasks = r.manifest.dags.reduce((n, d) => n + d.tasks.length, 0);
  process.stdout.write(`built ${r.manifest.dags.length} DAGs (${tasks} tasks) from ${dir}, version ${bundleVersion(r.manifest)}\n  ${r.bundlePath}\n  ${r.manifestPath}\n`);
  return 0;
}

export function scheduleText(d: DagSpec): string {
  if (d.assetSchedule) return `assets: ${describeCondition(d.assetSchedule)}`;
  if (!d.schedule) return 'manual';
  if (d.schedule.kind === 'once') return '@once';
  return d.schedule.kind === 'cron' ? `${d.schedule.expr} (${d.schedule.timezone})` : `every ${d.schedule.everyMs / 1000}s`;
}

/** When a DAG's next scheduled run fires after `now` (within its start and end dates), or undefined. */
export function nextRunAt(d: DagSpec, now: number): number | undefined {
  if (!d.schedule) return undefined;
  if (d.schedule.kind === 'once') return onceTick(d, now);
  const start = d.startDate ? Date.parse(d.startDate) : undefined;
  const after = start !== undefined && start > now ? start - 1 : now;
  const next = nextTick(d.schedule, after, start ?? 0);
  if (next === undefined || (d.endDate && next > Date.parse(d.endDate))) return undefined;
  return next;
}

/** `airless dags list`: schedule, next run (UTC), paused state of a new deployment, tasks, file. */
export async function cmdDagsList(dir: string, o: { json: boolean; typecheck?: boolean }): Promise<number> {
  const { manifest } = await build(dir, o.typecheck ?? true);
  const now = Date.now();
  const rows = manifest.dags.map((d) => {
    const next = nextRunAt(d, now);
    return { dagId: d.dagId, schedule: scheduleText(d), nextRun: next === undefined ? null : new Date(next).toISOString(), paused: d.pausedOnCreation, tasks: d.tasks.length, file: d.file };
  });
  if (o.json) {
    process.stdout.write(`${JSON.stringify(rows)}\n`);
    return 0;
  }
  const text = rows.map((r) => [r.dagId, r.schedule, r.nextRun ? timestamp(Date.parse(r.nextRun)).slice(0, 16) + 'Z' : '-', r.paused ? 'paused' : 'active', String(r.tasks), r.file]);
  process.stdout.write(`${table(text, ['dag', 'schedule', 'next run', 'state', 'tasks', 'file'])}\n`);
  return 0;
}

/** A DynamoDB store on any endpoint (DynamoDB Local, LocalStack), creating missing tables. */
export async function localDynamoStore(endpoint: string, opts: { quiet?: boolean; tablePrefix?: string } = {}): Promise<Store> {
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const { DynamoStore } = await import('../adapters/aws/dynamo-store.js');
  const { createTables } = await import('../adapters/aws/dynamo-schema.js');
  const client = new DynamoDBClient({
    endpoint, region: process.env.AWS_REGION ?? 'us-east-1',
    credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'local', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'local' },
  });
  const tablePrefix = opts.tablePrefix ?? process.env[TABLE_PREFIX_ENV] ?? 'airless-dev';
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
export async function cmdLocalSignal(endpoint: string, key: string, payload: unknown, tablePrefix?: string): Promise<number> {
  const store = await localDynamoStore(endpoint, { quiet: true, tablePrefix });
  const now = Date.now();
  await store.putSignal({ key, payload: payload ?? true, createdAt: now, expiresAt: Math.ceil((now + DEFAULT_CONFIG.signalRetentionMs) / 1000) });
  const waiting = await store.listEventTriggers(key);
  process.stdout.write(`signal ${key} stored; ${waiting.length} task(s) waiting on it resume within a minute\n`);
  return 0;
}
