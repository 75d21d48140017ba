/**
 * Sensors. Batched mode (the default, AIP-17): one poker per shard pokes each distinct
 * target once per cycle and settles every task waiting on it. Reschedule mode: the
 * worker pokes once with the DAG's code and defers on a timer until the next poke.
 */
import { specFor, taskSpec, type RunCtx } from '../rules/dag-index.js';
import { formatDuration } from '../rules/duration.js';
import { BundleNotFoundError } from '../model/errors.js';
import { afterTerminal } from './settle.js';
import { annotate, transition } from '../write/transition.js';
import type { TaskInstance, TaskSpec, TriggerRecord } from '../model/types.js';
import { taskKeyString } from '../model/types.js';
import type { LoadedBundle, Ports, SensorPoke } from '../model/ports.js';
import { renderDeep } from '../rules/template.js';
import { secretVarsFor } from './secrets.js';
import { VIRTUAL_SHARDS } from './sensor-start.js';
import { afterPokeCycle } from './poker-schedule.js';
import { failTry, type Outcome } from './worker-finish.js';
import { checkJobs, type JobCheckReport } from './job-safety-net.js';

/** `external_task`: a task of another DAG, for the same logical date, reached an allowed state. */
function externalTaskPoke(p: Ports): SensorPoke {
  return async (pc) => {
    const dagId = String(pc.externalDagId ?? pc.dagId);
    const taskId = String(pc.externalTaskId ?? pc.taskId);
    const logical = Date.parse(String(pc.logicalDate));
    if (!Number.isFinite(logical)) throw new Error(`external_task needs logicalDate (an ISO date, e.g. '{{ logical_date }}'), got ${JSON.stringify(pc.logicalDate)}`);
    const allowed = (pc.allowedStates as string[] | undefined) ?? ['success'];
    // A scheduled run's id is a function of its tick: one read, not a scan of the history.
    const run = (await p.store.getRun(dagId, `scheduled__${new Date(logical).toISOString()}`)) ??
      (await p.store.listRuns(dagId, { limit: 200 })).find((r) => r.logicalDate === logical);
    if (!run) return false;
    const ti = await p.store.getTask({ dagId, runId: run.runId, taskId });
    return ti !== undefined && allowed.includes(ti.state);
  };
}

/** Finds the poke function of a sensor type: built-ins first, then the bundle's own. */
export async function resolvePoke(p: Ports, type: string, bundleVersion?: string): Promise<SensorPoke | undefined> {
  if (type === 'external_task') return externalTaskPoke(p);
  const builtin = p.sensors?.[type];
  if (builtin) return builtin;
  if (!bundleVersion) return undefined;
  return (await p.bundles.load(bundleVersion)).sensorPoke(type);
}

/**
 * Calls a poke with the per-poke timeout. `ok` is the poke's answer; `error` is set when
 * it threw or timed out (the caller fails the try, or with silentFail counts it as "not yet").
 */
export async function timedPoke(p: Ports, poke: SensorPoke, pc: Record<string, unknown>): Promise<{ ok: boolean; error?: string }> {
  // An isolated poke gets its thread ready first: the timeout counts the poke, not a thread's start-up.
  try { await poke.ready?.(); } catch (err) { return { ok: false, error: (err as Error).message }; }
  const stop = new AbortController();
  const timeout = p.clock.sleep(p.config.pokeTimeoutMs, stop.signal).then(() => {
    if (!stop.signal.aborted) throw new Error(`poke timed out after ${formatDuration(p.config.pokeTimeoutMs)}`);
    return false;
  });
  try {
    // `signal` ends when the poke settles or times out: an isolated poke's thread is then terminated.
    return { ok: Boolean(await Promise.race([Promise.resolve().then(() => poke(pc, { now: p.clock.now(), signal: stop.signal })), timeout])) };
  } catch (err) {
    return { ok: false, error: (err as Error)?.message ?? String(err) };
  } finally {
    // A plain reason: `abort()` without one builds a DOMException (a stack trace) per poke.
    stop.abort(POKE_SETTLED);
  }
}

const POKE_SETTLED = 'poke settled';
/** How long a poke claim (`p:<hashcode>`) is kept: far beyond any cycle that may still run. */
const POKE_CLAIM_RETENTION_MS = 24 * 3600_000;

