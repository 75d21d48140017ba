/**
 * DAG runs: creation (at most once per run id), schedules and catch-up, manual triggers,
 * pause, clear, and bundle registration. Starting runs under maxActiveRuns is part of
 * settling (settle.ts), since a run's end starts the next.
 */
import { downstreamClosure, loadRunCtx, type RunCtx } from '../rules/dag-index.js';

export { downstreamClosure, upstreamClosure } from '../rules/dag-index.js';
import { InvalidInputError, NotFoundError } from '../model/errors.js';
import { advanceRun, keyOf, startFresh, startQueuedRuns } from './settle.js';
import { runTimeoutFields } from './run-timeout.js';
import { specOrEndOrphan } from './orphan-run.js';
import { transition } from '../write/transition.js';
import { baseTaskId } from '../rules/mapping-ids.js';
import { clearInstances, instancesToClear, queueCleared } from './mapping-clear.js';
import type { DagRecord, DagRun, DagSpec, Manifest, RunType } from '../model/types.js';
import type { Cas, Ports } from '../model/ports.js';
import { isRunTerminal, isTerminal } from '../model/states.js';
import { armOnce, dataInterval, dueTicks } from '../rules/timetable.js';
import { registerPools } from './pools.js';
import { withSetupsAndTeardowns } from '../rules/setup-teardown.js';
import { uncountEnds } from './run-ends.js';
import { assertRunId } from '../rules/ids.js';
import { depthProblem } from '../rules/values.js';
import { registerAssets, requestAssetEvaluation } from './asset-registry.js';
import { clearWaitFields, clearsWait } from './event-wait.js';
import { checkRunParams } from '../rules/params.js';

