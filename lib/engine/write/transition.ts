/**
 * The one writer of task state. Every change of a task's `state` goes through
 * {@link transition} (an existing task) or {@link createTask} (a task created already
 * decided); {@link annotate} writes fields of a task without changing its state. Here,
 * and only here: the transition table is checked (states.ts), the compare-and-set
 * condition is built (state, try, and the claim token of a held try), the fields each
 * state owns are set or reset, the lease and the retention are computed, and the run's
 * maxActiveTasks counter moves. A lost race is a typed result, counted once.
 * test/engine/layout.test.ts fails when other engine code writes a task.
 */
import { countsSlots, taskSpec, type RunCtx } from '../rules/dag-index.js';
import type { TaskInstance, TaskKey, TaskSpec } from '../model/types.js';
import type { Cas, Ports, SlotChange, TaskExpect, TaskPatch } from '../model/ports.js';
import { assertTransition, isTerminal, type TaskState } from '../model/states.js';
import { clearEarlierTries } from './xcom-clear.js';
import { limitMoves, limitsApply } from '../rules/pool-limits.js';
import { isInstanceId } from '../rules/mapping-ids.js';
import { armCallback, sendCallback, taskCallbackMessage, taskEvent } from './callbacks.js';
import { leaveEventWait } from './job-stop.js';

export function keyOf(rc: RunCtx, taskId: string): TaskKey {
  return { dagId: rc.run.dagId, runId: rc.run.runId, taskId };
}

let seq = 0;
let lastMs = NaN;
let lastMs36 = '';
/** A claim token unique in this process (the worker id makes it unique across processes). */
export function newToken(p: Ports): string {
  seq += 1;
  const now = p.clock.now();
  // Many claims share a millisecond: its base-36 form is made once.
  if (now !== lastMs) {
    lastMs = now;
    lastMs36 = now.toString(36);
  }
  return `${p.workerId ?? 'w'}-${lastMs36}-${seq}`;
}

/** How long a claimed try is held before reconcile takes it for lost: its execution timeout (or the default) plus the margin. */
export function leaseMs(p: Ports, t: TaskSpec): number {
  return (t.executionTimeoutMs ?? p.config.defaultLeaseMs) + p.config.leaseMarginMs;
}

/** TTL (epoch seconds) of what a task writes now: the run's retention from now. */
export function retainUntil(p: Ports): number | undefined {
  const retention = p.config.runRetentionMs;
  return retention > 0 ? Math.floor((p.clock.now() + retention) / 1000) : undefined;
}

/** A new try has not started or ended yet. */
const NEW_TRY_TIMES = { startedAt: null, endedAt: null } as const;

/** States that hold a maxActiveTasks slot. */
const ACTIVE: ReadonlySet<TaskState> = new Set(['queued', 'running']);
/** States whose try is held by a claim token: a write must carry it. */
const OWNED: ReadonlySet<TaskState> = new Set(['running', 'deferred']);

/** What a transition may add: fields of the target state that only the caller knows. */
export type TransitionFields = Omit<TaskPatch, 'state' | 'tryNumber'>;

export interface TransitionOptions {
  /** Clear only: upstream outcomes to forget (those upstreams are cleared too). */
  forgetUpstream?: readonly string[];
  /**
   * Claim only: the token of the claiming worker, for `queued → running`, or for
   * `scheduled → running` (queued and claimed in one write: an eager claim of a task that
   * takes no slot or limit).
   */
  owner?: string;
  /** An operator's mark (mark.ts): any state may go to success, failed or skipped. */
  mark?: boolean;
  /**
   * To a terminal state only: the held try never ran task code (a task mapped over an empty
   * list), so its try number goes back to before the claim (Airflow skips it at expansion: try 0).
   */
  untried?: boolean;
}

/** The condition of a write to `ti` as the caller read it. */
function expectOf(ti: TaskInstance): TaskExpect {
  return OWNED.has(ti.state) && ti.owner !== undefined
    ? { state: ti.state, tryNumber: ti.tryNumber, owner: ti.owner }
    : { state: ti.state, tryNumber: ti.tryNumber };
}

/**
 * The fields a task entering `to` from `from` sets and resets. Callers add what only they
 * know (an error, a trigger, a sensor's start); these win over nothing else.
 */
