/**
 * Backfill (Airflow 3's backfill, AIP-78): a run creator over a date range with its own
 * max-active-runs. Unlike Airflow, which creates every run up front and lets the
 * scheduler start them, the backfill record holds a cursor and creates each run only
 * when one of its slots is free: the run's put, the cursor's step and the slot are one
 * atomic write, so any number of engines can advance the same backfill at once and it
 * never has more than its max-active-runs running (issue apache/airflow#58752). Work per
 * run is flat: a step reads the record, the DAG and the date's possible runs, then writes
 * once. The tick (reconcile) advances every open backfill; a run's end asks for the next
 * one (flow/backfill-hooks.ts). docs/adr/0019-backfill.md.
 */
import { NotFoundError } from '../model/errors.js';
import type { DagRecord, DagRun } from '../model/types.js';
import type { Ports, RunPatch } from '../model/ports.js';
import { startFresh } from './settle.js';
import { freeEndedBackfillSlots } from './run-slots.js';
import { clearTasks } from './runs.js';
import { runTimeoutPatch } from './run-timeout.js';
import { BackfillConflictError, type Backfill, type ReprocessBehavior } from '../model/backfill.js';
import {
  backfillDates, backfillDone, backfillRun, candidateRunIds, checkBackfillRequest, CONFIRM_ABOVE, decideDate,
  MAX_BACKFILL_DATES, nextDate, rangeOf, type DateDecision,
} from '../rules/backfill.js';
import { InvalidInputError } from '../model/errors.js';

/** What a user asks for (the CLI's options, the REST API's BackfillPostBody). */
export interface BackfillRequest {
  dagId: string;
  fromDate: number;
  toDate: number;
  /** Default `none`. */
  reprocess?: ReprocessBehavior;
  /** Default: the DAG's maxActiveRuns. */
  maxActiveRuns?: number;
  reverse?: boolean;
  conf?: Record<string, unknown>;
  /** Default true (Airflow's API default). */
  runOnLatestVersion?: boolean;
  /** Refuse more dates than this (default 1,000; the CLI's `--yes` raises it to the ceiling). */
  maxDates?: number;
  /** How the refusal of too many dates says to confirm (`give --yes`). */
  confirmWith?: string;
}

/** What a backfill will do with one date (the dry run). */
export interface DatePlan {
  logicalDate: number;
  decision: DateDecision;
}

/** Dates one advance call handles (skips included) before it hands on to a fresh message. */
const STEPS_PER_CALL = 100;
/** A reprocessed run whose clear was cut short is cleared again after this long. */
const CLEARING_STALE_MS = 60_000;

/** The DAG and the range of a request, checked: unknown DAG, manual DAG, reversed range, no date, too many dates. */
async function plan(p: Ports, req: BackfillRequest): Promise<{ dag: DagRecord; range: ReturnType<typeof rangeOf>; dates: number[]; maxActiveRuns: number }> {
  const dag = await p.store.getDag(req.dagId);
  if (!dag) throw new NotFoundError(`unknown dag ${req.dagId}`);
  const maxActiveRuns = req.maxActiveRuns ?? dag.spec.maxActiveRuns;
  checkBackfillRequest(dag.spec, { reverse: req.reverse, reprocess: req.reprocess ?? 'none', maxActiveRuns });
  const range = rangeOf(dag.spec, req, p.clock.now());
  const cap = Math.min(req.maxDates ?? CONFIRM_ABOVE, MAX_BACKFILL_DATES);
  const dates = backfillDates(range, cap + 1);
  if (dates.length === 0) {
    throw new InvalidInputError(`dag ${req.dagId} has no schedule tick from ${iso(req.fromDate)} to ${iso(req.toDate)} that has already passed: nothing to backfill`);
  }
  if (dates.length > cap) {
    if (cap >= MAX_BACKFILL_DATES) throw new InvalidInputError(`the range has more than ${fmt(MAX_BACKFILL_DATES)} runs of dag ${req.dagId}, the most one backfill may have: split the range`);
    const n = backfillDates(range, MAX_BACKFILL_DATES + 1).length;
    throw new InvalidInputError(`the range has ${n > MAX_BACKFILL_DATES ? `over ${fmt(MAX_BACKFILL_DATES)}` : fmt(n)} runs of dag ${req.dagId}, more than ${fmt(cap)}: ${req.confirmWith ?? 'confirm'} to create them`);
  }
  return { dag, range, dates, maxActiveRuns };
}

