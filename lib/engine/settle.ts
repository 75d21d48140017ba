/**
 * Settling downstream (fast follow) and run progress: recording an upstream's outcome on
 * each downstream, deciding trigger rules exactly once, queueing ready tasks (or running
 * one eagerly), cascading skips and upstream failures, completing runs and starting
 * queued runs under maxActiveRuns. Every write is a compare-and-set, so the
 * worker that finishes a task, a concurrent worker and any number of reconcile ticks
 * can all run these functions on the same run at once.
 */
import { countsSlots, downstreamClosure, taskSpec, type RunCtx } from './dag-index.js';
import type { DagRun, TaskInstance, TaskSpec } from './model.js';
import type { Ports } from './ports.js';
import { decideRunState } from './run-state.js';
import { isTerminal, type TaskState, type UpstreamOutcome } from './states.js';
import { evaluateTriggerRule } from './trigger-rules.js';
import { armCallback, runCallbackMessage, runEvent, sendCallback } from './callbacks.js';
import { startWaiting } from './sensor-start.js';
import { annotate, createTask, keyOf, leaseMs, newToken, retainUntil, transition } from './transition.js';
import { limitsApply } from './pool-limits.js';
import { queueLimited } from './pools.js';
import { shortCircuitChosen, skipBelowShortCircuit } from './short-circuit.js';
import { nextWaiting, pastAllows } from './depends-on-past.js';
import { runTimeoutPatch } from './run-timeout.js';
import { specOrEndOrphan } from './orphan-run.js';
import { indirectSetups, setupScopeDecision } from './setup-teardown.js';
import { hasMappedTask, isInstanceId, mappedView } from './mapping-ids.js';
import { runSlot } from './rules/backfill.js';
import { afterRunEnded } from './flow/backfill-hooks.js';
import { wakeRunWaiter } from './flow/trigger-dag-run-wake.js';
import { noteRunSuccess } from './flow/prev-success.js';
import { reviewInstances, settleInstance, type SettleOps } from './mapping-settle.js';

export { keyOf, retainUntil };

/** True when a task write that enters or leaves queued/running moves the run's slot counter. */
export function holdsSlots(rc: RunCtx): boolean {
  return countsSlots(rc.spec);
}

function outcomeOf(state: TaskState): UpstreamOutcome {
  if (state === 'success' || state === 'failed' || state === 'upstream_failed') return state;
  return 'skipped';
}

/**
 * Queues a task try: a conditional write, then one message. From `scheduled` and
 * `up_for_retry` this starts a new try; from `deferred` it resumes the same try.
 * When maxActiveTasks is reached the task stays `scheduled` with `ready` set, and the
 * next task to leave `running` wakes it.
 */
export async function queueTask(p: Ports, rc: RunCtx, ti: TaskInstance): Promise<boolean> {
  if (limitsApply(taskSpec(rc.spec, ti.taskId), ti.taskId)) return queueLimited(p, rc, ti);
  const r = await transition(p, rc, ti, 'queued');
  if (r.ok) {
    await p.queue.send([{ kind: 'task', dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: r.item.tryNumber }]);
    return true;
  }
  if (r.reason === 'slots') {
    // Woken by the next task that leaves queued/running (wakeReady).
    if (ti.state === 'scheduled') await annotate(p, ti, { ready: true });
    else await transition(p, rc, ti, 'scheduled', { ready: true });
  }
  return false;
}

/**
 * Starts a try of a task whose rule passed or whose retry is due: a batched (or time)
 * sensor starts waiting with no worker, anything else is queued.
 */
export async function startTry(p: Ports, rc: RunCtx, ti: TaskInstance): Promise<void> {
  const t = taskSpec(rc.spec, ti.taskId);
  if (t.kind === 'sensor' && t.sensor && (t.sensor.mode === 'batched' || t.sensor.type === 'time')) {
    await startWaiting(p, rc, ti, t);
  } else {
    await queueTask(p, rc, ti);
  }
}

/** Applies the trigger rule to a `scheduled` task, at most once per task and try. */
export async function decideTask(p: Ports, rc: RunCtx, ti: TaskInstance): Promise<void> {
  if (ti.state !== 'scheduled' || rc.run.state !== 'running') return;
  const t = taskSpec(rc.spec, ti.taskId);
  const decision = (await setupScopeDecision(p, rc, t)) ?? evaluateTriggerRule(t.triggerRule, ...mappedView(rc.spec, t, ti.upstream), t.teardown?.setups);
  if (decision === 'wait') return;
  if (decision === 'run') {
    if (t.dependsOnPast && !(await pastAllows(p, rc, t))) return; // woken when the past instance ends
    await startTry(p, rc, ti);
    return;
  }
  const state: TaskState = decision === 'skip' ? 'skipped' : 'upstream_failed';
  const r = await transition(p, rc, ti, state);
  if (!r.ok) return;
  await afterTerminal(p, rc, ti.taskId, state);
}

