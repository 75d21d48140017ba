/**
 * Waiting for an EventBridge event (`ctx.defer({ event })`, and every operator's job): the
 * task is `deferred` with an {@link EventTrigger} and one row in the triggers table, found
 * by its index key (rules/event-key.ts). An event resumes it once: the resume is a
 * compare-and-set on the deferral's claim token (annotate, then `deferred → queued`), so a
 * duplicate delivery, a late event or a racing safety-net describe changes nothing.
 *
 * The race with an early event: the events path keeps every event under its keys, then
 * reads the waits; a wait is stored, then reads the kept events. Whichever writes second
 * sees the other's write (signals do the same, waiting.ts). The one gap is DynamoDB's
 * index: the events path reads the waits through an eventually consistent index, so a
 * wait written a moment before may not be listed yet. A job's wait has the safety net
 * (job-safety-net.ts); any other wait is looked at once more a minute later by reconcile.
 */
import type { DeferRequest } from '../model/context.js';
import type { RunCtx } from '../rules/dag-index.js';
import { parseDuration } from '../rules/duration.js';
import { InvalidInputError } from '../model/errors.js';
import { hashInt } from '../rules/hash.js';
import { taskKeyString, type TaskInstance, type TaskSpec, type TriggerRecord, type TriggerSpec } from '../model/types.js';
import type { AwsEvent, EventTrigger, JobRef, JobStatus } from '../model/events.js';
import type { Ports } from '../model/ports.js';
import { checkEventWait } from '../rules/event-key.js';
import { matchesPattern } from '../rules/event-pattern.js';
import { queueTask } from './settle.js';
import { ensurePokerOn, pokerShardOf } from './poker-schedule.js';
import { JOB_PARTITIONS, JOB_SHARD_BASE } from '../rules/shards.js';
import { annotate, transition, type TransitionFields } from '../write/transition.js';

/** A wait that is not a job's is looked at once more this long after it is stored (the index gap above). */
export const EVENT_WAIT_RECHECK_MS = 60_000;
// The safety net's partitions of the sensor index are defined beside the sensor shards
// (rules/shards.ts), which the poker schedule switch reads too.
export { JOB_PARTITIONS, JOB_SHARD_BASE } from '../rules/shards.js';
/** The resume method of an operator's job (operators.ts): the worker turns the job's status into the try's outcome. */
export const JOB_RESUME = '__job';

/** What a resumed job task finds in `triggerEvent.payload`. */
export interface JobEnd {
  /** The status its end event (or a describe) gave. */
  jobStatus?: JobStatus;
  /** The raw end event, when the runtime that received it had no driver to read it. */
  jobEvent?: AwsEvent;
}

/**
 * @example
 * if (isEventTrigger(ti.trigger)) console.log(ti.trigger.key);
 */
export function isEventTrigger(tr: TriggerSpec | undefined): tr is EventTrigger {
  return tr !== undefined && 'pattern' in tr;
}

/** The safety-net partition of a job (stable: a hash of its id). */
export function jobPartition(job: JobRef): number {
  return hashInt(`${job.type}\n${job.id}`) % JOB_PARTITIONS;
}

/**
 * `running → deferred` waiting for the request's event, then registers the wait and
 * matches the events kept before it. An invalid wait throws InvalidInputError (the try
 * fails, not retried: finishTask's "invalid deferral").
 *
 * @example
 * await deferOnEvent(p, rc, t, ti, { __airless: 'defer', event: { source: 'com.acme', detailType: 'Shipped', detail: { orderId: 'o-1' } } });
 */
export async function deferOnEvent(p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance, req: DeferRequest): Promise<boolean> {
  const checked = checkEventWait(req.event);
  if (typeof checked === 'string') throw new InvalidInputError(checked);
  const now = p.clock.now();
  const timeoutAt = req.timeout !== undefined ? now + parseDuration(req.timeout) : undefined;
  const trigger: EventTrigger = req.job ? { ...checked, job: req.job } : checked;
  const recheck = req.job ? undefined : now + EVENT_WAIT_RECHECK_MS;
  const due = [recheck, timeoutAt].filter((x): x is number => x !== undefined);
  const r = await transition(p, rc, ti, 'deferred', {
    nextMethod: req.resume ?? 'execute', nextKwargs: req.kwargs ?? {}, trigger, deferTimeoutAt: timeoutAt ?? null,
    dueAt: due.length ? Math.min(...due) : null,
  });
  if (!r.ok) return false;
  p.metrics.count('TasksDeferred');
  const row = waitRow(p, rc, t, r.item, trigger, now);
  // A row left by an earlier try of this task would hide this one: replace it.
  await p.store.deleteTrigger(row.id);
  await p.store.putTrigger(row);
  // A job's row is found by the safety net of the poker serving its partition, which is off
  // at idle: after the row, turn it on (flow/poker-schedule.ts, docs/adr/0024).
  if (row.shardcode !== undefined) await ensurePokerOn(p, pokerShardOf(row.shardcode - JOB_SHARD_BASE, p.config.shards));
  await matchKept(p, rc, r.item);
  return true;
}

