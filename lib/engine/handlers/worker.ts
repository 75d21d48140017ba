/**
 * The worker: claims a queued try with one conditional write, runs the task body with
 * its context and execution timeout, and writes the outcome (see worker-finish.ts).
 * A duplicate delivery loses the claim and is dropped.
 */
import {
  isDeferRequest,
  isFailRequest,
  isSkipRequest,
  type ResumeInput,
  type TaskContext,
} from '../model/context.js';
import { hasTask, loadRunCtx, taskSpec, type RunCtx } from '../rules/dag-index.js';
import { AirlessError, BundleNotFoundError, TaskTimeoutError } from '../model/errors.js';
import type { DagSpec, TaskInstance, TaskSpec } from '../model/types.js';
import type { LoadedBundle, Ports, TaskMessage } from '../model/ports.js';
import { RunningTaskContext } from '../flow/task-context.js';
import { transition } from '../write/transition.js';
import { finishTask, type Outcome } from '../flow/worker-finish.js';
import { pokeOnce } from '../flow/poke.js';
import { formatDuration } from '../rules/duration.js';
import { shortCircuitChosen } from '../flow/short-circuit.js';
import { expandTask, isMappedParent } from '../flow/mapping-expand.js';
import { hasArgument, taskArgument } from '../flow/inputs.js';
import { hasExecuteCallback, runExecuteCallback } from '../flow/callbacks-run.js';
import { claimNew } from '../flow/claim.js';
import { loadTriggeringEvents, needsTriggeringEvents } from '../flow/asset-context.js';
import { outletsProblem } from '../flow/asset-outlets.js';
import { runOperatorTry } from '../flow/operators.js';
import { runBuiltinTry } from '../flow/trigger-dag-run.js';
import { FollowAllowance } from '../flow/eager-follow.js';

export type TaskResult = 'done' | 'lost' | 'dropped';

/**
 * Handles one task message end to end.
 *
 * @example
 * await handleTask(ports, { kind: 'task', dagId: 'etl', runId: 'manual__...', taskId: 'extract', tryNumber: 1 });
 */
export async function handleTask(p: Ports, msg: TaskMessage): Promise<TaskResult> {
  // A stale run is harmless here: every task write is a compare-and-set on the task, and a
  // run's end a compare-and-set on the run (docs/adr/0020).
  const rc = await loadRunCtx(p, msg.dagId, msg.runId, { eventually: true });
  if (!rc) {
    p.log.warn('message for an unknown run dropped', { ...msg });
    return 'dropped';
  }
  if (!hasTask(rc.spec, msg.taskId)) {
    // Not retryable: the pinned bundle will never grow this task.
    p.log.warn('message for an unknown task dropped', { ...msg });
    return 'dropped';
  }
  const t = taskSpec(rc.spec, msg.taskId);
  const now = p.clock.now();
  // The claim: `queued → running` for exactly this try, or a task with no item yet created
  // already running (flow/claim.ts). A duplicate delivery loses it either way.
  const claim = msg.up !== undefined
    ? await claimNew(p, rc, { ...msg, up: msg.up })
    : await transition(p, rc, { ...msg, state: 'queued', upstream: {} }, 'running');
  if (!claim.ok) return 'lost';
  let ti = claim.item;
  if (ti.queuedAt !== undefined) p.metrics.timing('SchedulingLagMs', now - ti.queuedAt);
  let task = t;
  let allow = new FollowAllowance(p.config.maxEagerFollows);
  for (;;) {
    // Eager follow (flow/eager-follow.ts): the next task of this run, created already
    // claimed by this worker while it settled this one, comes back here to run.
    const next = isMappedParent(task, ti)
      ? await expandTask(p, rc, task, ti, allow)
      : (await finishTask(p, rc, task, ti, await runTry(p, rc, task, ti), allow)).next;
    if (!next) break;
    allow = allow.renewed();
    ti = next;
    task = taskSpec(rc.spec, next.taskId);
    p.metrics.timing('SchedulingLagMs', 0);
  }
  return 'done';
}