export interface TriggerOptions {
  runId?: string;
  /** Epoch ms; defaults to now. */
  logicalDate?: number;
  /**
   * Scheduled runs: the tick that creates the run (Airflow's run_after, epoch ms). Its
   * logical date and data interval follow from the DAG's timetable; `logicalDate` is ignored.
   */
  runAfter?: number;
  conf?: Record<string, unknown>;
  runType?: RunType;
  /** Fields set on the run as given (an asset-triggered run's events and data interval: flow/assets.ts). */
  fields?: Partial<Pick<DagRun, 'assetEvents' | 'dataIntervalStart' | 'dataIntervalEnd' | 'waiter'>>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Creates a run (a conditional put: a duplicate is a no-op). Below maxActiveRuns it takes
 * its slot first and is created already running (flow/run-slots.ts); otherwise it is
 * created queued and waits for a slot.
 */
export async function createRun(p: Ports, dag: DagRecord, opts: TriggerOptions = {}): Promise<Cas<DagRun>> {
  const now = p.clock.now();
  const runType = opts.runType ?? 'manual';
  // A run created by its schedule is dated by the timetable (timetable.ts); any other run
  // has an empty interval at its logical date, as a manual run in Airflow 3.
  const interval = opts.runAfter !== undefined
    ? dataInterval(dag.spec.schedule, opts.runAfter, dag.spec.createDataIntervals)
    : { start: opts.logicalDate ?? now, end: opts.logicalDate ?? now };
  const logicalDate = interval.start;
  const run: DagRun = {
    dagId: dag.dagId,
    runId: opts.runId ?? `${runType}__${iso(logicalDate)}`,
    state: 'queued',
    runType,
    logicalDate,
    dataIntervalStart: interval.start,
    dataIntervalEnd: interval.end,
    conf: opts.conf ?? {},
    bundleVersion: dag.bundleVersion,
    queuedAt: now,
    ...opts.fields,
  };
  const take = dag.paused ? 'full' : await p.store.takeRunSlot(dag.dagId, run.runId, dag.spec.maxActiveRuns, now);
  if (take === 'taken' || take === 'held') {
    const r = await p.store.createRun({ ...run, state: 'running', startedAt: now, ...runTimeoutFields(dag.spec, now) });
    // A duplicate: the slot taken here for it goes back (the existing run holds its own, if any).
    if (!r.ok) {
      if (take === 'taken') await p.store.releaseRunSlot(dag.dagId, run.runId);
      return r;
    }
    created(p, r.item);
    const spec = await specOrEndOrphan(p, r.item);
    if (spec) await startFresh(p, { run: r.item, spec });
    return r;
  }
  const r = await p.store.createRun(run);
  if (r.ok) {
    created(p, r.item);
    await startQueuedRuns(p, dag.dagId, { created: r.item, dag });
  }
  return r;
}

function created(p: Ports, run: DagRun): void {
  p.metrics.count('RunsCreated');
  p.log.info('run created', { dagId: run.dagId, runId: run.runId, runType: run.runType });
}

/** A manual run (`airless trigger`), like Airflow's `dags trigger`. */
export async function triggerRun(p: Ports, dagId: string, opts: TriggerOptions = {}): Promise<DagRun> {
  // Checked before anything is stored: an id the queue message format refused would leave the run stuck.
  if (opts.runId !== undefined) assertRunId(opts.runId, opts.runType ?? 'manual');
  const deep = depthProblem(opts.conf, undefined, 'conf');
  if (deep) throw new InvalidInputError(`conf is ${deep}: a run's conf is handed to every task`);
  const dag = await p.store.getDag(dagId);
  if (!dag) throw new NotFoundError(`unknown dag ${dagId}`);
  checkRunParams(dag.spec, opts.conf);
  const r = await createRun(p, dag, { ...opts, runType: opts.runType ?? 'manual' });
  if (!r.ok) throw new InvalidInputError(`run ${opts.runId ?? ''} of dag ${dagId} exists already`);
  // A run created queued may have been started by the same call.
  return r.item.state === 'queued' ? ((await p.store.getRun(dagId, r.item.runId)) ?? r.item) : r.item;
}

/**
 * Creates the runs a DAG's schedule owes at `now` (catch-up included), then moves the
 * DAG's `nextTickAt` forward with a compare-and-set. Runs are created before the
 * pointer moves, so a crash in between repeats a (no-op) creation, never skips one.
 * Returns the next tick, for runtimes that arm a timer for it.
 */
export async function scheduleDag(p: Ports, dagId: string, maxRuns = 100): Promise<number | undefined> {
  const dag = await p.store.getDag(dagId);
  if (!dag || dag.paused || !dag.spec.schedule) return undefined;
  const now = p.clock.now();
  const due = dueTicks(dag.spec, { nextTickAt: dag.nextTickAt, now });
  const ticks = due.ticks.slice(0, maxRuns);
  for (const tick of ticks) {
    await createRun(p, dag, { runType: 'scheduled', runAfter: tick });
  }
  const next = ticks.length < due.ticks.length ? due.ticks[ticks.length] : due.nextTickAt;
  if (next !== dag.nextTickAt) {
    // No next tick empties the field (an `@once` DAG that fired: timetable.ts onceTick).
    const r = await p.store.updateDag(dagId, { nextTickAt: next ?? null }, dag.nextTickAt ?? null);
    if (!r.ok) p.metrics.count('LostRaces');
  }
  return next;
}

/** Registers a bundle's DAGs: adds new ones, updates changed ones, removes missing ones. */
export async function registerManifest(
  p: Ports,
  version: string,
  manifest: Manifest,
): Promise<{ added: string[]; updated: string[]; removed: string[] }> {
  const now = p.clock.now();
  const out = { added: [] as string[], updated: [] as string[], removed: [] as string[] };
  await registerPools(p, manifest.dags, manifest.pools ?? []);
  const existing = new Map((await p.store.listDags()).map((d) => [d.dagId, d]));
  const before = new Map(existing);
  for (const spec of manifest.dags) {
    const prev = existing.get(spec.dagId);
    existing.delete(spec.dagId);
    if (!prev) {
      await p.store.putDag({ dagId: spec.dagId, bundleVersion: version, spec, paused: spec.pausedOnCreation, updatedAt: now, ...armOnce(spec, now) });
      out.added.push(spec.dagId);
    } else if (prev.bundleVersion !== version) {
      const patch = { bundleVersion: version, spec, updatedAt: now };
      // A changed schedule starts afresh from its own start date and catch-up rule.
      await p.store.updateDag(spec.dagId, scheduleChanged(prev.spec, spec) ? { ...patch, nextTickAt: null, ...armOnce(spec, now) } : patch);
      out.updated.push(spec.dagId);
    }
  }
  for (const dagId of existing.keys()) {
    await p.store.deleteDag(dagId);
    out.removed.push(dagId);
  }
  await registerAssets(p, manifest, { removed: out.removed, before });
  return out;
}

function scheduleChanged(a: DagSpec, b: DagSpec): boolean {
  return JSON.stringify([a.schedule, a.startDate, a.catchup]) !== JSON.stringify([b.schedule, b.startDate, b.catchup]);
}

export async function setPaused(p: Ports, dagId: string, paused: boolean): Promise<void> {
  const r = await p.store.updateDag(dagId, { paused, updatedAt: p.clock.now() });
  if (!r.ok && !r.current) throw new NotFoundError(`unknown dag ${dagId}`);
  if (!paused) {
    await startQueuedRuns(p, dagId);
    await scheduleDag(p, dagId);
    await requestAssetEvaluation(p, dagId);
  }
}


/**
 * Clears finished tasks (and, by default, their downstream) so they run again, as
 * `airflow tasks clear` does: retries count afresh, a finished run goes back to queued.
 */
export async function clearTasks(
  p: Ports,
  dagId: string,
  runId: string,
  taskIds: readonly string[],
  opts: { downstream?: boolean } = {},
): Promise<string[]> {
  const rc = await loadRunCtx(p, dagId, runId);
  if (!rc) throw new NotFoundError(`unknown run ${dagId}/${runId}`);
  // A mapped instance (`size#3`) clears as itself plus, like a task, its mapped task's downstream (mapping-clear.ts).
  const roots = taskIds.map(baseTaskId);
  const set = withSetupsAndTeardowns(rc.spec, opts.downstream === false ? new Set(roots) : downstreamClosure(rc.spec, roots));
  const tis = await p.store.listTasks(dagId, runId);
  const instances = await clearInstances(p, rc, instancesToClear(rc.spec, tis, taskIds, opts.downstream !== false));
  const cleared: string[] = instances.map((ti) => ti.taskId);
  for (const ti of tis) {
    if (!set.has(ti.taskId) || !(isTerminal(ti.state) || clearsWait(ti))) continue;
    const forgetUpstream = Object.keys(ti.upstream).filter((u) => set.has(baseTaskId(u)));
    const r = await transition(p, rc, ti, 'scheduled', clearWaitFields(ti), { forgetUpstream }); // a wait's job is stopped (flow/event-wait.ts)
    if (r.ok) cleared.push(ti.taskId);
  }
  await queueCleared(p, rc, instances);
  // A counted run forgets the ends of what was cleared before it reopens (flow/run-ends.ts).
  await uncountEnds(p, rc, cleared);
  await reopenRun(p, rc);
  return cleared;
}

async function reopenRun(p: Ports, rc: RunCtx): Promise<void> {
  if (isRunTerminal(rc.run.state)) {
    const r = await p.store.updateRun(rc.run.dagId, rc.run.runId, { state: rc.run.state }, { state: 'queued', endedAt: null, expiresAt: null, ...(rc.run.error !== undefined ? { error: null } : {}) });
    if (r.ok) await startQueuedRuns(p, rc.run.dagId);
    return;
  }
  await advanceRun(p, rc);
}

export { keyOf, startQueuedRuns };
