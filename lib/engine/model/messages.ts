/**
 * The wire format of the ready queue. Every message read from a queue (SQS body, a
 * Scheduler `Input`, the memory queue) goes through {@link parseQueueMessage} or
 * {@link validateQueueMessage}; anything else is a {@link MalformedMessageError}, which the
 * edge turns into a dead-letter delivery instead of a retry loop.
 */
import { MalformedMessageError } from './errors.js';
import type { AssetMessage } from './assets.js';
import type { BackfillMessage, CallbackMessage, FireMessage, QueueMessage, ScheduleMessage, StopMessage, TaskMessage } from './ports.js';
import type { UpstreamOutcome } from './states.js';

import { ID_PATTERN, RUN_ID_PATTERN } from './id-patterns.js';

export { ID_PATTERN, RUN_ID_PATTERN };

const FIRE_REASONS: readonly FireMessage['reason'][] = ['trigger', 'retry'];

type Fields = Record<string, unknown>;

/**
 * Parses and validates a queue message body.
 *
 * @throws MalformedMessageError naming the first offending field.
 * @example
 * const m = parseQueueMessage('{"kind":"task","dagId":"etl","runId":"r1","taskId":"extract","tryNumber":1}');
 * if (m.kind === 'task') console.log(m.taskId);
 */
export function parseQueueMessage(body: string): QueueMessage {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (cause) {
    throw new MalformedMessageError(`message is not JSON: ${preview(body)}`, { cause });
  }
  return validateQueueMessage(value);
}

/**
 * Validates an already-parsed value (for example `Delivery.message`).
 *
 * @example
 * const m = validateQueueMessage({ kind: 'schedule', dagId: 'etl', tickAt: 0 });
 */
export function validateQueueMessage(value: unknown): QueueMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MalformedMessageError(`message must be a JSON object, got ${describe(value)}`);
  }
  const o = value as Fields;
  switch (o.kind) {
    case 'task':
      return validateTask(o);
    case 'fire':
      return validateFire(o);
    case 'schedule':
      return validateSchedule(o);
    case 'callback':
      return validateCallback(o);
    case 'backfill':
      return validateBackfill(o);
    case 'stop':
      return validateStop(o);
    case 'asset':
      return validateAsset(o);
    default:
      throw new MalformedMessageError(
        `message field "kind" must be one of task, fire, schedule, callback, backfill, stop, asset, got ${describe(o.kind)}`,
      );
  }
}

/**
 * Serializes a message with a fixed field order (validated first, so a bad message
 * fails at the sender, not in a worker).
 *
 * @example
 * encodeQueueMessage({ kind: 'schedule', dagId: 'etl', tickAt: 0 }); // '{"kind":"schedule","dagId":"etl","tickAt":0}'
 */
export function encodeQueueMessage(m: QueueMessage): string {
  const v = validateQueueMessage(m);
  switch (v.kind) {
    case 'task': {
      const out: Fields = { kind: v.kind, dagId: v.dagId, runId: v.runId, taskId: v.taskId, tryNumber: v.tryNumber };
      if (v.up !== undefined) out.up = v.up;
      if (v.at !== undefined) out.at = v.at;
      return JSON.stringify(out);
    }
    case 'fire': {
      const out: Fields = {
        kind: v.kind,
        dagId: v.dagId,
        runId: v.runId,
        taskId: v.taskId,
        tryNumber: v.tryNumber,
        reason: v.reason,
      };
      if (v.token !== undefined) out.token = v.token;
      if (v.payload !== undefined) out.payload = v.payload;
      return JSON.stringify(out);
    }
    case 'schedule':
      return JSON.stringify({ kind: v.kind, dagId: v.dagId, tickAt: v.tickAt });
    case 'callback':
    case 'asset':
    case 'stop':
      return JSON.stringify(v);
    case 'backfill':
      return JSON.stringify({ kind: v.kind, backfillId: v.backfillId });
  }
}

const OUTCOMES: readonly UpstreamOutcome[] = ['success', 'failed', 'skipped', 'upstream_failed', 'branch_skipped'];

function validateTask(o: Fields): TaskMessage {
  onlyFields(o, 'task', ['kind', 'dagId', 'runId', 'taskId', 'tryNumber', 'up', 'at']);
  const m: TaskMessage = {
    kind: 'task',
    dagId: id(o, 'task', 'dagId'),
    runId: runId(o, 'task'),
    taskId: id(o, 'task', 'taskId', TASK_REF),
    tryNumber: nonNegativeInt(o, 'task', 'tryNumber'),
  };
  if (o.up !== undefined) m.up = upstreamOutcomes(o.up);
  if (o.at !== undefined) m.at = epochMs(o, 'task', 'at');
  return m;
}

