/**
 * Running callbacks: the handler of `callback` messages (task `onSuccess`, `onFailure`,
 * `onRetry`, `onSkipped`; run `onSuccess`, `onFailure`) and `onExecute` before a try. A
 * callback's code runs through the bundle like a task method (isolated in a thread where
 * tries are), with a context like the task's; notifiers are rendered here and sent through
 * the Notifier port. A callback that throws is logged with its stack and changes no state;
 * one that runs past its timeout (the task's executionTimeout, else 5 minutes) is abandoned
 * the same way, its thread killed where tries are isolated.
 * Done markers (an XCom under a reserved key) make the delayed copy of a message a no-op.
 */
import {
  CALLBACK_RECHECK_MS, DAG_CALLBACKS, callbackMethod, callbackTimerId, eventStatus, type CallbackEvent,
} from '../write/callbacks.js';
import { hasTask, loadRunCtx, taskSpec, type RunCtx } from '../rules/dag-index.js';
import { formatDuration } from '../rules/duration.js';
import { baseTaskId } from '../rules/mapping-ids.js';
import type { NotifierSpec, TaskCallbackEvent, TaskInstance, TaskSpec, XcomKey } from '../model/types.js';
import type { CallbackMessage, LoadedBundle, Ports, RenderedNotifier } from '../model/ports.js';
import { redact } from '../rules/secrets-mask.js';
import { secretVarsFor } from './secrets.js';
import { RunningTaskContext } from './task-context.js';
import { renderDeep, renderTemplate, type TemplateVars } from '../rules/template.js';
import { retainUntil } from '../write/transition.js';

class CallbackTimeout extends Error {}

/** How long a callback may run when its task has no executionTimeout (and for run callbacks). */
export const CALLBACK_TIMEOUT_MS = 5 * 60_000;
/** Rechecks after which a claimed callback with no done marker is taken over: past any worker's lease, its claimer is gone. */
const takeoverAttempt = (p: Ports) => Math.ceil((p.config.defaultLeaseMs + p.config.leaseMarginMs) / CALLBACK_RECHECK_MS) + 1;
/** The XCom task id under which run-level callbacks record that they ran. */
const RUN_MARKER_TASK = '__run__';

function doneKey(m: CallbackMessage): XcomKey {
  return { dagId: m.dagId, runId: m.runId, taskId: m.taskId ?? RUN_MARKER_TASK, key: `__callback_${m.event}_${m.tryNumber ?? 0}` };
}

/**
 * Handles one callback message: runs the callback unless it already ran; a delayed copy
 * runs it only if its event really happened, and waits while the writer may still be at work.
 *
 * @example
 * await handleCallback(ports, { kind: 'callback', dagId: 'etl', runId: 'r1', taskId: 'load', tryNumber: 1, event: 'failure' });
 */
export async function handleCallback(p: Ports, m: CallbackMessage): Promise<'done' | 'dropped'> {
  const rc = await loadRunCtx(p, m.dagId, m.runId);
  if (!rc || (m.taskId !== undefined && !hasTask(rc.spec, m.taskId))) return 'dropped';
  const marker = doneKey(m);
  if ((await p.store.getXcom(marker)) !== undefined) return 'dropped';
  const ti = m.taskId === undefined ? undefined : await p.store.getTask({ dagId: m.dagId, runId: m.runId, taskId: m.taskId });
  const now = p.clock.now();
  const claimId = `cb:${callbackTimerId(m)}`;
  // Kept as long as the run's records (retainUntil): a claim must outlive every copy of its message.
  const expires = retainUntil(p);
  if (!m.verify) {
    // Once per event: the message and its delayed copy race for one claim.
    if (!(await p.store.claimPoke(claimId, 0, expires))) return 'dropped';
  } else {
    const attempt = m.attempt ?? 0;
    const recheck = async () => {
      const next = { ...m, attempt: attempt + 1 };
      await p.timer.schedule(callbackTimerId(next, attempt + 1), now + CALLBACK_RECHECK_MS, next);
      return 'done' as const;
    };
    const status = eventStatus(m, rc.run, ti);
    if (status === 'not') return 'dropped';
    if (status === 'pending') return recheck();
    // Claimed but not done: the claimer may still be running it. Past a worker's lease it
    // is gone (its invocation has timed out): take over, at least once.
    const cycle = attempt >= takeoverAttempt(p) ? attempt : 0;
    if (!(await p.store.claimPoke(claimId, cycle, expires))) return recheck();
    p.metrics.count('CallbacksRecovered');
  }
  if (m.taskId !== undefined && ti) {
    await runTaskCallbacks(p, rc, taskSpec(rc.spec, m.taskId), ti, m.event);
  } else {
    const tasks = await p.store.listTasks(m.dagId, m.runId);
    const failedTasks = tasks.filter((t) => t.state === 'failed').map((t) => t.taskId).sort();
    const runTi: TaskInstance = { dagId: m.dagId, runId: m.runId, taskId: DAG_CALLBACKS, state: 'success', tryNumber: 0, upstream: {} };
    const info = { event: m.event, state: rc.run.state, failedTasks };
    await invoke(p, rc, runTi, m.event, info, rc.spec.notify, { state: rc.run.state, failed_tasks: failedTasks.join(', ') });
  }
  await p.store.putXcom(marker, p.clock.now(), retainUntil(p));
  return 'done';
}

