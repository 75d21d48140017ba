/**
 * Waiting without holding a slot (AIP-40, AIP-17): deferrals resumed by timers or
 * signals, batched sensors registered for the poker, and the fire path that brings a
 * waiting task back. A waiting task holds no worker and no maxActiveTasks slot.
 */
import type { DeferRequest } from './context.js';
import { specFor, taskSpec, type RunCtx } from './dag-index.js';
import { parseDuration } from './duration.js';
import { afterTerminal, holdsSlots, keyOf, queueTask, wakeReady } from './follow.js';
import { annotate, newToken, transition } from './transition.js';
import { canonicalJson, sha256Hex } from './hash.js';
import type { SignalRecord, TaskInstance, TaskSpec, TriggerSpec } from './model.js';
import { taskKeyString } from './model.js';
import type { FireMessage, Ports } from './ports.js';
import { failTry } from './worker-finish.js';
import { renderDeep, renderTemplate, templateVars } from './template.js';

/** Poke targets are spread over this many virtual shards; poker i of N takes v ≡ i (mod N). */
export const VIRTUAL_SHARDS = 64;
/** How often reconcile re-checks a task waiting on an event (a missed signal). */
export const EVENT_RECHECK_MS = 60_000;

export { newToken };

export function varsFor(rc: RunCtx, taskId: string) {
  return templateVars({
    dagId: rc.run.dagId,
    runId: rc.run.runId,
    taskId,
    logicalDate: rc.run.logicalDate,
    dataIntervalStart: rc.run.dataIntervalStart,
    dataIntervalEnd: rc.run.dataIntervalEnd,
    params: { ...rc.spec.params, ...rc.run.conf },
    conf: rc.run.conf,
  });
}

/** Time at which a `{after}` / `{at}` trigger fires. */
export function fireTime(trigger: { after?: string | number; at?: string | number }, now: number): number {
  if (trigger.after !== undefined) return now + parseDuration(trigger.after);
  const at = typeof trigger.at === 'number' ? trigger.at : Date.parse(String(trigger.at));
  if (!Number.isFinite(at)) throw new Error(`invalid trigger time ${JSON.stringify(trigger.at)}`);
  return at;
}

/** Stable identity of a sensor target: `hash(type + canonical rendered poke context)`. */
export function sensorHash(type: string, pokeContext: unknown): { hashcode: string; shardcode: number } {
  const hashcode = sha256Hex(`${type}\n${canonicalJson(pokeContext)}`).slice(0, 32);
  return { hashcode, shardcode: parseInt(hashcode.slice(0, 8), 16) % VIRTUAL_SHARDS };
}

/** A sensor became ready: batched sensors register for the poker, time sensors arm a timer. */
export async function startWaiting(p: Ports, rc: RunCtx, ti: TaskInstance, t: TaskSpec): Promise<void> {
  const s = t.sensor!;
  const now = p.clock.now();
  const vars = varsFor(rc, ti.taskId);
  const pokeContext = renderDeep(s.pokeContext, vars) as Record<string, unknown>;
  const tryNumber = ti.tryNumber + 1;
  const sensorStartedAt = ti.sensorStartedAt ?? now;
  const timeoutAt = sensorStartedAt + s.timeoutMs;
  if (s.type === 'time') {
    const fireAt = fireTime(pokeContext as { after?: string; at?: string }, now);
    const token = newToken(p);
    const r = await transition(p, rc, ti, 'deferred', {
      owner: token, nextMethod: '__time_sensor', trigger: { at: fireAt }, sensorStartedAt, dueAt: fireAt + p.config.timerGraceMs,
    });
    if (!r.ok) return;
    p.metrics.count('TasksDeferred');
    await armTimer(p, r.item, fireAt, token);
    return;
  }
  const { hashcode, shardcode } = sensorHash(s.type, pokeContext);
  // The trigger row is written first: a crash before the state write leaves a
  // registration that the next decision re-uses, never a sensing task nobody pokes.
  const reg = {
    id: taskKeyString(ti), kind: 'sensor' as const, dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber,
    createdAt: now, timeoutAt, bundleVersion: rc.run.bundleVersion, sensorType: s.type, pokeContext,
    hashcode, shardcode, nextPokeAt: now, pokeIntervalMs: s.pokeIntervalMs, softFail: s.softFail,
  };
  const put = await p.store.putTrigger(reg);
  // A row left by an earlier try (a crash after its terminal write, then a clear) would
  // be deleted by the poker as stale and strand this try: replace it.
  if (!put.ok && put.current && put.current.tryNumber !== tryNumber) {
    await p.store.deleteTrigger(reg.id);
    await p.store.putTrigger(reg);
  }
  const r = await transition(p, rc, ti, 'sensing', { sensorStartedAt, dueAt: timeoutAt });
  if (!r.ok) return;
  p.metrics.count('SensorsRegistered');
}