function entering(p: Ports, t: TaskSpec, from: TaskState, to: TaskState, ti: TaskInstance, owner?: string): TaskPatch {
  const now = p.clock.now();
  if (isTerminal(to)) {
    return { state: to, endedAt: now, dueAt: null, expiresAt: retainUntil(p) ?? null, leaseUntil: null, ready: null };
  }
  switch (to) {
    case 'queued':
      // From `deferred` the same try resumes; otherwise a new try starts, without the times
      // of the last one (its end before this start read as a negative duration).
      return {
        state: to, tryNumber: from === 'deferred' ? ti.tryNumber : ti.tryNumber + 1, queuedAt: now, dueAt: null, ready: null,
        leaseUntil: null, requeues: null, requeuedAt: null, ...(from === 'deferred' ? {} : NEW_TRY_TIMES),
      };
    case 'running':
      return { state: to, owner: owner ?? newToken(p), startedAt: now, endedAt: null, leaseUntil: now + leaseMs(p, t) };
    case 'up_for_retry':
      // A retry starts over from `execute`: a failed resume must not be resumed again.
      return {
        state: to, endedAt: now, leaseUntil: null, nextMethod: null, nextKwargs: null, trigger: null, triggerEvent: null,
        deferTimeoutAt: null,
      };
    case 'deferred':
      return from === 'running'
        ? { state: to, leaseUntil: null, triggerEvent: null }
        : { state: to, tryNumber: ti.tryNumber + 1, queuedAt: now, startedAt: now, endedAt: null, ready: null };
    case 'sensing':
      return { state: to, tryNumber: ti.tryNumber + 1, queuedAt: now, startedAt: now, endedAt: null, ready: null };
    case 'scheduled':
      if (isTerminal(from)) {
        // Clear: retries count afresh from here (Airflow's max_tries), everything of the last try goes.
        return {
          state: to, tryBase: ti.tryNumber, error: null, startedAt: null, endedAt: null, ready: null, nextMethod: null,
          nextKwargs: null, trigger: null, triggerEvent: null, sensorStartedAt: null, pokeCount: null, owner: null, dueAt: null,
          expiresAt: null, leaseUntil: null, deferTimeoutAt: null, queuedAt: null,
        };
      }
      return { state: to, dueAt: null };
  }
  return { state: to };
}

/** The slot change of a move: entering queued/running takes one (bounded unless a deferral resumes), leaving gives it back. */
function slotOf(rc: RunCtx, from: TaskState, to: TaskState): SlotChange | undefined {
  if (!countsSlots(rc.spec) || ACTIVE.has(from) === ACTIVE.has(to)) return undefined;
  if (ACTIVE.has(from)) return { delta: -1 };
  // A resumed deferral already holds its place in the run; it is not refused a slot.
  return from === 'deferred' ? { delta: 1 } : { delta: 1, max: rc.spec.maxActiveTasks };
}

/**
 * Moves a task from the state it was read in to `to`: one compare-and-set on its state,
 * try and claim token, with the fields of `to` and the slot counter in the same write.
 *
 * @example
 * const r = await transition(p, rc, ti, 'success');
 * if (!r.ok) return; // someone else moved it first (counted as a lost race)
 */
