/**
 * Settling downstream (fast follow) and run progress: recording an upstream's outcome on
 * each downstream, deciding trigger rules exactly once, queueing ready tasks (or running
 * one eagerly), cascading skips and upstream failures, completing runs and starting
 * queued runs under maxActiveRuns. Every write is a compare-and-set, so the
 * worker that finishes a task, a concurrent worker and any number of reconcile ticks
 * can all run these functions on the same run at once.
 */
import { downstreamClosure, taskSpec, type RunCtx } from '../rules/dag-index.js';
import type { DagRecord, DagRun, TaskInstance } from '../model/types.js';
import type { Cas, Ports } from '../model/ports.js';
import { decideRunState } from '../rules/run-state.js';
import { isTerminal, type RunState, type TaskState, type UpstreamOutcome } from '../model/states.js';
import { evaluateTriggerRule } from '../rules/trigger-rules.js';
import { armCallback, runCallbackMessage, runEvent, sendCallback } from '../write/callbacks.js';
import { annotate, createTask, keyOf, newToken, retainUntil, transition } from '../write/transition.js';
import { shortCircuitChosen, skipBelowShortCircuit, skipsBelow } from './short-circuit.js';
import { mayWakeNext, nextWaiting, pastAllows } from './depends-on-past.js';
import { runTimeoutPatch } from './run-timeout.js';
import { specOrEndOrphan } from './orphan-run.js';
import { inSetupScope, setupScopeDecision } from '../rules/setup-teardown.js';
import { hasMappedTask, isInstanceId, mappedView } from '../rules/mapping-ids.js';
import { wakeRunWaiter } from './trigger-dag-run-wake.js';
import { noteRunSuccess } from './prev-success.js';
import { reviewInstances, settleInstance, type SettleOps } from './mapping-settle.js';
import { completionMode, countEnds, needsListing } from './run-ends.js';
import { createdByItsMessage, followDueAt, isRoot, rootsDueAt } from './resend.js';
import { giveBackSlot, takeRunSlot } from './run-slots.js';
import { createMessage, holdsSlots, queueTask, startTry, wakeReady } from './queue-task.js';
import { followUpOf, type FollowAllowance, type FollowUp } from './eager-follow.js';

export { keyOf, retainUntil };
export { holdsSlots, queueTask, startTry, wakeReady };

function outcomeOf(state: TaskState): UpstreamOutcome {
  if (state === 'success' || state === 'failed' || state === 'upstream_failed') return state;
  return 'skipped';
}

/**
 * Applies the trigger rule to a `scheduled` task, at most once per task and try. A task it
 * skips or fails passes its outcome on, which may claim a follow-up under `allow`
 * (flow/eager-follow.ts): returned for the caller to run.
 */
export async function decideTask(p: Ports, rc: RunCtx, ti: TaskInstance, allow?: FollowAllowance): Promise<FollowUp> {
  if (ti.state !== 'scheduled' || rc.run.state !== 'running') return;
  const t = taskSpec(rc.spec, ti.taskId);
  const scoped = inSetupScope(rc.spec, t) ? await setupScopeDecision(p, rc, t) : undefined;
  const decision = scoped ?? evaluateTriggerRule(t.triggerRule, ...mappedView(rc.spec, t, ti.upstream), t.teardown?.setups);
  if (decision === 'wait') return;
  if (decision === 'run') {
    if (t.dependsOnPast && !(await pastAllows(p, rc, t))) return; // woken when the past instance ends
    if (allow && createdByItsMessage(rc, t) && allow.take(p, t)) {
      // A join whose last upstream this worker just ended: claimed here, run next by this
      // worker (see handleTask), one write instead of a queueing, a message and a claim.
      const r = await transition(p, rc, ti, 'running', undefined, { owner: newToken(p) });
      if (r.ok) {
        p.metrics.count('EagerFollows');
        return r.item;
      }
      allow.giveBack();
      return;
    }
    await startTry(p, rc, ti);
    return;
  }
  const state: TaskState = decision === 'skip' ? 'skipped' : 'upstream_failed';
  const r = await transition(p, rc, ti, state);
  if (!r.ok) return;
  return afterTerminal(p, rc, ti.taskId, state, undefined, allow);
}