const fmt = (n: number) => n.toLocaleString('en-US');

const iso = (ms: number) => new Date(ms).toISOString();

/** The runs that may exist for date `s` (their default ids: rules/backfill.ts). */
async function existingRuns(p: Ports, dagId: string, s: number): Promise<DagRun[]> {
  const runs = await Promise.all(candidateRunIds(s).map((id) => p.store.getRun(dagId, id)));
  return runs.filter((r): r is DagRun => r !== undefined);
}

/**
 * The dry run: each date of the range and what the backfill would do with it now (create
 * a run, reprocess the existing one, or skip it), without writing anything.
 *
 * @example
 * const { dates } = await previewBackfill(p, { dagId: 'etl_daily', fromDate, toDate });
 */
export async function previewBackfill(p: Ports, req: BackfillRequest): Promise<{ dag: DagRecord; dates: DatePlan[]; maxActiveRuns: number }> {
  const { dag, dates, maxActiveRuns } = await plan(p, req);
  const out: DatePlan[] = [];
  // 25 dates at a time: three reads each, not thousands in flight.
  for (let i = 0; i < dates.length; i += 25) {
    const chunk = await Promise.all(dates.slice(i, i + 25).map(async (s) => ({
      logicalDate: s, decision: decideDate(await existingRuns(p, dag.dagId, s), req.reprocess ?? 'none'),
    })));
    out.push(...chunk);
  }
  return { dag, dates: out, maxActiveRuns };
}

/**
 * Creates a backfill and starts its first runs. Refuses bad input before writing
 * anything (unknown DAG, no schedule, from after to, no date, too many dates, another
 * open backfill of the DAG).
 *
 * @example
 * const b = await createBackfill(p, { dagId: 'etl_daily', fromDate: Date.parse('2026-01-01'), toDate: Date.parse('2026-01-31') });
 */
export async function createBackfill(p: Ports, req: BackfillRequest): Promise<Backfill> {
  const { range, dates, maxActiveRuns } = await plan(p, req);
  const now = p.clock.now();
  const b: Backfill = {
    id: await p.store.nextBackfillId(),
    dagId: req.dagId,
    fromDate: req.fromDate,
    toDate: req.toDate,
    reprocess: req.reprocess ?? 'none',
    maxActiveRuns,
    reverse: req.reverse ?? false,
    conf: req.conf ?? {},
    runOnLatestVersion: req.runOnLatestVersion ?? true,
    schedule: range.schedule,
    ...(range.createDataIntervals ? { createDataIntervals: true } : {}),
    anchor: range.anchor,
    createdAt: now,
    updatedAt: now,
    total: dates.length,
    handled: 0, created: 0, reprocessed: 0, skipped: 0, active: 0,
    paused: false,
  };
  const r = await p.store.createBackfill(b);
  if (!r.ok) {
    const open = r.current ? ` (backfill ${r.current.id})` : '';
    throw new BackfillConflictError(`dag ${req.dagId} has a backfill running already${open}: there can be one per DAG; cancel it or wait for it to end`);
  }
  p.log.info('backfill created', { backfillId: b.id, dagId: b.dagId, dates: b.total, maxActiveRuns });
  return (await advanceBackfill(p, b.id)) ?? r.item;
}

/**
 * Starts the backfill's next runs while it has free slots and dates left, and completes
 * it when every date is handled and none of its runs runs. Safe to call from any number
 * of engines at once: each step is one conditional write on the cursor. Returns the
 * backfill as it is after.
 *
 * @example
 * await advanceBackfill(p, 3);
 */