async function runTry(p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance): Promise<Outcome> {
  if (t.builtin) return runBuiltinTry(p, rc, t, ti, runBody); // latestOnly, triggerDagRun (flow/trigger-dag-run.ts)
  let bundle: LoadedBundle;
  try {
    bundle = await p.bundles.load(rc.run.bundleVersion);
  } catch (err) {
    // A version that is gone stays gone: no retry (AccessDenied, a timeout... retry as usual).
    return { kind: 'failed', error: `bundle ${rc.run.bundleVersion} cannot be loaded: ${(err as Error).message}`, noRetry: err instanceof BundleNotFoundError };
  }
  const method = ti.nextMethod ?? 'execute';
  if (t.operator) return runOperatorTry(p, rc, t, ti, bundle, runBody); // submits a job or waits for an event (flow/operators.ts)
  if (t.kind === 'sensor' && (method === 'execute' || method === '__poke')) {
    return pokeOnce(p, rc, t, ti, bundle);
  }
  const fn = bundle.taskMethod(rc.run.dagId, t.taskId, method);
  if (!fn) return { kind: 'failed', error: `task ${t.taskId} has no method ${method} in bundle ${rc.run.bundleVersion}`, noRetry: true };
  // A call of an async function that has nothing to do still costs promises and turns: the
  // steps below are called only when their own predicate says they apply (docs/adr/0030).
  try {
    if (fn.ready) await fn.ready();
  } catch (err) {
    return { kind: 'failed', error: `task ${t.taskId} could not start: ${(err as Error).message}` };
  }
  if (method === 'execute' && hasExecuteCallback(t)) await runExecuteCallback(p, rc, t, ti);
  if (needsTriggeringEvents(rc)) await loadTriggeringEvents(p, rc);
  // Typed inputs and mapped elements (flow/inputs.ts); input data that cannot be read would fail again: no retry.
  const input = ti.nextMethod || !hasArgument(t, ti) ? undefined : await taskArgument(p, rc, t, ti);
  if (input && !input.ok) return { kind: 'failed', error: input.error, noRetry: true };
  const arg: ResumeInput | unknown = ti.nextMethod
    ? {
        kwargs: ti.nextKwargs ?? {},
        event: {
          payload: ti.triggerEvent?.payload,
          firedAt: new Date(ti.triggerEvent?.firedAt ?? p.clock.now()).toISOString(),
          key: ti.triggerEvent?.key,
          reason: 'trigger',
        },
      }
    : input?.value;
  return runBody(p, rc, t, ti, (ctx) => fn(ctx, arg));
}

/** Runs a body under the execution timeout and maps what it returns or throws to an outcome. */
export async function runBody(
  p: Ports,
  rc: RunCtx,
  t: TaskSpec,
  ti: TaskInstance,
  body: (ctx: TaskContext) => unknown,
): Promise<Outcome> {
  const timeoutMs = t.executionTimeoutMs;
  // Without an execution timeout nothing aborts a try: all such tries share one signal.
  const abort = timeoutMs === undefined ? undefined : new AbortController();
  const stopTimer = timeoutMs === undefined ? undefined : new AbortController();
  const ctx = buildContext(p, rc, ti, abort?.signal ?? NEVER_ABORTED);
  // Without a timeout the body is awaited directly (a synchronous throw is caught below);
  // with one it starts on the next turn, after the timer is set.
  const run = timeoutMs === undefined ? undefined : Promise.resolve().then(() => body(ctx));
  const timeout =
    timeoutMs === undefined || !stopTimer
      ? undefined
      : p.clock.sleep(timeoutMs, stopTimer.signal).then(() => {
          if (stopTimer.signal.aborted) return undefined;
          const err = new TaskTimeoutError(`execution timeout: the try ran longer than ${formatDuration(timeoutMs)}`);
          abort?.abort(err);
          throw err;
        });
  try {
    const value = await (run && timeout ? Promise.race([run, timeout]) : body(ctx));
    return withOutlets(t, toOutcome(rc.spec, t, value), ctx.outletExtras());
  } catch (err) {
    if (isSkipRequest(err)) return { kind: 'skipped', reason: err.reason };
    if (isDeferRequest(err)) return { kind: 'deferred', request: err };
    if (isFailRequest(err)) return { kind: 'failed', error: err.reason ?? 'the task failed itself (ctx.fail)', noRetry: true };
    const e = err as Error;
    return { kind: 'failed', error: e instanceof AirlessError ? e.message : `${e?.name ?? 'Error'}: ${e?.message ?? String(err)}` };
  } finally {
    // A plain reason: `abort()` without one builds a DOMException (a stack trace) per try.
    stopTimer?.abort(SETTLED);
  }
}

const SETTLED = 'try settled';
const NEVER_ABORTED = new AbortController().signal;

function toOutcome(spec: DagSpec, t: TaskSpec, value: unknown): Outcome {
  if (isDeferRequest(value)) return { kind: 'deferred', request: value };
  if (isSkipRequest(value)) return { kind: 'skipped', reason: value.reason };
  if (t.shortCircuit) return { kind: 'success', value, chosen: shortCircuitChosen(spec, t, value) };
  if (t.kind === 'branch') {
    const chosen = value === undefined || value === null ? [] : Array.isArray(value) ? value.map(String) : [String(value)];
    // As Airflow's SkipMixin.skip_all_except: any task id of the DAG may be chosen (a
    // valid id that is not a direct downstream skips nothing more); an id that is not in
    // the DAG fails the try like any other error, retries included.
    const unknown = chosen.filter((c) => !hasTask(spec, c));
    if (unknown.length > 0) {
      return { kind: 'failed', error: `branch ${t.taskId} chose ${unknown.join(', ')}, which is not a task of dag ${spec.dagId}` };
    }
    return { kind: 'success', value: chosen, chosen };
  }
  return { kind: 'success', value };
}

/** A success carries the extras the try set for its outlets; extras that cannot be stored fail the try for good. */
function withOutlets(t: TaskSpec, o: Outcome, extras: ReturnType<RunningTaskContext['outletExtras']>): Outcome {
  if (o.kind !== 'success' || !extras) return o;
  const problem = outletsProblem(t, extras);
  return problem ? { kind: 'failed', error: problem, noRetry: true } : { ...o, outlets: extras };
}

/** The `ctx` a task body receives. */
export function buildContext(p: Ports, rc: RunCtx, ti: TaskInstance, signal: AbortSignal): RunningTaskContext {
  return new RunningTaskContext(rc, ti, p, signal);
}