/**
 * Records `taskId`'s outcome on each direct downstream and decides those whose rule
 * became decidable. `chosen` lists the downstreams a branch task followed.
 * `mayBeDone`: the run may have finished (no downstream was left to decide). `next`: the
 * follow-up claimed under `allow` (flow/eager-follow.ts), which the caller must run.
 */
export async function settleDownstream(
  p: Ports,
  rc: RunCtx,
  taskId: string,
  state: TaskState,
  chosen?: readonly string[],
  allow?: FollowAllowance,
): Promise<{ mayBeDone: boolean; next: FollowUp }> {
  const t = taskSpec(rc.spec, taskId);
  if (t.downstream.length === 0) return { mayBeDone: true, next: undefined };
  let mayBeDone = false;
  const followed = chosen && state === 'success' ? followedBy(rc, chosen) : undefined;
  const settle = async (d: string): Promise<FollowUp> => {
    const outcome: UpstreamOutcome = followed && !followed.has(d) ? 'branch_skipped' : outcomeOf(state);
    const settled = await settleOnlyUpstream(p, rc, d, taskId, outcome, allow);
    if (settled) return settled.next;
    const item = await p.store.recordUpstream(keyOf(rc, d), taskId, outcome);
    if (item.state === 'scheduled') return decideTask(p, rc, item, allow);
    mayBeDone = true;
    return undefined;
  };
  // One downstream (a chain, an in-tree) needs no Promise.all around it.
  const next = t.downstream.length === 1 ? await settle(t.downstream[0]!) : followUpOf(await Promise.all(t.downstream.map(settle)));
  return { mayBeDone, next };
}

/**
 * A downstream whose only upstream just finished is decided by that outcome alone, so it
 * is created already decided, in one conditional put, instead of a record write and then
 * a decision write (a chain costs one write less per task). When the item exists (a
 * repair, a clear) the put fails and the general path runs. Not for sensors or when the
 * maxActiveTasks counter must move with the write. Undefined when not handled here; else
 * the follow-up it (or the cascade below it) claimed under `allow`.
 */
async function settleOnlyUpstream(p: Ports, rc: RunCtx, taskId: string, upstreamId: string, outcome: UpstreamOutcome, allow?: FollowAllowance): Promise<{ next: FollowUp } | undefined> {
  const t = taskSpec(rc.spec, taskId);
  if (t.upstream.length !== 1 || rc.run.state !== 'running' || !createdByItsMessage(rc, t)) return undefined;
  const decision = evaluateTriggerRule(t.triggerRule, t.upstream, { [upstreamId]: outcome }, t.teardown?.setups);
  if (decision === 'wait') return undefined;
  const upstream = { [upstreamId]: outcome };
  if (decision === 'run') {
    if (allow?.take(p, t)) {
      // Created already claimed by this worker, which runs it next (see handleTask).
      const r = await createTask(p, rc, t, 'running', upstream, { owner: newToken(p) });
      if (!r.ok) {
        allow.giveBack();
        return undefined;
      }
      p.metrics.count('EagerFollows');
      return { next: r.item };
    }
    // No write here: the worker that takes this message creates the task already claimed,
    // with this outcome, in one conditional put (flow/claim.ts; docs/adr/0020).
    await p.queue.send([createMessage(p, rc, taskId, upstream)]);
    return { next: undefined };
  }
  const state = decision === 'skip' ? 'skipped' : 'upstream_failed';
  const r = await createTask(p, rc, t, state, upstream);
  if (!r.ok) return undefined;
  return { next: await afterTerminal(p, rc, taskId, state, undefined, allow) };
}

/**
 * The tasks a branch follows: the chosen ones and everything downstream of them. As in
 * Airflow's `skip_all_except`, a direct downstream of the branch that is also downstream
 * of a chosen task (the join of an empty branch) is not skipped by the branch.
 */
function followedBy(rc: RunCtx, chosen: readonly string[]): Set<string> {
  return downstreamClosure(rc.spec, chosen);
}

/**
 * Everything that follows a task reaching a terminal state. Returns the follow-up claimed
 * under `allow` on the way (flow/eager-follow.ts), which the caller must run.
 */