export async function advanceBackfill(p: Ports, id: number): Promise<Backfill | undefined> {
  let freed = false;
  for (let steps = 0; ; steps++) {
    const b = await p.store.getBackfill(id);
    if (!b || b.completedAt !== undefined) return b;
    if (b.clearing !== undefined && p.clock.now() - (b.clearingAt ?? 0) >= CLEARING_STALE_MS) await finishClear(p, b, b.clearing);
    if (b.paused) return b;
    const next = nextDate(b, b.cursor);
    // Slots held by runs that ended (a crash between a run's end and its give-back, flow/run-slots.ts)
    // are given back here, where the backfill would otherwise wait: read only then, at most maxActiveRuns runs.
    const waits = next === undefined ? !backfillDone(b) && b.active > 0 : b.active >= b.maxActiveRuns;
    if (waits && !freed) {
      freed = true;
      if ((await freeEndedBackfillSlots(p, b)) > 0) continue;
    }
    if (next === undefined) return backfillDone(b) ? complete(p, b) : b;
    if (b.active >= b.maxActiveRuns) return b;
    if (steps >= STEPS_PER_CALL) {
      // A long stretch of dates that already have runs: hand on instead of looping here.
      await p.queue.send([{ kind: 'backfill', backfillId: id }]);
      return b;
    }
    const dag = await p.store.getDag(b.dagId);
    if (!dag) {
      p.log.warn('backfill cancelled: its dag is gone', { backfillId: id, dagId: b.dagId });
      const r = await p.store.completeBackfill(id, p.clock.now(), true);
      return r.ok ? r.item : b;
    }
    // As in Airflow, no run of a paused DAG starts, a backfill's included.
    if (dag.paused) return b;
    const outcome = await stepOnce(p, b, dag, next);
    if (outcome === 'full') return (await p.store.getBackfill(id)) ?? b;
  }
}

/** Handles date `s`: one conditional write. `moved` also when another engine moved first. */
async function stepOnce(p: Ports, b: Backfill, dag: DagRecord, s: number): Promise<'moved' | 'full'> {
  const now = p.clock.now();
  const decision = decideDate(await existingRuns(p, b.dagId, s), b.reprocess);
  const base = { from: b.cursor, to: s, now };
  if (decision.kind === 'skip') {
    const r = await p.store.stepBackfill(b.id, { ...base, outcome: 'skipped' });
    if (r.ok) p.log.info('backfill skipped a date', { backfillId: b.id, dagId: b.dagId, logicalDate: iso(s), reason: decision.reason });
    return 'moved';
  }
  if (decision.kind === 'create') {
    const run = backfillRun(b, s, dag.bundleVersion, now);
    Object.assign(run, runTimeoutPatch(dag.spec, run, now));
    const r = await p.store.stepBackfill(b.id, { ...base, outcome: 'created' }, { put: run });
    if (!r.ok) return lost(p, r.reason);
    p.metrics.count('RunsCreated');
    p.log.info('run created', { dagId: run.dagId, runId: run.runId, runType: 'backfill', backfillId: b.id });
    // A run that never ran has no task to look at: its roots start without a listing (docs/adr/0020).
    await startFresh(p, { run, spec: dag.spec });
    return 'moved';
  }
  if (b.clearing !== undefined) return 'full'; // one reprocessed run is cleared at a time
  const old = decision.run;
  const patch: RunPatch = {
    state: 'running', runType: 'backfill', backfillId: b.id, conf: b.conf, queuedAt: now, startedAt: now,
    endedAt: null, expiresAt: null, error: null, ...runTimeoutPatch(dag.spec, old, now),
    ...(b.runOnLatestVersion ? { bundleVersion: dag.bundleVersion } : {}),
  };
  const r = await p.store.stepBackfill(b.id, { ...base, outcome: 'reprocessed', clearing: old.runId }, {
    reopen: { dagId: old.dagId, runId: old.runId, expectState: old.state, patch },
  });
  if (!r.ok) return lost(p, r.reason);
  p.log.info('backfill reprocesses a run', { backfillId: b.id, dagId: b.dagId, runId: old.runId, was: old.state });
  await finishClear(p, b, old.runId);
  return 'moved';
}

function lost(p: Ports, reason: 'backfill' | 'slots' | 'run'): 'moved' | 'full' {
  if (reason === 'slots') return 'full';
  p.metrics.count('LostRaces');
  return 'moved';
}

/**
 * Clears every task of a reprocessed run so it runs again (Airflow's `_handle_clear_run`),
 * then drops the backfill's mark. A crash in between leaves the mark, and the next
 * advance clears again once the mark is stale.
 */