/**
 * Records `taskId`'s outcome on each direct downstream and decides those whose rule
 * became decidable. `chosen` lists the downstreams a branch task followed.
 * Returns true when the run may have finished (no downstream was left to decide).
 */
export async function settleDownstream(
  p: Ports,
  rc: RunCtx,
  taskId: string,
  state: TaskState,
  chosen?: readonly string[],
): Promise<boolean> {
  const t = taskSpec(rc.spec, taskId);
  if (t.downstream.length === 0) return true;
  let mayBeDone = false;
  const followed = chosen && state === 'success' ? followedBy(rc, chosen) : undefined;
  await Promise.all(
    t.downstream.map(async (d) => {
      const outcome: UpstreamOutcome = followed && !followed.has(d) ? 'branch_skipped' : outcomeOf(state);
      if (await settleOnlyUpstream(p, rc, d, taskId, outcome)) return;
      const item = await p.store.recordUpstream(keyOf(rc, d), taskId, outcome);
      if (item.state === 'scheduled') await decideTask(p, rc, item);
      else mayBeDone = true;
    }),
  );
  return mayBeDone;
}

/**
 * A downstream whose only upstream just finished is decided by that outcome alone, so it
 * is created already decided, in one conditional put, instead of a record write and then
 * a decision write (a chain costs one write less per task). When the item exists (a
 * repair, a clear) the put fails and the general path runs. Not for sensors or when the
 * maxActiveTasks counter must move with the write.
 */
async function settleOnlyUpstream(p: Ports, rc: RunCtx, taskId: string, upstreamId: string, outcome: UpstreamOutcome): Promise<boolean> {
  const t = taskSpec(rc.spec, taskId);
  if (t.upstream.length !== 1 || t.kind === 'sensor' || countsSlots(rc.spec) || limitsApply(t, t.taskId) || rc.run.state !== 'running' || t.dependsOnPast || indirectSetups(rc.spec, t).length > 0) return false;
  const decision = evaluateTriggerRule(t.triggerRule, t.upstream, { [upstreamId]: outcome }, t.teardown?.setups);
  if (decision === 'wait') return false;
  const upstream = { [upstreamId]: outcome };
  if (decision === 'run') {
    if (takeEagerSlot(p, rc, t)) {
      // Created already claimed by this worker, which runs it next (see handleTask).
      const r = await createTask(p, rc, t, 'running', upstream, { owner: newToken(p) });
      rc.follow!.taken = r.ok;
      if (!r.ok) return false;
      rc.follow!.next = r.item;
      p.metrics.count('EagerFollows');
      return true;
    }
    const r = await createTask(p, rc, t, 'queued', upstream);
    if (!r.ok) return false;
    await p.queue.send([{ kind: 'task', dagId: rc.run.dagId, runId: rc.run.runId, taskId, tryNumber: 1 }]);
    return true;
  }
  const state = decision === 'skip' ? 'skipped' : 'upstream_failed';
  const r = await createTask(p, rc, t, state, upstream);
  if (!r.ok) return false;
  await afterTerminal(p, rc, taskId, state);
  return true;
}

/**
 * Eager follow (as Temporal's eager activities): a worker that just finished a task runs
 * one follow-up task of the same run itself, skipping a queue round trip, while it has
 * budget and time left. One per finished task, so fan-out siblings still go through the
 * queue to other workers. The reservation is synchronous: concurrent settles of siblings
 * cannot both take it.
 */
function takeEagerSlot(p: Ports, rc: RunCtx, t: TaskSpec): boolean {
  const f = rc.follow;
  if (!f || f.taken || f.budget <= 0) return false;
  if (p.remainingMs && p.remainingMs() < leaseMs(p, t)) return false;
  f.taken = true;
  f.budget -= 1;
  return true;
}

/**
 * The tasks a branch follows: the chosen ones and everything downstream of them. As in
 * Airflow's `skip_all_except`, a direct downstream of the branch that is also downstream
 * of a chosen task (the join of an empty branch) is not skipped by the branch.
 */
function followedBy(rc: RunCtx, chosen: readonly string[]): Set<string> {
  return downstreamClosure(rc.spec, chosen);
}