/** The triggers-table row of a wait: found by its key (byEvent index), and for a job by the safety net (sensor index). */
function waitRow(p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance, trigger: EventTrigger, now: number): TriggerRecord {
  const row: TriggerRecord = {
    id: taskKeyString(ti), kind: 'event', dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber,
    createdAt: now, bundleVersion: rc.run.bundleVersion, eventKey: trigger.key, pattern: trigger.pattern,
  };
  const job = trigger.job;
  if (!job) return row;
  row.job = job;
  if (!p.jobs?.[job.type]?.describe) return row;
  const interval = t.operator?.safetyNetMs ?? p.config.jobSafetyNetMs ?? 15 * 60_000;
  return { ...row, shardcode: JOB_SHARD_BASE + jobPartition(job), nextPokeAt: now + interval, pokeIntervalMs: interval, hashcode: `${job.type}:${job.id}` };
}

/** Resumes a waiting task with the first kept event its pattern matches; true when it did. */
export async function matchKept(p: Ports, rc: RunCtx, ti: TaskInstance): Promise<boolean> {
  if (!isEventTrigger(ti.trigger)) return false;
  const { pattern, key } = ti.trigger;
  for (const kept of await p.store.keptEvents(key, p.clock.now())) {
    if (!matchesPattern(pattern, kept.event)) continue;
    if (await deliverEvent(p, rc, ti, kept.event)) {
      p.metrics.count('EarlyEventsMatched');
      return true;
    }
  }
  return false;
}

/**
 * Resumes a task waiting for this event (its pattern already matched). A job's task gets
 * the status the event gives, read by the job's driver; an event that does not end the
 * job (a RUNNING state change) resumes nothing.
 */
export async function deliverEvent(p: Ports, rc: RunCtx, ti: TaskInstance, event: AwsEvent): Promise<boolean> {
  if (ti.state !== 'deferred' || !isEventTrigger(ti.trigger)) return false;
  const { job, key } = ti.trigger;
  if (!job) return resumeWait(p, rc, ti, event, key);
  const driver = p.jobs?.[job.type];
  const status = driver?.fromEvent(job, event);
  if (status?.state === 'running') return false;
  const end: JobEnd = status ? { jobStatus: status } : { jobEvent: event };
  return resumeWait(p, rc, ti, end, key);
}

/**
 * `deferred → queued` with what ended the wait: the try resumes in a worker. Conditional on
 * the try and the deferral's claim token, so it happens once.
 */
export async function resumeWait(p: Ports, rc: RunCtx, ti: TaskInstance, payload: unknown, key?: string): Promise<boolean> {
  if (ti.state !== 'deferred') return false;
  const r = await annotate(p, ti, { triggerEvent: { payload, firedAt: p.clock.now(), ...(key !== undefined ? { key } : {}) } });
  if (!r.ok) return false;
  if (!(await queueTask(p, rc, r.item))) return false;
  p.metrics.count('TriggersFired');
  return true;
}

/** A task waiting for an event is cleared like a finished one: its job is stopped and it runs afresh (as Airflow clears a deferred task). */
export function clearsWait(ti: TaskInstance): boolean {
  return ti.state === 'deferred' && isEventTrigger(ti.trigger);
}

/**
 * The fields a cleared wait loses: what transition.ts resets when it clears a finished
 * task (`entering('scheduled')` from a terminal state), which it cannot tell from a
 * deferral resuming into `scheduled` to wait for a pool slot.
 */
export function clearWaitFields(ti: TaskInstance): TransitionFields {
  if (!clearsWait(ti)) return {};
  return {
    tryBase: ti.tryNumber, error: null, startedAt: null, endedAt: null, ready: null, nextMethod: null, nextKwargs: null, trigger: null,
    triggerEvent: null, sensorStartedAt: null, pokeCount: null, owner: null, dueAt: null, expiresAt: null, leaseUntil: null, deferTimeoutAt: null, queuedAt: null,
  };
}

/** How a wait reads in a message: the job, or the event's source, detail-type and key field. */
export function describeWait(tr: EventTrigger): string {
  if (tr.job) return `${tr.job.type} job ${tr.job.id}`;
  const [source, detailType, field] = tr.key.split('\u001f');
  return `event ${source}/${detailType} with ${field}`;
}