/** The task defines an `onExecute` callback (the worker calls {@link runExecuteCallback} only then). */
export function hasExecuteCallback(t: TaskSpec): boolean {
  return t.callbacks?.includes('execute') ?? false;
}

/** `onExecute`: before a try's body, in the worker, once per try that starts. */
export async function runExecuteCallback(p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance): Promise<void> {
  if (!hasExecuteCallback(t)) return;
  await runTaskCallbacks(p, rc, t, ti, 'execute');
}

async function runTaskCallbacks(p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance, event: TaskCallbackEvent): Promise<void> {
  const info = { event, state: ti.state, error: ti.error };
  await invoke(p, rc, ti, event, info, t.notify, { state: ti.state, error: ti.error ?? '' }, t.executionTimeoutMs);
}

/**
 * Runs a callback under its timeout: past it the callback's signal aborts (an isolated
 * thread is killed) and the call fails with a one-line error. Never past the lease, after
 * which another worker would take the callback over while this one still ran it.
 */
async function withTimeout(p: Ports, timeoutMs: number, abort: AbortController, call: Promise<unknown>): Promise<void> {
  const ms = Math.min(timeoutMs, p.config.defaultLeaseMs - p.config.leaseMarginMs);
  const stop = new AbortController();
  const timeout = p.clock.sleep(ms, stop.signal).then(() => {
    if (stop.signal.aborted) return;
    const err = new CallbackTimeout(`timed out after ${formatDuration(ms)}`);
    abort.abort(err);
    throw err;
  });
  try {
    await Promise.race([call, timeout]);
  } finally {
    stop.abort('callback settled');
  }
}

async function invoke(
  p: Ports, rc: RunCtx, ti: TaskInstance, event: TaskCallbackEvent | CallbackEvent, info: Record<string, unknown>,
  notifiers: NotifierSpec[] | undefined, extra: Record<string, unknown>, timeoutMs = CALLBACK_TIMEOUT_MS,
): Promise<void> {
  const where = { dagId: rc.run.dagId, runId: rc.run.runId, ...(ti.taskId ? { taskId: ti.taskId, tryNumber: ti.tryNumber } : {}), callback: event };
  let bundle: LoadedBundle | undefined;
  try {
    bundle = await p.bundles.load(rc.run.bundleVersion);
  } catch (err) {
    p.log.error('callback skipped: the bundle cannot be loaded', { ...where, error: (err as Error).message });
  }
  // A mapped instance (`size#2`) runs its task's callbacks, with its own context (ctx.mapIndex).
  const fn = bundle?.taskMethod(rc.run.dagId, baseTaskId(ti.taskId), callbackMethod(event as TaskCallbackEvent));
  if (fn) {
    const abort = new AbortController();
    const ctx = new RunningTaskContext(rc, ti, p, abort.signal);
    try {
      await fn.ready?.();
      await withTimeout(p, timeoutMs, abort, Promise.resolve().then(() => fn(ctx, info)));
      p.metrics.count('CallbacksRun');
    } catch (err) {
      const e = err as Error & { remoteStack?: string };
      p.metrics.count('CallbacksFailed');
      const text = e instanceof CallbackTimeout ? e.message : redact(e?.remoteStack ?? e?.stack ?? String(err));
      ctx.log.error(`callback ${event} failed: ${text}`, { callback: event });
    }
  }
  for (const n of notifiers ?? []) {
    if (n.event !== event) continue;
    try {
      if (!p.notifier) throw new Error('this runtime has no notifier');
      const vars = { ...(await secretVarsFor(p, rc, ti.taskId, n)), event, ...extra } as TemplateVars;
      await p.notifier.send(renderNotifier(n, vars));
      p.metrics.count('CallbacksRun');
    } catch (err) {
      p.metrics.count('CallbacksFailed');
      p.log.error(`notifier ${n.type} for ${event} failed: ${redact((err as Error)?.message ?? String(err))}`, where);
    }
  }
}

/**
 * Renders a notifier's templates. A webhook body that is a string becomes Slack's `{ text }`.
 *
 * @example
 * renderNotifier({ event: 'failure', type: 'webhook', url: 'https://hooks.slack.com/x', body: '{{ dag_id }} failed' }, vars);
 * // { type: 'webhook', url: 'https://hooks.slack.com/x', body: { text: 'etl failed' } }
 */
export function renderNotifier(n: NotifierSpec, vars: TemplateVars): RenderedNotifier {
  if (n.type === 'sns') {
    return {
      type: 'sns', topicArn: renderTemplate(n.topicArn, vars), message: renderTemplate(n.message, vars),
      ...(n.subject !== undefined ? { subject: renderTemplate(n.subject, vars) } : {}),
    };
  }
  const body = n.body === undefined ? DEFAULT_WEBHOOK_TEXT : n.body;
  return {
    type: 'webhook', url: renderTemplate(n.url, vars),
    body: typeof body === 'string' ? { text: renderTemplate(body, vars) } : renderDeep(body, vars),
    ...(n.headers ? { headers: renderDeep(n.headers, vars) } : {}),
  };
}

const DEFAULT_WEBHOOK_TEXT = 'Airless: {{ dag_id }} {{ task_id }} {{ event }} ({{ run_id }}, state {{ state }})';