/** Everything that follows a task reaching a terminal state. */
export async function afterTerminal(
  p: Ports,
  rc: RunCtx,
  taskId: string,
  state: TaskState,
  chosen?: readonly string[],
): Promise<void> {
  p.metrics.count(state === 'success' ? 'TaskSucceeded' : state === 'failed' ? 'TaskFailed' : 'TaskSkipped');
  if (isInstanceId(taskId)) return settleInstance(p, rc, taskId, state, MAPPING_OPS);
  const mayBeDone = await passOn(p, rc, taskId, state, chosen);
  if (mayBeDone) await completeRunIfDone(p, rc);
  const waiting = await nextWaiting(p, rc, taskId, state);
  if (waiting) await decideTask(p, waiting.rc, waiting.ti);
}

/** Settles downstream; a falsy short-circuit first skips all below it (short-circuit.ts), whose outcomes then follow. */
async function passOn(p: Ports, rc: RunCtx, taskId: string, state: TaskState, chosen?: readonly string[]): Promise<boolean> {
  const skipped = await skipBelowShortCircuit(p, rc, taskId, state, chosen);
  let mayBeDone = await settleDownstream(p, rc, taskId, state, chosen);
  for (const id of skipped) mayBeDone = (await settleDownstream(p, rc, id, 'skipped')) || mayBeDone;
  return mayBeDone;
}

/** Gives freed maxActiveTasks slots to tasks waiting with `ready` set. */
export async function wakeReady(p: Ports, rc: RunCtx): Promise<void> {
  if (!countsSlots(rc.spec)) return;
  const tis = await p.store.listTasks(rc.run.dagId, rc.run.runId);
  for (const ti of tis) {
    if (ti.state === 'scheduled' && ti.ready && !(await queueTask(p, rc, ti))) return;
  }
}

/** Completes the run when every task is terminal. Safe to call any number of times. */
export async function completeRunIfDone(p: Ports, rc: RunCtx, tis?: TaskInstance[]): Promise<boolean> {
  if (rc.run.state !== 'running') return false;
  const tasks = tis ?? (await p.store.listTasks(rc.run.dagId, rc.run.runId));
  const state = decideRunState(rc.spec, tasks);
  if (state === 'running') return false;
  const now = p.clock.now();
  const retention = p.config.runRetentionMs;
  const event = runEvent(rc.spec, state);
  const callback = event && runCallbackMessage(rc, event);
  await armCallback(p, callback);
  const r = await p.store.updateRun(
    rc.run.dagId,
    rc.run.runId,
    { state: 'running' },
    { state, endedAt: now, expiresAt: retention > 0 ? Math.floor((now + retention) / 1000) : null },
    runSlot(rc.run, -1),
  );
  if (!r.ok) return false;
  rc.run = r.item;
  await noteRunSuccess(p, rc.run); // before a queued run can start and read it
  await sendCallback(p, callback);
  p.metrics.count(state === 'success' ? 'RunsSucceeded' : 'RunsFailed');
  p.log.info('run finished', { dagId: rc.run.dagId, runId: rc.run.runId, state });
  await startQueuedRuns(p, rc.run.dagId, { ended: true });
  await afterRunEnded(p, rc.run);
  await wakeRunWaiter(p, rc.run);
  return true;
}

/**
 * Brings a running run up to date from what the store holds: creates missing root
 * tasks, records outcomes a crashed worker did not pass on, decides undecided tasks and
 * completes the run. Called when a run starts and by every reconcile tick; idempotent.
 * `review` looks at queued and running tries (reconcile passes the recovery of lost
 * messages and expired leases, recover.ts; a run that just started has none to review).
 */
export async function advanceRun(p: Ports, rc: RunCtx, review?: (ti: TaskInstance) => Promise<unknown>): Promise<void> {
  if (rc.run.state !== 'running') return;
  const tis = await p.store.listTasks(rc.run.dagId, rc.run.runId);
  const byId = new Map(tis.map((t) => [t.taskId, t]));
  const work: Promise<unknown>[] = [];
  for (const t of rc.spec.tasks) {
    const ti = byId.get(t.taskId);
    if (!ti) {
      // `always` does not wait for anything (Airflow passes its dependency at once).
      if (t.upstream.length === 0 || t.triggerRule === 'always') work.push(createRoot(p, rc, t.taskId));
      continue;
    }
    if (ti.state === 'scheduled') {
      work.push(decideTask(p, rc, ti));
    } else if (ti.state === 'queued' || ti.state === 'running') {
      if (review) work.push(review(ti));
    } else if (isTerminal(ti.state)) {
      const missing = t.downstream.filter((d) => byId.get(d)?.upstream[t.taskId] === undefined);
      if (missing.length > 0) work.push(repairFollow(p, rc, ti, missing));
    }
  }
  // Only while a mapped task runs: an empty `work` lets a finished run complete below.
  if (review && hasMappedTask(rc.spec) && tis.some((t) => t.mapLength !== undefined && t.state === 'running')) work.push(reviewInstances(p, rc, tis, review, MAPPING_OPS));
  await Promise.all(work);
  if (work.length === 0) await completeRunIfDone(p, rc, tis);
}