export async function afterTerminal(
  p: Ports,
  rc: RunCtx,
  taskId: string,
  state: TaskState,
  chosen?: readonly string[],
  allow?: FollowAllowance,
): Promise<FollowUp> {
  p.metrics.count(state === 'success' ? 'TaskSucceeded' : state === 'failed' ? 'TaskFailed' : 'TaskSkipped');
  if (isInstanceId(taskId)) return settleInstance(p, rc, taskId, state, MAPPING_OPS, allow);
  const { mayBeDone, skipped, next } = await passOn(p, rc, taskId, state, chosen, allow);
  await runProgress(p, rc, [{ taskId, state }, ...skipped.map((id) => ({ taskId: id, state: 'skipped' as const }))], mayBeDone);
  const waiting = mayWakeNext(taskSpec(rc.spec, taskId), state) ? await nextWaiting(p, rc, taskId, state) : undefined;
  // Another run's task: never claimed by this worker (no allowance), it goes through the queue.
  if (waiting) await decideTask(p, waiting.rc, waiting.ti);
  return next;
}

/** Settles downstream; a falsy short-circuit first skips all below it (short-circuit.ts), whose outcomes then follow. */
async function passOn(p: Ports, rc: RunCtx, taskId: string, state: TaskState, chosen?: readonly string[], allow?: FollowAllowance): Promise<{ mayBeDone: boolean; skipped: string[]; next: FollowUp }> {
  const skipped = skipsBelow(taskSpec(rc.spec, taskId), state, chosen) ? await skipBelowShortCircuit(p, rc, taskId, state, chosen) : NONE_SKIPPED;
  let { mayBeDone, next } = await settleDownstream(p, rc, taskId, state, chosen, allow);
  for (const id of skipped) {
    const s = await settleDownstream(p, rc, id, 'skipped', undefined, allow);
    mayBeDone = s.mayBeDone || mayBeDone;
    next ??= s.next;
  }
  return { mayBeDone, skipped, next };
}

/**
 * After tasks of a run ended (their downstream settled): a listed run is read when it may
 * be done; a counted run counts the ends, and the count that completes it ends it
 * (flow/run-ends.ts). No step here reads a list that grows with the run.
 */
async function runProgress(p: Ports, rc: RunCtx, ends: ReadonlyArray<{ taskId: string; state: TaskState }>, mayBeDone: boolean): Promise<void> {
  if (ends.some((e) => needsListing(rc, e.taskId, mayBeDone))) {
    await completeRunIfDone(p, rc);
    return;
  }
  if (completionMode(rc.spec) !== 'counted') return;
  const state = await countEnds(p, rc, ends);
  if (state) await endRun(p, rc, state);
}

/** Completes the run when every task is terminal. Safe to call any number of times. */
export async function completeRunIfDone(p: Ports, rc: RunCtx, tis?: TaskInstance[]): Promise<boolean> {
  if (rc.run.state !== 'running') return false;
  const tasks = tis ?? (await p.store.listTasks(rc.run.dagId, rc.run.runId));
  const state = decideRunState(rc.spec, tasks);
  if (state === 'running') return false;
  return endRun(p, rc, state);
}

/**
 * Gives a run's maxActiveRuns slot back after its end was written, then starts the DAG's
 * queued runs, which can wait only while the DAG was full (flow/run-slots.ts).
 */
export async function releaseRunSlot(p: Ports, rc: RunCtx): Promise<void> {
  const left = await giveBackSlot(p, rc.run);
  // A backfill's run: its cleared runs may wait, queued, for the slot it gave back.
  if (rc.run.backfillId !== undefined) return startQueuedRuns(p, rc.run.dagId);
  if (left !== undefined && left + 1 < rc.spec.maxActiveRuns) return;
  await startQueuedRuns(p, rc.run.dagId, { ended: true });
}

