/**
 * `airless backfill`: the dry run with its cost preview (on any ports: the embedded
 * runtime's, a dev's, a stack's), the creation of a backfill on a dev or a stack (the
 * engine there runs it), and the embedded run of a whole backfill to its end.
 */
import { SystemClock, VirtualClock } from '../adapters/clock.js';
import type { StateEvent } from '../adapters/memory/observe.js';
import {
  backfillCost, backfillRuns, CONFIRM_ABOVE, createBackfill, MAX_BACKFILL_DATES, NotFoundError, previewBackfill, PRICES,
  type Backfill, type BackfillCost, type BackfillRequest, type DatePlan, type Ports, type ReprocessBehavior,
} from '../engine/index.js';
import { EmbeddedRuntime } from '../runtime/embedded.js';
import { builtinSensors } from '../sensors/index.js';
import { build, scheduleText, terminalLog } from './local.js';
import { eventLine, formatDuration, runTable, taskRows, UsageError, type RunResult } from './output.js';
import { resultOf } from './run.js';

export interface BackfillOptions {
  dag?: string;
  from?: number;
  to?: number;
  reprocess?: ReprocessBehavior;
  'max-active-runs'?: number;
  reverse?: boolean;
  conf?: Record<string, unknown>;
  'dry-run'?: boolean;
  json?: boolean;
  yes?: boolean;
}

type Out = (line: string) => void;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const money = (x: number) => (x === 0 ? '$0' : x < 0.01 ? `$${x.toPrecision(2)}` : `$${x.toFixed(2)}`);
const n = (x: number) => Math.round(x).toLocaleString('en-US');

/** The engine request of the options; missing `--dag`, `--from` or `--to` is a usage error. */
export function backfillRequest(o: BackfillOptions): BackfillRequest {
  const missing = (['dag', 'from', 'to'] as const).filter((k) => o[k] === undefined);
  if (missing.length) throw new UsageError(`airless backfill: give ${missing.map((k) => `--${k}`).join(', ')} (see airless help backfill)`);
  return {
    dagId: o.dag!, fromDate: o.from!, toDate: o.to!, reprocess: o.reprocess, maxActiveRuns: o['max-active-runs'],
    reverse: o.reverse, conf: o.conf, maxDates: o.yes ? MAX_BACKFILL_DATES : CONFIRM_ABOVE, confirmWith: 'give --yes',
  };
}

/** The dry run's JSON: `{ dagId, runs: [{ logicalDate }], estimate: { tasks, requests, usd } }` and details. */
export function dryRunJson(dagId: string, dates: DatePlan[], cost: BackfillCost) {
  const runs = dates.filter((d) => d.decision.kind !== 'skip');
  return {
    dagId,
    runs: runs.map((d) => ({ logicalDate: new Date(d.logicalDate).toISOString(), action: d.decision.kind, ...(d.decision.kind === 'reprocess' ? { runId: d.decision.run.runId } : {}) })),
    skipped: dates.flatMap((d) => (d.decision.kind === 'skip' ? [{ logicalDate: new Date(d.logicalDate).toISOString(), reason: d.decision.reason }] : [])),
    estimate: {
      tasks: cost.tasks, requests: cost.requests, usd: Number(cost.usd.toPrecision(3)),
      tasksPerRun: cost.tasksPerRun,
      orchestrationUsd: Number(cost.parts.orchestrationUsd.toPrecision(3)),
      lambdaGbSeconds: cost.parts.gbSeconds ?? null,
      lambdaDurationUsd: cost.parts.durationUsd === undefined ? null : Number(cost.parts.durationUsd.toPrecision(3)),
      durationFrom: cost.durationFrom ?? null,
    },
  };
}

/**
 * The dry run: each date and what the backfill would do with it, and what it would cost.
 *
 * @example
 * await printDryRun(ports, { dagId: 'etl_daily', fromDate, toDate }, { json: false }, console.log);
 */
export async function printDryRun(p: Ports, req: BackfillRequest, o: { json?: boolean }, out: Out): Promise<number> {
  const { dag, dates, maxActiveRuns } = await previewBackfill(p, { ...req, maxDates: MAX_BACKFILL_DATES });
  const runs = dates.filter((d) => d.decision.kind !== 'skip').length;
  const cost = await backfillCost(p, dag.spec, runs);
  if (o.json) {
    out(JSON.stringify(dryRunJson(dag.dagId, dates, cost)));
    return 0;
  }
  out(`${dag.dagId}: ${runs} run(s) from ${iso(req.fromDate)} to ${iso(req.toDate)} on ${scheduleText(dag.spec)}, ` +
    `${maxActiveRuns} at once, reprocess ${req.reprocess ?? 'none'}${req.reverse ? ', newest first' : ''} (dry run: nothing created)`);
  for (const d of dates) {
    const what = d.decision.kind === 'skip' ? `skip (${d.decision.reason})` : d.decision.kind === 'reprocess' ? `reprocess ${d.decision.run.runId} (${d.decision.run.state})` : 'create';
    out(`  ${iso(d.logicalDate)}  ${what}`);
  }
  if (dates.length > (req.maxDates ?? CONFIRM_ABOVE)) out(`  ${n(dates.length)} dates: more than ${n(CONFIRM_ABOVE)}, so the real run needs --yes`);
  out(`estimate: ${n(cost.tasks)} task(s) (${cost.tasksPerRun} per run), ${n(cost.requests)} orchestration requests, ${money(cost.usd)} at list prices (us-east-1)`);
  out(`  orchestration ${money(cost.parts.orchestrationUsd)}: ${n(cost.parts.wcu)} DynamoDB write units, ${n(cost.parts.rcu)} read units, SQS, Lambda and Scheduler requests, ` +
    'per task and per run as `npm run bench` measured them; an estimate (retries, branches and mapped tasks change it)');
  if (cost.durationFrom && cost.parts.gbSeconds !== undefined) {
    out(`  Lambda duration ${money(cost.parts.durationUsd ?? 0)}: ${cost.parts.gbSeconds.toFixed(1)} GB-s at ${cost.durationFrom.memoryMb} MB ` +
      `($${PRICES.lambdaGbSecondArm.usd} per GB-s, arm64), from ${cost.durationFrom.tries} tries of the last ${cost.durationFrom.runs} finished run(s); an estimate`);
  } else {
    out(`  Lambda duration: not estimated (no finished tries of ${dag.dagId} in this store); your tasks' own run time is on top`);
  }
  return 0;
}