/** Reschedule mode: one poke by the worker, then success, timeout, or a deferral until the next poke. */
export async function pokeOnce(p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance, bundle: LoadedBundle): Promise<Outcome> {
  const s = t.sensor!;
  const now = p.clock.now();
  const pc = renderDeep(s.pokeContext, await secretVarsFor(p, rc, ti.taskId, s.pokeContext)) as Record<string, unknown>;
  const poke = s.type === 'external_task' || p.sensors?.[s.type] ? await resolvePoke(p, s.type) : bundle.sensorPoke(s.type);
  if (!poke) return { kind: 'failed', error: `unknown sensor type ${s.type}`, noRetry: true };
  const r = await timedPoke(p, poke, pc);
  p.metrics.count('Pokes');
  if (r.ok) {
    p.log.info('poke: condition met', { dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber });
    return { kind: 'success', value: undefined };
  }
  // As Airflow's BaseSensorOperator.execute (task-sdk/src/airflow/sdk/bases/sensor.py): an
  // exception in poke fails the try (its retries apply; soft_fail does not skip it) unless
  // silent_fail, which logs it and takes the poke as False.
  if (r.error !== undefined) {
    if (!s.silentFail) return { kind: 'failed', error: `poke failed: ${r.error}` };
    p.log.error('sensor poke failed; silentFail counts it as not yet', { dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, error: r.error });
  }
  const started = ti.sensorStartedAt ?? ti.startedAt ?? now;
  if (now - started >= s.timeoutMs) {
    const error = `sensor timed out after ${formatDuration(s.timeoutMs)}${r.error ? `; last error: ${r.error}` : ''}`;
    return s.softFail ? { kind: 'skipped', reason: error } : { kind: 'failed', error, noRetry: true };
  }
  const n = (ti.pokeCount ?? 0) + 1;
  if (r.error === undefined) p.log.info('poke: not yet', { dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber, pokes: n });
  // As Airflow's BaseSensorOperator.execute (task-sdk/src/airflow/sdk/bases/sensor.py): the
  // timeout is checked after a poke returns false, and the next poke keeps its interval;
  // only exponential backoff trims its wait to the time left (_get_next_poke_interval).
  let wait = s.pokeIntervalMs;
  if (s.exponentialBackoff) {
    wait = Math.min(s.pokeIntervalMs * 2 ** Math.min(n - 1, 30), s.maxPokeIntervalMs ?? 24 * 3600_000);
    wait = Math.max(Math.min(wait, started + s.timeoutMs - now), 1);
  }
  await annotate(p, ti, { pokeCount: n, sensorStartedAt: started, error: r.error ?? null });
  return { kind: 'deferred', request: { __airless: 'defer', trigger: { after: wait }, resume: '__poke' } };
}

export interface PokeReport {
  sensors: number;
  distinct: number;
  pokes: number;
  settled: number;
  /** Earliest time a sensor of this shard that is still waiting is due again. */
  nextPokeAt?: number;
  /** The jobs without an end event this shard described (flow/job-safety-net.ts). */
  jobs?: JobCheckReport;
}

/** Runs `fn` over items with at most `limit` in flight. */
async function pool<T>(items: readonly T[], limit: number, fn: (x: T) => Promise<void>): Promise<void> {
  let i = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (i < items.length) await fn(items[i++]);
  });
  await Promise.all(lanes);
}

/**
 * One poke cycle of one shard: each due target (hashcode) is claimed for the cycle,
 * poked once, and all its waiters are settled together.
 *
 * @example
 * await pokeShard(ports, 0, { shards: 8, cycle: Math.floor(now / 60_000) });
 */