/** Ends a running run in `state` (its callbacks armed first), then starts the DAG's queued runs. */
async function endRun(p: Ports, rc: RunCtx, state: RunState): Promise<boolean> {
  if (rc.run.state !== 'running') return false;
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
  );
  if (!r.ok) return false;
  rc.run = r.item;
  await noteRunSuccess(p, rc.run); // before a queued run can start and read it
  await sendCallback(p, callback);
  p.metrics.count(state === 'success' ? 'RunsSucceeded' : 'RunsFailed');
  p.log.info('run finished', { dagId: rc.run.dagId, runId: rc.run.runId, state });
  await releaseRunSlot(p, rc);
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
  const roots: string[] = [];
  for (const t of rc.spec.tasks) {
    const ti = byId.get(t.taskId);
    if (!ti) {
      if (isRoot(t)) roots.push(t.taskId);
      continue;
    }
    if (ti.state === 'scheduled') {
      work.push(decideTask(p, rc, ti));
    } else if (ti.state === 'queued' || ti.state === 'running') {
      if (review) work.push(review(ti));
    } else if (isTerminal(ti.state)) {
      const missing = t.downstream.filter((d) => byId.get(d)?.upstream[t.taskId] === undefined);
      if (missing.length > 0) work.push(repairFollow(p, rc, ti, missing, byId));
    }
  }
  if (roots.length > 0) work.push(createRoots(p, rc, roots, true));
  // Only while a mapped task runs: an empty `work` lets a finished run complete below.
  if (review && hasMappedTask(rc.spec) && tis.some((t) => t.mapLength !== undefined && t.state === 'running')) work.push(reviewInstances(p, rc, tis, review, MAPPING_OPS));
  await Promise.all(work);
  if (work.length === 0) await completeRunIfDone(p, rc, tis);
}

/** Starts a run that has no task yet: sends what may run at once (advanceRun without the listing). */
export async function startFresh(p: Ports, rc: RunCtx): Promise<void> {
  await createRoots(p, rc, rc.spec.tasks.filter(isRoot).map((t) => t.taskId), false);
}

const NONE_SKIPPED = Object.freeze([]) as unknown as string[];

/** What mapping-settle.ts calls back (it cannot import this module). */
const MAPPING_OPS: SettleOps = { decideTask, afterTerminal };

/**
 * Creates the tasks that may run as soon as the run does (roots, `always` tasks). A plain
 * task gets only its message: the worker that takes it creates the task already claimed,
 * in one conditional put (all messages in one send: ten per request). A sensor, or a task
 * under a counter or limit, is created `scheduled` and decided as usual. Reconcile
 * (`resent`) sends plain roots again only on the backoff of flow/resend.ts, recorded on
 * the run, since their first messages may still wait in a backlog.
 */
async function createRoots(p: Ports, rc: RunCtx, taskIds: readonly string[], resent: boolean): Promise<void> {
  const specs = taskIds.map((id) => taskSpec(rc.spec, id));
  const plain = specs.filter((t) => createdByItsMessage(rc, t));
  await Promise.all(specs.filter((t) => !createdByItsMessage(rc, t)).map(async (t) => {
    const r = await createTask(p, rc, t, 'scheduled');
    const item = r.ok ? r.item : r.current;
    if (item) await decideTask(p, rc, item);
  }));
  if (plain.length === 0) return;
  if (resent) {
    const now = p.clock.now();
    if (now < rootsDueAt(rc.run, p.config)) return;
    const r = await p.store.updateRun(rc.run.dagId, rc.run.runId, { state: 'running' }, { rootsResentAt: now, rootsResends: (rc.run.rootsResends ?? 0) + 1 });
    if (!r.ok) return;
    rc.run = r.item;
    p.metrics.count('Requeued', plain.length);
  }
  await p.queue.send(plain.map((t) => createMessage(p, rc, t.taskId, {})));
}

/**
 * Passes on the outcome of an ended task whose downstream has not recorded it (its worker
 * was lost mid-way, or the downstream's message is still on its way). A downstream the
 * message creates is sent again only on the backoff of flow/resend.ts, recorded on the
 * ended task; any other is repaired at once.
 */
