/**
 * Ending a try: success (with XCom), skip, failure with retry or not, deferral.
 * Every write is conditional on the try and the claim token, so a worker whose lease
 * expired (and whose try reconcile has already failed or retried) changes nothing.
 */
import type { DeferRequest } from '../model/context.js';
import type { RunCtx } from '../rules/dag-index.js';
import { OversizedValueError } from '../model/errors.js';
import { afterTerminal, holdsSlots, keyOf, retainUntil, wakeReady } from './settle.js';
import { transition } from '../write/transition.js';
import type { TaskInstance, TaskSpec } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { canRetry, retryDelayMs } from '../rules/retry.js';
import type { TaskState } from '../model/states.js';
import { deferTask } from './waiting.js';
import { wakeLimits } from './pools.js';
import { mapValueField, valueGoesToXcom } from './mapping-values.js';
import { isInstanceId } from '../rules/mapping-ids.js';
import { redactDeep, redact } from '../rules/secrets-mask.js';
import { armOutlets, emitOutlets, hasOutlets } from './asset-outlets.js';
import type { OutletExtras } from './asset-context.js';
import { storeOutputKeys } from './inputs.js';
import type { FollowAllowance, FollowUp } from './eager-follow.js';

export type Outcome =
  | { kind: 'success'; value: unknown; chosen?: string[]; outlets?: OutletExtras }
  | { kind: 'skipped'; reason?: string; /** The try never ran task code (an empty expansion): its try number goes back. */ untried?: boolean }
  | { kind: 'deferred'; request: DeferRequest }
  | { kind: 'failed'; error: string; noRetry?: boolean };

/** A try's end: `ok` when this writer's write was taken; `next`, the follow-up it claimed under its allowance (flow/eager-follow.ts), to run next. */
export interface Ended {
  ok: boolean;
  next?: FollowUp;
}

const REFUSED: Ended = { ok: false };
const WRITTEN: Ended = { ok: true };

const LEAVES_ACTIVE: ReadonlySet<TaskState> = new Set(['queued', 'running']);

/** A task that ends may free a maxActiveTasks slot; a mapped instance holds none (and waking lists the run). */
const freesSlots = (rc: RunCtx, ti: TaskInstance): boolean => holdsSlots(rc) && !isInstanceId(ti.taskId);

/**
 * Fails a try: `up_for_retry` (with the retry armed on the timer) while retries remain,
 * else `failed` and the downstream cascade (which may claim a follow-up under `allow`).
 */
export async function failTry(
  p: Ports,
  rc: RunCtx,
  t: TaskSpec,
  ti: TaskInstance,
  error: string,
  noRetry: boolean,
  allow?: FollowAllowance,
): Promise<Ended> {
  const now = p.clock.now();
  error = redact(error);
  const freesSlot = LEAVES_ACTIVE.has(ti.state) && freesSlots(rc, ti);
  const tries = ti.tryNumber - (ti.tryBase ?? 0);
  if (!noRetry && canRetry(t, tries)) {
    const at = now + retryDelayMs(t, tries, `${ti.dagId}#${ti.taskId}#${rc.run.logicalDate}`);
    const r = await transition(p, rc, ti, 'up_for_retry', { error, dueAt: at });
    if (!r.ok) return REFUSED;
    p.metrics.count('TaskRetried');
    p.log.warn('task up for retry', { ...keyOf(rc, ti.taskId), tryNumber: ti.tryNumber, error, retryAt: new Date(at).toISOString() });
    await p.timer.schedule(`retry-${ti.dagId}-${ti.runId}-${ti.taskId}-${ti.tryNumber}`, at, {
      kind: 'fire', dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber, reason: 'retry',
    });
    if (freesSlot) await wakeReady(p, rc);
    await wakeLimits(p, rc, ti);
    return WRITTEN;
  }
  const r = await transition(p, rc, ti, 'failed', { error });
  if (!r.ok) return REFUSED;
  p.log.error('task failed', { ...keyOf(rc, ti.taskId), tryNumber: ti.tryNumber, error });
  await wakeLimits(p, rc, ti);
  const next = await afterTerminal(p, rc, ti.taskId, 'failed', undefined, allow);
  if (freesSlot) await wakeReady(p, rc);
  return { ok: true, next };
}

/**
 * Writes the outcome of a try that this worker holds (state `running`, its token). With
 * `allow`, the downstream it makes ready may be claimed by this worker: returned as `next`.
 *
 * @example
 * const { ok, next } = await finishTask(p, rc, t, ti, { kind: 'success', value: 1 }, allow);
 */
export async function finishTask(p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance, outcome: Outcome, allow?: FollowAllowance): Promise<Ended> {
  if (outcome.kind === 'failed') return failTry(p, rc, t, ti, outcome.error, outcome.noRetry ?? false, allow);
  if (outcome.kind === 'deferred') {
    try {
      const ok = await deferTask(p, rc, t, ti, outcome.request);
      if (ok && freesSlots(rc, ti)) await wakeReady(p, rc);
      return ok ? WRITTEN : REFUSED;
    } catch (err) {
      return failTry(p, rc, t, ti, `invalid deferral: ${(err as Error).message}`, true, allow);
    }
  }
  // Masked once, for every place a return value is kept: output keys, a mapped instance's item and XCom.
  const value = outcome.kind === 'success' ? redactDeep(outcome.value) : undefined;
  if (outcome.kind === 'success' && t.outputKeys) {
    // Typed TaskFlow: the keys of the value other tasks read, each its own XCom (flow/inputs.ts).
    const refused = await storeOutputKeys(p, rc, t, ti, value);
    if (refused) return failTry(p, rc, t, ti, refused.error, refused.noRetry, allow);
  }
  const mapped = mapValueField(ti, outcome.kind === 'success', value);
  if (outcome.kind === 'success' && value !== undefined && valueGoesToXcom(mapped)) {
    try {
      await p.store.putXcom({ ...keyOf(rc, ti.taskId), key: 'return_value' }, value, retainUntil(p));
    } catch (err) {
      const msg = err instanceof OversizedValueError ? err.message : `could not store the return value: ${(err as Error).message}`;
      return failTry(p, rc, t, ti, msg, err instanceof OversizedValueError, allow);
    }
  }
  const state: TaskState = outcome.kind === 'success' ? 'success' : 'skipped';
  if (outcome.kind === 'success' && hasOutlets(t)) await armOutlets(p, t, ti, outcome.outlets);
  const r = await transition(p, rc, ti, state, { error: null, ...mapped }, outcome.kind === 'skipped' && outcome.untried ? { untried: true } : {});
  if (!r.ok) return REFUSED;
  if (outcome.kind === 'success' && hasOutlets(t)) await emitOutlets(p, t, r.item, outcome.outlets);
  if (ti.slotsHeld) await wakeLimits(p, rc, ti);
  const next = await afterTerminal(p, rc, ti.taskId, state, outcome.kind === 'success' ? outcome.chosen : undefined, allow);
  if (freesSlots(rc, ti)) await wakeReady(p, rc);
  return { ok: true, next };
}
