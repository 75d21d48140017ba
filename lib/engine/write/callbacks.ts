/**
 * Callbacks and notifiers: which event a state change raises, and the outbox that makes
 * its callback run at least once. When a transition (or a run's end) raises an event the
 * DAG has a callback for, the writer first arms a delayed copy of the callback message on
 * the timer (`verify`), then writes the state, then sends the message. The callback
 * handler (callbacks-run.ts) runs the callback and records it done; the delayed copy finds
 * it done and is dropped, or (the writer crashed between its write and its send) finds the
 * event happened and runs it, or finds the write never happened and is dropped. Without a
 * callback for the event nothing of this runs: zero extra writes, messages or timers.
 */
import type { RunCtx } from '../rules/dag-index.js';
import type { DagCallbackEvent, DagRun, DagSpec, TaskCallbackEvent, TaskInstance, TaskSpec } from '../model/types.js';
import type { CallbackMessage, Ports } from '../model/ports.js';
import type { RunState, TaskState } from '../model/states.js';

export type CallbackEvent = CallbackMessage['event'];

/** How long after the write the delayed copy checks that the callback ran. */
export const CALLBACK_RECHECK_MS = 60_000;

/** The bundle method a callback is stored as (one per event, on its task; run-level ones on {@link DAG_CALLBACKS}). */
export function callbackMethod(event: TaskCallbackEvent | DagCallbackEvent): string {
  return `__on_${event}`;
}

/** The pseudo task id a bundle keeps a DAG's run-level callbacks under (no task id can be empty). */
export const DAG_CALLBACKS = '';

/** States in which a try has run: only a skip from one of these is a task's own skip (Airflow's on_skipped_callback). */
const TRIED: ReadonlySet<TaskState> = new Set(['running', 'deferred', 'sensing', 'queued']);

/**
 * The callback event a task's move from `from` to `to` raises, when the task defines a
 * callback (or a notifier) for it. An operator's mark raises none, as in Airflow 3.
 *
 * @example
 * taskEvent({ ...spec, callbacks: ['failure'] }, 'running', 'failed'); // 'failure'
 */
export function taskEvent(t: TaskSpec, from: TaskState, to: TaskState, mark = false): CallbackEvent | undefined {
  const defined = t.callbacks;
  if (!defined || mark) return undefined;
  const ev: CallbackEvent | undefined =
    to === 'success' ? 'success'
    : to === 'failed' ? 'failure'
    : to === 'up_for_retry' ? 'retry'
    : to === 'skipped' && TRIED.has(from) ? 'skipped'
    : undefined;
  return ev && defined.includes(ev) ? ev : undefined;
}

/** The run-level event a run ending in `state` raises, when the DAG defines a callback for it. */
export function runEvent(spec: DagSpec, state: RunState): CallbackEvent | undefined {
  const ev: DagCallbackEvent | undefined = state === 'success' ? 'success' : state === 'failed' ? 'failure' : undefined;
  return ev && spec.callbacks?.includes(ev) ? ev : undefined;
}

/**
 * Whether the event of a verify copy happened, as the store shows it now: `'pending'` while
 * the try (or run) has not moved yet (its writer may still be at work).
 */
export function eventStatus(msg: CallbackMessage, run: DagRun, ti: TaskInstance | undefined): 'happened' | 'not' | 'pending' {
  if (msg.taskId === undefined) {
    if (run.state === 'running' || run.state === 'queued') return 'pending';
    return (msg.event === 'success' && run.state === 'success') || (msg.event === 'failure' && run.state === 'failed') ? 'happened' : 'not';
  }
  if (!ti || ti.tryNumber < (msg.tryNumber ?? 0)) return 'not';
  // A later try exists: try N ended up for retry (the only way to a new try but a clear).
  if (ti.tryNumber > (msg.tryNumber ?? 0)) return msg.event === 'retry' ? 'happened' : 'not';
  if (ti.state === 'running' || ti.state === 'queued' || ti.state === 'deferred' || ti.state === 'sensing') return 'pending';
  const reached: Record<CallbackEvent, TaskState> = { success: 'success', failure: 'failed', retry: 'up_for_retry', skipped: 'skipped' };
  return ti.state === reached[msg.event] ? 'happened' : 'not';
}

/** The message of a task event. */
export function taskCallbackMessage(ti: TaskInstance, event: CallbackEvent): CallbackMessage {
  return { kind: 'callback', dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber, event };
}

/** The message of a run event. */
export function runCallbackMessage(rc: RunCtx, event: CallbackEvent): CallbackMessage {
  return { kind: 'callback', dagId: rc.run.dagId, runId: rc.run.runId, event };
}

/** The timer id of a message's delayed copy (idempotent: every writer of the event arms the same one). */
export function callbackTimerId(m: CallbackMessage, attempt = 0): string {
  return `cb-${m.dagId}-${m.runId}-${m.taskId ?? '_run'}-${m.tryNumber ?? 0}-${m.event}${attempt ? `-${attempt}` : ''}`;
}

/** Before the write: arms the delayed copy that runs the callback if the writer dies after its write. */
export async function armCallback(p: Ports, m: CallbackMessage | undefined): Promise<void> {
  if (!m) return;
  await p.timer.schedule(callbackTimerId(m), p.clock.now() + CALLBACK_RECHECK_MS, { ...m, verify: true });
}

/** After the write succeeded: the callback runs now. */
export async function sendCallback(p: Ports, m: CallbackMessage | undefined): Promise<void> {
  if (!m) return;
  await p.queue.send([m]);
}
