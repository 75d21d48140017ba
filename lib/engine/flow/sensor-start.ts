/**
 * The start of a wait that needs no worker: a sensor whose trigger rule passed is
 * registered for the poker (batched mode, AIP-17) or, for a time sensor, deferred on a
 * timer. Also the helpers every wait shares: trigger times, target hashes, timers.
 */
import { type RunCtx } from '../rules/dag-index.js';
import { parseDuration } from '../rules/duration.js';
import { canonicalJson, sha256Hex } from '../rules/hash.js';
import type { TaskInstance, TaskSpec } from '../model/types.js';
import { taskKeyString } from '../model/types.js';
import type { FireMessage, Ports } from '../model/ports.js';
import { renderDeep } from '../rules/template.js';
import { secretVarsFor } from './secrets.js';
import { newToken, transition } from '../write/transition.js';
import { VIRTUAL_SHARDS } from '../rules/shards.js';
import { ensurePokerOn, pokerShardOf } from './poker-schedule.js';

/** The log line of a batched sensor's registration; it names the poke target's hashcode (lib/cli/sensor-logs.ts). */
export const SENSOR_WAITS_LINE = 'sensor waits for the poker';

/** The resume point of a time sensor's timer: it ends the task, no worker runs. */
export const TIME_SENSOR_METHOD = '__time_sensor';

/**
 * What a time sensor's fired timer means: `success` when it woke at the target time,
 * `timeout` when the sensor's timeout came first (a deferral written before the timeout
 * counted carries no `targetAt` and succeeds, as it did).
 */
export function timeSensorOutcome(ti: TaskInstance): 'success' | 'timeout' {
  const targetAt = (ti.nextKwargs as { targetAt?: unknown } | undefined)?.targetAt;
  const wakeAt = ti.trigger && 'at' in ti.trigger ? Number(ti.trigger.at) : Number.NaN;
  return typeof targetAt === 'number' && targetAt > wakeAt ? 'timeout' : 'success';
}

/** Poke targets are spread over this many virtual shards; poker i of N takes v ≡ i (mod N). */
export { VIRTUAL_SHARDS };

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
  const vars = await secretVarsFor(p, rc, ti.taskId, s.pokeContext);
  const pokeContext = renderDeep(s.pokeContext, vars) as Record<string, unknown>;
  const tryNumber = ti.tryNumber + 1;
  const sensorStartedAt = ti.sensorStartedAt ?? now;
  const timeoutAt = sensorStartedAt + s.timeoutMs;
  if (s.type === 'time') {
    const targetAt = fireTime(pokeContext as { after?: string; at?: string }, now);
    // As Airflow's TimeSensor, the sensor's timeout counts: a target beyond it ends the wait
    // at the timeout (failed, or skipped with softFail). Both times are known now, so the
    // outcome is decided here: the timer wakes at the earlier one, and `targetAt` tells
    // the fire which it was (no clock comparison at fire time, so a late timer cannot flip it).
    const wakeAt = Math.min(targetAt, timeoutAt);
    const token = newToken(p);
    const r = await transition(p, rc, ti, 'deferred', {
      owner: token, nextMethod: TIME_SENSOR_METHOD, nextKwargs: { targetAt }, trigger: { at: wakeAt }, sensorStartedAt,
      dueAt: wakeAt + p.config.timerGraceMs,
    });
    if (!r.ok) return;
    p.metrics.count('TasksDeferred');
    const until = new Date(targetAt).toISOString();
    p.log.info(wakeAt < targetAt ? `time sensor: ${until} is past its timeout, ends at ${new Date(wakeAt).toISOString()}` : `time sensor waits until ${until}`, {
      dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber,
    });
    await armTimer(p, r.item, wakeAt, token);
    return;
  }
  const { hashcode, shardcode } = sensorHash(s.type, pokeContext);
  // The trigger row is written first: a crash before the state write leaves a
  // registration that the next decision re-uses, never a sensing task nobody pokes.
  const reg = {
    id: taskKeyString(ti), kind: 'sensor' as const, dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber,
    createdAt: now, timeoutAt, bundleVersion: rc.run.bundleVersion, sensorType: s.type, pokeContext,
    hashcode, shardcode, nextPokeAt: now, pokeIntervalMs: s.pokeIntervalMs, softFail: s.softFail,
    ...(s.silentFail ? { silentFail: true } : {}),
  };
  const put = await p.store.putTrigger(reg);
  // A row left by an earlier try (a crash after its terminal write, then a clear) would
  // be deleted by the poker as stale and strand this try: replace it.
  if (!put.ok && put.current && put.current.tryNumber !== tryNumber) {
    await p.store.deleteTrigger(reg.id);
    await p.store.putTrigger(reg);
  }
  // After the row, before the state write: a crash in between leaves the task `scheduled`,
  // and the decision that follows comes back here (flow/poker-schedule.ts).
  await ensurePokerOn(p, pokerShardOf(shardcode, p.config.shards));
  const r = await transition(p, rc, ti, 'sensing', { sensorStartedAt, dueAt: timeoutAt });
  if (!r.ok) return;
  p.metrics.count('SensorsRegistered');
  // The poker's lines about this target carry its hashcode, not the task: `airless logs`
  // finds them through this line (lib/cli/sensor-logs.ts).
  p.log.info(SENSOR_WAITS_LINE, {
    dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber, sensorType: s.type, hashcode,
    pokeIntervalMs: s.pokeIntervalMs, timeoutAt: new Date(timeoutAt).toISOString(),
  });
}

/** Arms the timer that resumes a deferral (its claim token makes a stale fire harmless). */
export async function armTimer(p: Ports, ti: TaskInstance, fireAt: number, token: string): Promise<void> {
  const msg: FireMessage = { kind: 'fire', dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber, reason: 'trigger', token };
  await p.timer.schedule(`defer-${token}`, fireAt, msg);
}