/** `up` of a task message: upstream task ids (or mapped flags, `size#failed`) to their outcomes. */
function upstreamOutcomes(v: unknown): Record<string, UpstreamOutcome> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new MalformedMessageError(`task message field "up" must be an object, got ${describe(v)}`);
  const out: Record<string, UpstreamOutcome> = {};
  for (const [k, outcome] of Object.entries(v)) {
    if (!/^[A-Za-z0-9_.-]{1,250}(#[a-z_]{1,20})?$/.test(k)) throw new MalformedMessageError(`task message field "up" has an invalid upstream id ${describe(k)}`);
    if (!OUTCOMES.includes(outcome as UpstreamOutcome)) {
      throw new MalformedMessageError(`task message field "up.${k}" must be one of ${OUTCOMES.join(', ')}, got ${describe(outcome)}`);
    }
    out[k] = outcome as UpstreamOutcome;
  }
  return out;
}

function validateFire(o: Fields): FireMessage {
  onlyFields(o, 'fire', ['kind', 'dagId', 'runId', 'taskId', 'tryNumber', 'reason', 'token', 'payload']);
  if (!FIRE_REASONS.includes(o.reason as FireMessage['reason'])) {
    throw new MalformedMessageError(
      `fire message field "reason" must be one of ${FIRE_REASONS.join(', ')}, got ${describe(o.reason)}`,
    );
  }
  const m: FireMessage = {
    kind: 'fire',
    dagId: id(o, 'fire', 'dagId'),
    runId: runId(o, 'fire'),
    taskId: id(o, 'fire', 'taskId', TASK_REF),
    tryNumber: nonNegativeInt(o, 'fire', 'tryNumber'),
    reason: o.reason as FireMessage['reason'],
  };
  // A resume must name the claim token of the deferral it resumes: without it a stale or
  // forged fire could resume a later deferral of the same try.
  if (m.reason === 'trigger' && o.token === undefined) {
    throw new MalformedMessageError('fire message with reason "trigger" needs field "token" (the claim token of the deferral it resumes)');
  }
  if (o.token !== undefined) {
    if (typeof o.token !== 'string' || o.token.length === 0 || o.token.length > 200) {
      throw new MalformedMessageError(`fire message field "token" must be a string of 1 to 200 characters, got ${describe(o.token)}`);
    }
    m.token = o.token;
  }
  if (o.payload !== undefined) m.payload = o.payload;
  return m;
}

function validateSchedule(o: Fields): ScheduleMessage {
  onlyFields(o, 'schedule', ['kind', 'dagId', 'tickAt']);
  // tickAt 0 means "the engine computes the due tick" (recurring schedules cannot template it).
  return { kind: 'schedule', dagId: id(o, 'schedule', 'dagId'), tickAt: nonNegativeInt(o, 'schedule', 'tickAt') };
}

const CALLBACK_EVENTS: readonly CallbackMessage['event'][] = ['success', 'failure', 'retry', 'skipped'];

function validateCallback(o: Fields): CallbackMessage {
  onlyFields(o, 'callback', ['kind', 'dagId', 'runId', 'taskId', 'tryNumber', 'event', 'verify', 'attempt']);
  if (!CALLBACK_EVENTS.includes(o.event as CallbackMessage['event'])) {
    throw new MalformedMessageError(`callback message field "event" must be one of ${CALLBACK_EVENTS.join(', ')}, got ${describe(o.event)}`);
  }
  const m: CallbackMessage = { kind: 'callback', dagId: id(o, 'callback', 'dagId'), runId: runId(o, 'callback'), event: o.event as CallbackMessage['event'] };
  if (o.taskId !== undefined) m.taskId = id(o, 'callback', 'taskId', TASK_REF);
  if (o.tryNumber !== undefined) m.tryNumber = nonNegativeInt(o, 'callback', 'tryNumber');
  if (o.verify !== undefined) m.verify = o.verify === true;
  if (o.attempt !== undefined) m.attempt = nonNegativeInt(o, 'callback', 'attempt');
  return m;
}

function validateBackfill(o: Fields): BackfillMessage {
  onlyFields(o, 'backfill', ['kind', 'backfillId']);
  return { kind: 'backfill', backfillId: nonNegativeInt(o, 'backfill', 'backfillId') };
}

function validateAsset(o: Fields): AssetMessage {
  if (o.op === 'evaluate') {
    onlyFields(o, 'asset', ['kind', 'op', 'dagId']);
    return { kind: 'asset', op: 'evaluate', dagId: id(o, 'asset', 'dagId') };
  }
  if (o.op !== 'outlets') throw new MalformedMessageError(`asset message field "op" must be evaluate or outlets, got ${describe(o.op)}`);
  onlyFields(o, 'asset', ['kind', 'op', 'dagId', 'runId', 'taskId', 'tryNumber', 'extras', 'attempt']);
  const m: AssetMessage = {
    kind: 'asset', op: 'outlets', dagId: id(o, 'asset', 'dagId'), runId: runId(o, 'asset'),
    taskId: id(o, 'asset', 'taskId', TASK_REF), tryNumber: nonNegativeInt(o, 'asset', 'tryNumber'),
  };
  if (o.extras !== undefined) {
    const extras = o.extras;
    if (typeof extras !== 'object' || extras === null || Array.isArray(extras) || Object.values(extras).some((x) => typeof x !== 'object' || x === null || Array.isArray(x))) {
      throw new MalformedMessageError(`asset message field "extras" must map asset URIs to objects, got ${describe(extras)}`);
    }
    m.extras = extras as Record<string, Record<string, unknown>>;
  }
  if (o.attempt !== undefined) m.attempt = nonNegativeInt(o, 'asset', 'attempt');
  return m;
}

/** A job's stop (flow/job-stop.ts): the job reference is strings only (its type and id at least). */
function validateStop(o: Fields): StopMessage {
  onlyFields(o, 'stop', ['kind', 'dagId', 'runId', 'taskId', 'tryNumber', 'job', 'reason']);
  const job = o.job as Record<string, unknown> | undefined;
  if (typeof job !== 'object' || job === null || Array.isArray(job) || typeof job.type !== 'string' || typeof job.id !== 'string' ||
      !Object.values(job).every((v) => typeof v === 'string' && v.length <= 2048)) {
    throw new MalformedMessageError(`stop message field "job" must be an object of strings with a type and an id, got ${describe(o.job)}`);
  }
  if (typeof o.reason !== 'string' || o.reason.length > 1000) {
    throw new MalformedMessageError(`stop message field "reason" must be a string of at most 1000 characters, got ${describe(o.reason)}`);
  }
  return {
    kind: 'stop', dagId: id(o, 'stop', 'dagId'), runId: runId(o, 'stop'), taskId: id(o, 'stop', 'taskId', TASK_REF),
    tryNumber: nonNegativeInt(o, 'stop', 'tryNumber'), job: job as StopMessage['job'], reason: o.reason,
  };
}

function onlyFields(o: Fields, kind: string, allowed: readonly string[]): void {
  const extra = Object.keys(o).filter((k) => !allowed.includes(k));
  if (extra.length > 0) {
    throw new MalformedMessageError(`${kind} message has unknown field(s): ${extra.join(', ')}`);
  }
}

/** A task id, or a mapped instance's (`size#42`, mapping-ids.ts). */
const TASK_REF = /^[A-Za-z0-9_.-]{1,250}(#\d{1,9})?$/;

function id(o: Fields, kind: string, field: string, pattern = ID_PATTERN): string {
  const v = o[field];
  if (typeof v !== 'string' || !pattern.test(v)) {
    throw new MalformedMessageError(
      `${kind} message field "${field}" must be a string matching ${pattern}, got ${describe(v)}`,
    );
  }
  return v;
}

function runId(o: Fields, kind: string): string {
  const v = o.runId;
  if (typeof v !== 'string' || !RUN_ID_PATTERN.test(v)) {
    throw new MalformedMessageError(
      `${kind} message field "runId" must be a string matching ${RUN_ID_PATTERN}, got ${describe(v)}`,
    );
  }
  return v;
}

function nonNegativeInt(o: Fields, kind: string, field: string): number {
  const v = o[field];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new MalformedMessageError(
      `${kind} message field "${field}" must be a non-negative integer, got ${describe(v)}`,
    );
  }
  return v;
}

/** A time in epoch ms; a clock may give sub-millisecond fractions (the bench's PerfClock), so not only integers. */
function epochMs(o: Fields, kind: string, field: string): number {
  const v = o[field];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new MalformedMessageError(`${kind} message field "${field}" must be a non-negative number of epoch milliseconds, got ${describe(v)}`);
  }
  return v;
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing (missing)';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `string ${preview(JSON.stringify(v))}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

function preview(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