/** What mapping-settle.ts calls back (it cannot import this module). */
const MAPPING_OPS: SettleOps = { decideTask, afterTerminal, queueTask, wakeReady };

/**
 * Creates a task that may run as soon as the run does (a root, or an `always` task). A
 * plain task is created already queued, in one conditional put (one write fewer per
 * run); a sensor, or a task under a maxActiveTasks counter, is created `scheduled` and
 * decided as usual.
 */
async function createRoot(p: Ports, rc: RunCtx, taskId: string): Promise<void> {
  const t = taskSpec(rc.spec, taskId);
  if (t.kind !== 'sensor' && !countsSlots(rc.spec) && !limitsApply(t, t.taskId) && !t.dependsOnPast) {
    const queued = await createTask(p, rc, t, 'queued');
    if (queued.ok) {
      await p.queue.send([{ kind: 'task', dagId: rc.run.dagId, runId: rc.run.runId, taskId, tryNumber: 1 }]);
      return;
    }
    if (queued.current) await decideTask(p, rc, queued.current);
    return;
  }
  const r = await createTask(p, rc, t, 'scheduled');
  const item = r.ok ? r.item : r.current;
  if (item) await decideTask(p, rc, item);
}

async function repairFollow(p: Ports, rc: RunCtx, ti: TaskInstance, downstream: string[]): Promise<void> {
  const t = taskSpec(rc.spec, ti.taskId);
  let chosen: string[] | undefined;
  if (t.kind === 'branch' && ti.state === 'success') {
    const v = await p.store.getXcom({ ...keyOf(rc, ti.taskId), key: 'return_value' });
    chosen = Array.isArray(v) ? v.map(String) : [];
  }
  if (t.shortCircuit && ti.state === 'success') {
    chosen = shortCircuitChosen(rc.spec, t, await p.store.getXcom({ ...keyOf(rc, ti.taskId), key: 'return_value' }));
  }
  p.metrics.count('RepairedFollows', downstream.length);
  if (await passOn(p, rc, ti.taskId, ti.state, chosen)) await completeRunIfDone(p, rc);
}

/**
 * Starts queued runs, oldest logical date first, while maxActiveRuns allows.
 * `created`: a run just created (the listing may come from an eventually consistent index
 * that does not show it yet). `ended`: called because a run just ended.
 * Runs wait in `queued` only while the DAG is at maxActiveRuns (or after a crash, which
 * reconcile's call without hints covers), so below the limit nothing is listed: a new run
 * is started directly, and an ending run lists only when the DAG was full. Listing at every
 * run start and end would read every active run of the DAG each time.
 */
export async function startQueuedRuns(p: Ports, dagId: string, hint: { created?: DagRun; ended?: boolean } = {}): Promise<void> {
  const dag = await p.store.getDag(dagId);
  if (!dag || dag.paused) return;
  const active = dag.activeRuns ?? 0;
  const max = dag.spec.maxActiveRuns;
  const mayWait = hint.created ? active >= max : hint.ended ? active + 1 >= max : true;
  const listed = mayWait ? await p.store.listRuns(dagId, { states: ['queued'] }) : [];
  const { created } = hint;
  if (created && !listed.some((r) => r.runId === created.runId)) listed.push(created);
  const queued = listed.sort((a, b) => a.logicalDate - b.logicalDate);
  for (const run of queued) {
    const r = await p.store.updateRun(
      dagId,
      run.runId,
      { state: 'queued' },
      { state: 'running', startedAt: p.clock.now(), ...runTimeoutPatch(dag.spec, run, p.clock.now()) },
      runSlot(run, 1, dag.spec.maxActiveRuns),
    );
    if (!r.ok) {
      // A cleared backfill run waits for its backfill's slot without holding up the DAG's runs.
      if (r.reason === 'slots' && run.backfillId === undefined) return;
      if (r.reason === 'slots') continue;
      p.metrics.count('LostRaces');
      continue;
    }
    const spec = await specOrEndOrphan(p, r.item);
    if (spec) await advanceRun(p, { run: r.item, spec });
  }
}