async function repairFollow(p: Ports, rc: RunCtx, ti: TaskInstance, downstream: string[], byId: ReadonlyMap<string, TaskInstance>): Promise<void> {
  const t = taskSpec(rc.spec, ti.taskId);
  const lazy = downstream.every((d) => !byId.has(d) && taskSpec(rc.spec, d).upstream.length === 1 && createdByItsMessage(rc, taskSpec(rc.spec, d)));
  if (lazy) {
    const now = p.clock.now();
    if (now < followDueAt(ti, p.config)) return;
    const r = await annotate(p, ti, { followResentAt: now, followResends: (ti.followResends ?? 0) + 1 });
    if (!r.ok) return;
  }
  let chosen: string[] | undefined;
  if (t.kind === 'branch' && ti.state === 'success') {
    const v = await p.store.getXcom({ ...keyOf(rc, ti.taskId), key: 'return_value' });
    chosen = Array.isArray(v) ? v.map(String) : [];
  }
  if (t.shortCircuit && ti.state === 'success') {
    chosen = shortCircuitChosen(rc.spec, t, await p.store.getXcom({ ...keyOf(rc, ti.taskId), key: 'return_value' }));
  }
  p.metrics.count('RepairedFollows', downstream.length);
  const { mayBeDone, skipped } = await passOn(p, rc, ti.taskId, ti.state, chosen);
  await runProgress(p, rc, skipped.map((id) => ({ taskId: id, state: 'skipped' as const })), mayBeDone);
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
export async function startQueuedRuns(p: Ports, dagId: string, hint: { created?: DagRun; ended?: boolean; dag?: DagRecord } = {}): Promise<void> {
  const dag = hint.dag ?? (await p.store.getDag(dagId));
  if (!dag || dag.paused) return;
  const active = dag.activeRuns ?? 0;
  const max = dag.spec.maxActiveRuns;
  const mayWait = hint.created ? active >= max : hint.ended ? active + 1 >= max : true;
  const listed = mayWait ? await p.store.listRuns(dagId, { states: ['queued'] }) : [];
  const { created } = hint;
  if (created && !listed.some((r) => r.runId === created.runId)) listed.push(created);
  const queued = listed.sort((a, b) => a.logicalDate - b.logicalDate);
  for (const run of queued) {
    if (run.backfillId !== undefined) {
      // A cleared backfill run waits for its backfill's slot, apart from the DAG's (Airflow
      // counts a backfill's runs against the backfill's max_active_runs), holding no one up.
      const take = await p.store.takeBackfillSlot(run.backfillId, run.runId, p.clock.now());
      if (take === 'full' || take === 'gone') continue;
      const r = await startRun(p, dag, run);
      if (!r.ok && take === 'taken' && r.current?.state !== 'running') await p.store.releaseBackfillSlot(run.backfillId, run.runId);
      continue;
    }
    // The slot first, then the state (flow/run-slots.ts): no run is running without one.
    const { take, queuedHolders } = await takeRunSlot(p, dag, run.runId);
    // Runs that hold a slot while still queued (a start cut short) start with it.
    for (const id of queuedHolders) {
      const holder = await p.store.getRun(dagId, id);
      if (holder?.state === 'queued') await startRun(p, dag, holder);
    }
    if (take === 'full' || take === 'no_dag') return;
    const r = await startRun(p, dag, run);
    // Started by another, or ended meanwhile: a slot taken here for a run that is not running goes back.
    if (!r.ok && take === 'taken' && r.current?.state !== 'running') await p.store.releaseRunSlot(dagId, run.runId);
  }
}

/** `queued → running` for a run that holds its slot, then what may run at once. */
async function startRun(p: Ports, dag: DagRecord, run: DagRun): Promise<Cas<DagRun>> {
  const now = p.clock.now();
  // A backfill's run names its backfill in the patch: the store keeps it findable while it runs.
  const backfill = run.backfillId !== undefined ? { backfillId: run.backfillId } : {};
  const r = await p.store.updateRun(dag.dagId, run.runId, { state: 'queued' }, { state: 'running', startedAt: now, ...runTimeoutPatch(dag.spec, run, now), ...backfill });
  if (!r.ok) {
    p.metrics.count('LostRaces');
    return r;
  }
  const spec = await specOrEndOrphan(p, r.item);
  // A run that never ran has no task to look at: its roots are created without a listing.
  if (spec) await (run.startedAt === undefined ? startFresh : advanceRun)(p, { run: r.item, spec });
  return r;
}

