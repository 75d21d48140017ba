/**
 * Waiting without holding a slot (AIP-40, AIP-17): deferrals resumed by timers or
 * signals, batched sensors registered for the poker, and the fire path that brings a
 * waiting task back. A waiting task holds no worker and no maxActiveTasks slot.
 */
import type { DeferRequest } from '../model/context.js';
import { specFor, taskSpec, varsFor, type RunCtx } from '../rules/dag-index.js';
import { formatDuration, parseDuration } from '../rules/duration.js';
import { afterTerminal, queueTask, startTry } from './settle.js';
import { armTimer, fireTime, TIME_SENSOR_METHOD, timeSensorOutcome } from './sensor-start.js';
import { annotate, transition } from '../write/transition.js';
import type { SignalRecord, TaskInstance, TaskSpec, TriggerSpec } from '../model/types.js';
import { taskKeyString } from '../model/types.js';
import type { FireMessage, Ports } from '../model/ports.js';
import { renderTemplate } from '../rules/template.js';
import { deferOnEvent } from './event-wait.js';
import { InvalidInputError } from '../model/errors.js';

/** How often reconcile re-checks a task waiting on an event (a missed signal). */
export const EVENT_RECHECK_MS = 60_000;

/** `running → deferred`: stores the resume point and arms the trigger; the worker is then free. */
export async function deferTask(p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance, req: DeferRequest): Promise<boolean> {
  if (req.event !== undefined && req.trigger !== undefined) throw new InvalidInputError('ctx.defer takes a trigger or an event, not both');
  if (req.event !== undefined) return deferOnEvent(p, rc, t, ti, req);
  if (req.trigger === undefined) throw new InvalidInputError('ctx.defer needs a trigger ({ after }, { at }, { event: key }) or an event ({ source, detailType, detail })');
  const now = p.clock.now();
  const vars = varsFor(rc, ti.taskId);
  const timeoutAt = req.timeout !== undefined ? now + parseDuration(req.timeout) : undefined;
  let trigger: TriggerSpec;
  let dueAt: number;
  if ('event' in req.trigger) {
    trigger = { event: renderTemplate(req.trigger.event, vars) };
    dueAt = now + EVENT_RECHECK_MS;
  } else {
    const fireAt = fireTime(req.trigger as { after?: string; at?: string }, now);
    trigger = { at: fireAt };
    dueAt = fireAt + p.config.timerGraceMs;
  }
  if (timeoutAt !== undefined) dueAt = Math.min(dueAt, timeoutAt);
  const r = await transition(p, rc, ti, 'deferred', {
    nextMethod: req.resume ?? 'execute', nextKwargs: req.kwargs ?? {}, trigger, deferTimeoutAt: timeoutAt ?? null, dueAt,
  });
  if (!r.ok) return false;
  p.metrics.count('TasksDeferred');
  if ('at' in trigger) {
    await armTimer(p, r.item, trigger.at as number, ti.owner!);
  } else {
    const key = (trigger as { event: string }).event;
    await p.store.deleteTrigger(taskKeyString(ti));
    await p.store.putTrigger({
      id: taskKeyString(ti), kind: 'event', dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId,
      tryNumber: ti.tryNumber, createdAt: now, eventKey: key, bundleVersion: rc.run.bundleVersion,
    });
    // Written, then read: with the signal path doing the same in reverse, one side sees the other.
    const sig = await p.store.getSignal(key, now);
    if (sig) await resumeDeferred(p, rc, r.item, { payload: sig.payload, key, reason: 'trigger' });
  }
  return true;
}

/**
 * Brings a deferred task back: `deferred → queued` with the trigger event, conditional
 * on the try and the claim token that deferred, so a trigger that fires twice, or late,
 * resumes the task once.
 */
export async function resumeDeferred(
  p: Ports,
  rc: RunCtx,
  ti: TaskInstance,
  event: { payload?: unknown; key?: string; reason: string },
): Promise<boolean> {
  if (ti.state !== 'deferred') return false;
  const now = p.clock.now();
  if (ti.nextMethod === TIME_SENSOR_METHOD) return endTimeSensor(p, rc, ti);
  const withEvent: TaskInstance = { ...ti, triggerEvent: { payload: event.payload, firedAt: now, key: event.key } };
  const r = await annotate(p, ti, { triggerEvent: withEvent.triggerEvent });
  if (!r.ok) return false;
  if (!(await queueTask(p, rc, r.item))) return false;
  p.metrics.count('TriggersFired');
  if (ti.trigger && 'event' in ti.trigger) await p.store.deleteTrigger(taskKeyString(ti));
  return true;
}

/**
 * A time sensor's timer fired: `success` at its target, or its timeout came first and it
 * ends `failed` without retries (Airflow's AirflowSensorTimeout), `skipped` with `softFail`.
 */
async function endTimeSensor(p: Ports, rc: RunCtx, ti: TaskInstance): Promise<boolean> {
  const s = taskSpec(rc.spec, ti.taskId).sensor;
  const timedOut = timeSensorOutcome(ti) === 'timeout' && s !== undefined;
  const state = !timedOut ? 'success' : s.softFail ? 'skipped' : 'failed';
  const r = await transition(p, rc, ti, state, timedOut ? { error: `sensor timed out after ${formatDuration(s.timeoutMs)}` } : {});
  if (!r.ok) return false;
  p.metrics.count('TriggersFired');
  await afterTerminal(p, rc, ti.taskId, state);
  return true;
}

/** A timer message: a deferral trigger, a retry delay ending, a reschedule poke. */
export async function handleFire(p: Ports, rc: RunCtx, msg: FireMessage): Promise<void> {
  const ti = await p.store.getTask(msg);
  if (!ti || ti.tryNumber !== msg.tryNumber) return void p.metrics.count('StaleFires');
  if (msg.reason === 'retry') {
    if (ti.state === 'up_for_retry') await startTry(p, rc, ti);
    return;
  }
  if (ti.state !== 'deferred' || msg.token === undefined || ti.owner !== msg.token) return void p.metrics.count('StaleFires');
  await resumeDeferred(p, rc, ti, { payload: msg.payload, reason: msg.reason });
}

/**
 * An external event (`airless signal`): stored for the retention time, then every
 * task waiting on the key is resumed with the payload.
 *
 * @example
 * await sendSignal(ports, 'approve-2026-01-01', { ok: true });
 */
export async function sendSignal(p: Ports, key: string, payload?: unknown): Promise<number> {
  const now = p.clock.now();
  const sig: SignalRecord = { key, payload, createdAt: now, expiresAt: Math.ceil((now + p.config.signalRetentionMs) / 1000) };
  await p.store.putSignal(sig);
  let resumed = 0;
  for (const t of await p.store.listEventTriggers(key)) {
    const ti = await p.store.getTask(t);
    const run = await p.store.getRun(t.dagId, t.runId);
    if (!ti || !run) continue;
    const rc = { run, spec: await specFor(p, run) };
    if (await resumeDeferred(p, rc, ti, { payload, key, reason: 'trigger' })) resumed++;
  }
  return resumed;
}