export async function transition(
  p: Ports,
  rc: RunCtx,
  ti: TaskInstance,
  to: TaskState,
  fields: TransitionFields = NO_FIELDS,
  opts: TransitionOptions = NO_OPTIONS,
): Promise<Cas<TaskInstance>> {
  const t = taskSpec(rc.spec, ti.taskId);
  // An eager claim of a decided task: `scheduled → queued → running` in one write, by the
  // worker that decided it (flow/settle.ts), for a task that takes no slot or limit.
  const direct = to === 'running' && ti.state === 'scheduled' && opts.owner !== undefined;
  if (direct) {
    if (countsSlots(rc.spec) || limitsApply(t, ti.taskId)) throw new Error(`a task under a slot counter or limit is claimed from queued (${ti.taskId})`);
    assertTransition('scheduled', 'queued');
  } else if (!(opts.mark && (to === 'success' || to === 'failed' || to === 'skipped'))) assertTransition(ti.state, to);
  // The fields of `to` win over the caller's (on the hot path there are none to merge).
  const entered = direct
    ? Object.assign(entering(p, t, 'scheduled', 'queued', ti), entering(p, t, 'queued', 'running', ti, opts.owner))
    : entering(p, t, ti.state, to, ti, opts.owner);
  const patch: TaskPatch = fields === NO_FIELDS ? entered : Object.assign({}, fields, entered);
  // A task that leaves `scheduled` leaves the waiting line it was in (pools, maxActiveTasks).
  if (ti.waitKey !== undefined && to !== 'scheduled') {
    patch.waitKey = null;
    patch.waitRank = null;
  }
  if (opts.untried && isTerminal(to)) patch.tryNumber = Math.max(0, ti.tryNumber - 1);
  // Mapped instances hold no maxActiveTasks slot (docs/adr/0013-dynamic-task-mapping.md).
  const slot = isInstanceId(ti.taskId) ? undefined : slotOf(rc, ti.state, to);
  // Pool and per-task slots move in the same atomic write (pool-limits.ts).
  const limits = limitMoves(rc.run.dagId, rc.run.runId, t, ti, to, retainUntil(p));
  if (limits) Object.assign(patch, limits.fields);
  // A callback for this event: its delayed copy is armed before the write (callbacks.ts).
  // A mapped task's own item raises none: its instances do, each once (Airflow calls back per mapped instance).
  const event = t.expand !== undefined && !isInstanceId(ti.taskId) ? undefined : taskEvent(t, ti.state, to, opts.mark);
  const callback = event && taskCallbackMessage(ti, event);
  // Awaited only when there is something to wait for: each await of nothing costs a turn.
  if (callback) await armCallback(p, callback);
  const leftWait = ti.state === 'deferred' ? await leaveEventWait(p, ti, to, fields) : undefined; // an event wait's job is stopped first, its row deleted after (flow/job-stop.ts)
  const r = opts.forgetUpstream
    ? await p.store.clearTask(ti, expectOf(ti), patch, opts.forgetUpstream)
    : await p.store.updateTask(ti, expectOf(ti), patch, slot, limits?.moves.length ? limits.moves : undefined);
  if (!r.ok) p.metrics.count(r.reason === 'slots' ? 'SlotsFull' : 'LostRaces');
  else {
    if (to === 'running' && r.item.tryNumber > 1) await clearEarlierTries(p, r.item);
    if (callback) await sendCallback(p, callback);
    if (leftWait) await leftWait();
  }
  return r;
}

const NO_FIELDS: TransitionFields = Object.freeze({});
const NO_OPTIONS: TransitionOptions = Object.freeze({});

/**
 * Writes fields of a task that stays in its state (a requeue count, a wake flag, a
 * trigger event), conditional like a transition.
 */
export async function annotate(p: Ports, ti: TaskInstance, fields: TransitionFields): Promise<Cas<TaskInstance>> {
  const r = await p.store.updateTask(ti, expectOf(ti), fields);
  if (!r.ok) p.metrics.count('LostRaces');
  return r;
}

/**
 * Creates a task, `scheduled` or already decided (queued, running for this worker,
 * skipped, upstream-failed), in one conditional put; an existing item is a lost race (not
 * counted: the caller then takes the general path). Not for queued or running under a
 * maxActiveTasks counter, which must move in the same write.
 */
export async function createTask(
  p: Ports,
  rc: RunCtx,
  t: TaskSpec,
  to: 'scheduled' | 'queued' | 'running' | 'skipped' | 'upstream_failed',
  upstream: TaskInstance['upstream'] = {},
  opts: { owner?: string; instance?: { taskId: string; fields: TransitionFields }; queuedAt?: number } = NO_OPTIONS,
): Promise<Cas<TaskInstance>> {
  const taskId = opts.instance?.taskId ?? t.taskId;
  const base: TaskInstance = { dagId: rc.run.dagId, runId: rc.run.runId, taskId, state: 'scheduled', tryNumber: 0, upstream };
  if (opts.instance) Object.assign(base, opts.instance.fields);
  if (to === 'scheduled') return p.store.putTask(base);
  if ((to === 'queued' || to === 'running') && ((countsSlots(rc.spec) && !opts.instance) || limitsApply(t, taskId))) throw new Error(`createTask cannot take a slot (${t.taskId})`);
  if (to === 'running') {
    // scheduled → queued → running in one put: the first try, claimed by `owner` (the
    // fields entering() gives both steps, without the nulls a new item has no use for).
    const now = p.clock.now();
    base.state = 'running';
    base.tryNumber = 1;
    base.queuedAt = opts.queuedAt ?? now;
    base.owner = opts.owner ?? newToken(p);
    base.startedAt = now;
    base.leaseUntil = now + leaseMs(p, t);
    return p.store.putTask(base);
  }
  assertTransition('scheduled', to);
  const patch = entering(p, t, 'scheduled', to, base) as Record<string, unknown>;
  for (const k in patch) if (patch[k] !== null && patch[k] !== undefined) (base as unknown as Record<string, unknown>)[k] = patch[k];
  return p.store.putTask(base);
}