async function finishClear(p: Ports, b: Backfill, runId: string): Promise<void> {
  const run = await p.store.getRun(b.dagId, runId);
  if (run) {
    const dag = await p.store.getDag(b.dagId);
    const ids = (dag?.spec ?? { tasks: [] }).tasks.map((t) => t.taskId);
    await clearTasks(p, b.dagId, runId, ids, { downstream: false }).catch((err: unknown) => {
      p.log.error('backfill could not clear a reprocessed run', { backfillId: b.id, dagId: b.dagId, runId, error: String(err) });
    });
  }
  await p.store.updateBackfill(b.id, { clearing: null, clearingAt: null }, { clearing: runId });
}

async function complete(p: Ports, b: Backfill): Promise<Backfill> {
  const r = await p.store.completeBackfill(b.id, p.clock.now());
  if (r.ok) {
    p.log.info('backfill completed', { backfillId: b.id, dagId: b.dagId, created: r.item.created, reprocessed: r.item.reprocessed, skipped: r.item.skipped });
  }
  return r.ok ? r.item : (r.current ?? b);
}

/**
 * The tick's part: advances every open backfill (one read finds them). One backfill's
 * failure is logged, never the tick's.
 *
 * @example
 * await tickBackfills(p);
 */
export async function tickBackfills(p: Ports): Promise<void> {
  try {
    for (const id of await p.store.listOpenBackfills()) {
      await advanceBackfill(p, id).catch((err: unknown) => p.log.error('reconcile could not advance a backfill', { backfillId: id, error: String(err) }));
    }
  } catch (err) {
    p.log.error('reconcile could not list backfills', { error: String(err) });
  }
}

async function needBackfill(p: Ports, id: number): Promise<Backfill> {
  const b = await p.store.getBackfill(id);
  if (!b) throw new NotFoundError(`unknown backfill ${id}`);
  return b;
}

/**
 * Pauses (no new run starts; running ones go on) or unpauses a backfill, as Airflow's
 * `pause_backfill`/`unpause_backfill`. A completed backfill is refused (Airflow's 409).
 *
 * @example
 * await setBackfillPaused(p, 3, true);
 */
export async function setBackfillPaused(p: Ports, id: number, paused: boolean): Promise<Backfill> {
  const b = await needBackfill(p, id);
  if (b.completedAt !== undefined) throw new BackfillConflictError(`backfill ${id} is already completed`);
  const r = await p.store.updateBackfill(id, { paused, updatedAt: p.clock.now() }, { open: true });
  if (!r.ok) throw new BackfillConflictError(`backfill ${id} is already completed`);
  return paused ? r.item : ((await advanceBackfill(p, id)) ?? r.item);
}

/**
 * Cancels a backfill as Airflow's `cancel_backfill`: no new run starts, its queued runs
 * fail, its running runs run to their end, and it is completed now.
 *
 * @example
 * await cancelBackfill(p, 3);
 */
export async function cancelBackfill(p: Ports, id: number): Promise<Backfill> {
  const b = await needBackfill(p, id);
  if (b.completedAt !== undefined) throw new BackfillConflictError(`backfill ${id} is already completed`);
  await p.store.updateBackfill(id, { paused: true, updatedAt: p.clock.now() }, { open: true });
  // Queued runs of a backfill are only cleared ones waiting for a slot: the DAG's queued runs are few.
  for (const run of await p.store.listRuns(b.dagId, { states: ['queued'] })) {
    if (run.backfillId !== id) continue;
    await p.store.updateRun(run.dagId, run.runId, { state: 'queued' }, { state: 'failed', endedAt: p.clock.now() });
  }
  const r = await p.store.completeBackfill(id, p.clock.now(), true);
  if (!r.ok) throw new BackfillConflictError(`backfill ${id} is already completed`);
  p.log.info('backfill cancelled', { backfillId: id, dagId: b.dagId });
  return r.item;
}

/** The runs of a backfill, oldest logical date first (reads the DAG's run history: for people, not the hot path). */
export async function backfillRuns(p: Ports, b: Pick<Backfill, 'id' | 'dagId'>): Promise<DagRun[]> {
  const runs = await p.store.listRuns(b.dagId);
  return runs.filter((r) => r.backfillId === b.id).sort((x, y) => x.logicalDate - y.logicalDate);
}