async function armTimer(p: Ports, ti: TaskInstance, fireAt: number, token: string): Promise<void> {
  const msg: FireMessage = { kind: 'fire', dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber, reason: 'trigger', token };
  await p.timer.schedule(`defer-${token}`, fireAt, msg);
}

/** `running → deferred`: stores the resume point and arms the trigger; the worker is then free. */
export async function deferTask(p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance, req: DeferRequest): Promise<boolean> {
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
  if (ti.nextMethod === '__time_sensor') {
    const r = await transition(p, rc, ti, 'success');
    if (!r.ok) return false;
    p.metrics.count('TriggersFired');
    await afterTerminal(p, rc, ti.taskId, 'success');
    return true;
  }
  const withEvent: TaskInstance = { ...ti, triggerEvent: { payload: event.payload, firedAt: now, key: event.key } };
  const r = await annotate(p, ti, { triggerEvent: withEvent.triggerEvent });
  if (!r.ok) return false;
  if (!(await queueTask(p, rc, r.item))) return false;
  p.metrics.count('TriggersFired');
  if (ti.trigger && 'event' in ti.trigger) await p.store.deleteTrigger(taskKeyString(ti));
  return true;
}

/** A timer message: a deferral trigger, a retry delay ending, a reschedule poke. */
export async function handleFire(p: Ports, rc: RunCtx, msg: FireMessage): Promise<void> {
  const ti = await p.store.getTask(msg);
  if (!ti || ti.tryNumber !== msg.tryNumber) return void p.metrics.count('StaleFires');
  if (msg.reason === 'retry') {
    if (ti.state === 'up_for_retry') await queueTask(p, rc, ti);
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
  const sig: SignalRecord = { key, payload, createdAt: now, expiresAt: now + p.config.signalRetentionMs };
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

/** Reconcile's look at a deferred task that is due: time out, fire a lost timer, or re-check a signal. */
export async function reviewDeferred(p: Ports, rc: RunCtx, ti: TaskInstance): Promise<void> {
  const now = p.clock.now();
  const t = taskSpec(rc.spec, ti.taskId);
  if (ti.deferTimeoutAt !== undefined && ti.deferTimeoutAt <= now) {
    await failTry(p, rc, t, ti, `deferral timed out waiting for ${describeTrigger(ti)}`, false);
    if (ti.trigger && 'event' in ti.trigger) await p.store.deleteTrigger(taskKeyString(ti));
    return;
  }
  if (ti.trigger && 'at' in ti.trigger && Number(ti.trigger.at) <= now) {
    p.metrics.count('TimersRecovered');
    await resumeDeferred(p, rc, ti, { reason: 'trigger' });
    return;
  }
  if (ti.trigger && 'event' in ti.trigger) {
    const sig = await p.store.getSignal(ti.trigger.event, now);
    if (sig) {
      await resumeDeferred(p, rc, ti, { payload: sig.payload, key: ti.trigger.event, reason: 'trigger' });
      return;
    }
  }
  const next = Math.min(now + EVENT_RECHECK_MS, ti.deferTimeoutAt ?? Number.POSITIVE_INFINITY);
  await annotate(p, ti, { dueAt: next });
}

function describeTrigger(ti: TaskInstance): string {
  const tr = ti.trigger;
  if (tr && 'event' in tr) return `event ${JSON.stringify(tr.event)}`;
  if (tr && 'at' in tr) return `the timer of ${new Date(Number(tr.at)).toISOString()}`;
  return 'its trigger';
}

export { keyOf };