function describeBackfill(b: Backfill): string {
  const state = b.completedAt !== undefined ? (b.cancelled ? 'cancelled' : 'completed') : b.paused ? 'paused' : 'running';
  return `backfill ${b.id} of ${b.dagId}: ${state}, ${b.handled}/${b.total} dates handled (${b.created} created, ${b.reprocessed} reprocessed, ${b.skipped} skipped), ${b.active} running, at most ${b.maxActiveRuns} at once`;
}

/**
 * On a stack or a dev: the dry run, or the creation of the backfill, which that engine
 * then runs (its tick and its runs' ends advance it).
 *
 * @example
 * await cmdBackfillOn(ports, { dag: 'etl_daily', from, to }, console.log);
 */
export async function cmdBackfillOn(p: Ports, o: BackfillOptions, out: Out): Promise<number> {
  const req = backfillRequest(o);
  if (o['dry-run']) return printDryRun(p, req, o, out);
  const b = await createBackfill(p, req);
  if (o.json) out(JSON.stringify(b));
  else out(describeBackfill(b));
  return 0;
}

/** One run as `airless run --json` lists it, with its run type. */
function runLine(x: RunResult) {
  return {
    dagId: x.run.dagId, runId: x.run.runId, runType: x.run.runType, state: x.run.state,
    logicalDate: new Date(x.run.logicalDate).toISOString(),
    durationMs: x.run.startedAt !== undefined && x.run.endedAt !== undefined ? x.run.endedAt - x.run.startedAt : null,
    tasks: taskRows(x),
  };
}

/**
 * The embedded runtime runs the whole backfill in this process (`--time-warp`: on a
 * virtual clock), then prints every run; exit 0 when every run succeeded, 1 otherwise.
 *
 * @example
 * process.exitCode = await cmdBackfillLocal('dags', { dag: 'etl_daily', from, to, timeWarp: true });
 */
export async function cmdBackfillLocal(dir: string, o: BackfillOptions & { timeWarp?: boolean; concurrency?: number; typecheck?: boolean }): Promise<number> {
  const req = backfillRequest(o);
  const { version, manifest, bundles } = await build(dir, o.typecheck ?? true);
  const spec = manifest.dags.find((d) => d.dagId === req.dagId);
  if (!spec) throw new NotFoundError(`unknown dag ${req.dagId} (dags: ${manifest.dags.map((d) => d.dagId).join(', ')})`);
  const clock = o.timeWarp ? new VirtualClock(Date.now()) : new SystemClock();
  const print = !o.json && !o['dry-run'];
  const out: Out = (l) => void process.stdout.write(`${l}\n`);
  const rt = new EmbeddedRuntime({
    bundles, clock, schedules: false, sensors: builtinSensors(), concurrency: o.concurrency ?? 8, log: terminalLog(!print),
    onEvent: print ? (e: StateEvent) => out(eventLine(e, clock.now())) : undefined,
  });
  await rt.register(version);
  // Asked for explicitly: a DAG paused on creation is backfilled all the same in this one-off process.
  await rt.ports.store.updateDag(req.dagId, { paused: false });
  if (o['dry-run']) return printDryRun(rt.ports, req, o, out);
  const started = Date.now();
  const virtualStart = clock.now();
  const b = await createBackfill(rt.ports, req);
  const outcome = await rt.runUntil(async () => (await rt.ports.store.getBackfill(b.id))?.completedAt !== undefined);
  const after = (await rt.ports.store.getBackfill(b.id))!;
  const results: RunResult[] = [];
  for (const run of await backfillRuns(rt.ports, b)) results.push(await resultOf(rt, run, spec, outcome));
  const wallMs = Date.now() - started;
  const virtualMs = clock.now() - virtualStart;
  if (o.json) {
    out(JSON.stringify({
      backfillId: b.id, dagId: b.dagId, runs: results.map(runLine),
      handled: after.handled, created: after.created, reprocessed: after.reprocessed, skipped: after.skipped,
      wallMs, virtualMs: o.timeWarp ? virtualMs : null,
    }));
  } else {
    if (results.length) out(`\n${runTable(results)}`);
    out(`\n${describeBackfill(after)}${outcome === 'stalled' ? ' (stalled: nothing left to run or wait for)' : ''}`);
    out(`${results.length} run(s), ${results.filter((r) => r.run.state === 'success').length} succeeded in ${formatDuration(wallMs)} of wall time${o.timeWarp ? `, ${formatDuration(virtualMs)} of virtual time` : ''}`);
  }
  return results.every((r) => r.run.state === 'success') && outcome === 'done' ? 0 : 1;
}