export async function pokeShard(
  p: Ports,
  shard: number,
  opts: { shards?: number; cycle: number; /** Time between cycles. @default 60_000 */ cycleMs?: number },
): Promise<PokeReport> {
  const shards = opts.shards ?? p.config.shards;
  const cycleMs = opts.cycleMs ?? 60_000;
  const now = p.clock.now();
  const virtual = Array.from({ length: VIRTUAL_SHARDS }, (_, v) => v).filter((v) => v % shards === shard);
  const triggers = (await Promise.all(virtual.map((v) => p.store.listSensorTriggers(v, Number.MAX_SAFE_INTEGER)))).flat();
  const groups = new Map<string, TriggerRecord[]>();
  for (const t of triggers) {
    const g = groups.get(t.hashcode!);
    if (g) g.push(t);
    else groups.set(t.hashcode!, [t]);
  }
  const due = [...groups.values()].filter((g) => g.some((t) => (t.nextPokeAt ?? 0) <= now));
  const report: PokeReport = { sensors: triggers.length, distinct: groups.size, pokes: 0, settled: 0 };
  const later = (at: number) => { report.nextPokeAt = Math.min(report.nextPokeAt ?? at, at); };
  for (const t of triggers) if ((t.nextPokeAt ?? 0) > now) later(t.nextPokeAt!);
  await pool(due, p.config.pokeConcurrency, async (group) => {
    const first = group[0];
    // The claim only has to outlive the cycle: it expires a day later (DynamoDB TTL).
    if (!(await p.store.claimPoke(first.hashcode!, opts.cycle, Math.ceil((now + POKE_CLAIM_RETENTION_MS) / 1000)))) {
      later(now + p.config.pokeTimeoutMs);
      return;
    }
    let loadError: string | undefined;
    let gone = false;
    const poke = await resolvePoke(p, first.sensorType!, first.bundleVersion).catch((err: Error) => {
      loadError = `bundle ${first.bundleVersion} cannot be loaded: ${err.message}`;
      gone = err instanceof BundleNotFoundError;
      return undefined;
    });
    const r = poke ? await timedPoke(p, poke, first.pokeContext ?? {}) : { ok: false, error: loadError ?? `unknown sensor type ${first.sensorType}` };
    report.pokes++;
    // One line per target and poke (not per waiter), as Airflow logs each poke: the waiters'
    // `airless logs` show it by its hashcode.
    const target = { sensorType: first.sensorType, hashcode: first.hashcode, waiters: group.length };
    if (r.ok) p.log.info('poke: condition met', target);
    else if (r.error) p.log.warn('poke failed', { ...target, error: r.error });
    else p.log.info('poke: not yet', target);
    if (!r.ok) {
      // A poke that threw fails the try of every waiter without silentFail (pokeOnce's rule, per waiter).
      const failing = r.error === undefined ? [] : group.filter((t) => !t.silentFail);
      // An unknown sensor type, or a bundle version that is gone, will not come back: no retry.
      const noRetry = !poke && (loadError === undefined || gone);
      await Promise.all(failing.map(async (t) => { if (await failSensor(p, t, `poke failed: ${r.error}`, noRetry)) report.settled++; }));
      await Promise.all(group.filter((t) => !failing.includes(t)).map(async (t) => {
        const interval = t.pokeIntervalMs ?? 60_000;
        later(now + interval);
        // A sensor poked every cycle stays due as it is: no write per waiter per cycle
        // (it would move the sensor index entry too). Only a longer interval, or a new
        // error message, is written.
        const patch: Partial<TriggerRecord> = {};
        if (interval > cycleMs) patch.nextPokeAt = now + interval;
        if (r.error !== t.lastError) patch.lastError = r.error;
        if (Object.keys(patch).length > 0) await p.store.updateTrigger(t.id, patch);
      }));
      return;
    }
    await Promise.all(group.map(async (t) => { if (await settleSensor(p, t)) report.settled++; }));
  });
  // The jobs' safety net rides on this poker too (flow/job-safety-net.ts): its rows keep the
  // poker on like sensors do, so they are checked first and counted in the drain decision.
  report.jobs = await checkJobs(p, shard, shards);
  await afterPokeCycle(p, shard, report.sensors + report.jobs.waiting, now);
  // Nothing is counted by a cycle that found no sensor: an idle poker publishes no metric.
  if (report.sensors > 0) p.metrics.count('SensorsWaiting', report.sensors);
  if (report.pokes > 0) {
    p.metrics.count('Pokes', report.pokes);
    p.metrics.count('DistinctTargetsPoked', report.pokes);
    p.metrics.timing('DedupRatio', report.sensors / Math.max(report.distinct, 1));
  }
  return report;
}

/** `sensing → success` for one waiter whose target turned true. */
async function settleSensor(p: Ports, t: TriggerRecord): Promise<boolean> {
  const ti = await p.store.getTask(t);
  if (!ti || ti.state !== 'sensing' || ti.tryNumber !== t.tryNumber) {
    // An orphan registration (the task moved on) is removed; a task still `scheduled`
    // (its registration raced a crash) keeps it for the decision that follows.
    if (!ti || ti.state !== 'scheduled') await p.store.deleteTrigger(t.id);
    return false;
  }
  const run = await p.store.getRun(t.dagId, t.runId);
  if (!run) return false;
  const rc = { run, spec: await specFor(p, run) };
  const r = await transition(p, rc, ti, 'success');
  if (!r.ok) return false;
  p.log.info('sensor condition met', { dagId: t.dagId, runId: t.runId, taskId: t.taskId, tryNumber: ti.tryNumber, hashcode: t.hashcode });
  await p.store.deleteTrigger(t.id);
  await afterTerminal(p, rc, t.taskId, 'success');
  return true;
}

/** A waiter whose shared poke threw: its try fails as a worker's would (retries apply), and its registration goes. */
async function failSensor(p: Ports, t: TriggerRecord, error: string, noRetry: boolean): Promise<boolean> {
  const ti = await p.store.getTask(t);
  if (!ti || ti.state !== 'sensing' || ti.tryNumber !== t.tryNumber) return false;
  const run = await p.store.getRun(t.dagId, t.runId);
  if (!run) return false;
  const rc = { run, spec: await specFor(p, run) };
  if (!(await failTry(p, rc, taskSpec(rc.spec, t.taskId), ti, error, noRetry)).ok) return false;
  await p.store.deleteTrigger(t.id);
  return true;
}

/** Reconcile: a sensing task past its timeout fails (or is skipped with softFail). */
export async function timeoutSensor(p: Ports, rc: RunCtx, ti: TaskInstance, t: TaskSpec): Promise<void> {
  const trig = await p.store.getTrigger(taskKeyString(ti));
  const s = t.sensor!;
  const error = `sensor timed out after ${formatDuration(s.timeoutMs)}${trig?.lastError ? `; last error: ${trig.lastError}` : ''}`;
  const state = s.softFail ? 'skipped' : 'failed';
  const r = await transition(p, rc, ti, state, { error });
  if (!r.ok) return;
  p.log.warn(`${error}: ${state}`, { dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber });
  await p.store.deleteTrigger(taskKeyString(ti));
  await afterTerminal(p, rc, ti.taskId, state);
}
