/**
 * Index keys of events: how an arriving event finds the tasks waiting for it without
 * evaluating every wait. A key is the event's source, its detail-type and one identifying
 * field of its detail with that field's value:
 * - for the AWS job events Airless's operators wait for, the field AWS documents as the
 *   job's id (ECS `taskArn`, Batch `jobId`, Glue and EMR Serverless `jobRunId`, Step
 *   Functions `executionArn`, Athena `queryExecutionId`, Lambda `requestContext.requestId`);
 * - for any other event, each top-level scalar field of `detail` (and each scalar in a
 *   top-level array) is a candidate, at most {@link MAX_CANDIDATES} of them, and a wait is
 *   keyed on the first top-level field its pattern pins to one exact value, in name order.
 * A job event's key leaves out the detail-type (a job id names one job of its service), so
 * a wait may name several (Lambda's Success and Failure results). A wait whose pattern pins
 * no key field (or not exactly one source, and one detail-type unless its source is a job
 * service's) has no usable key and is refused: it would otherwise never be found. The whole
 * pattern is still matched on arrival; the key only narrows the candidates.
 */
import { sha256Hex } from './hash.js';
import type { AwsEvent, EventWait } from '../model/events.js';
import { validatePattern, type EventPattern } from './event-pattern.js';

/** The end events of the jobs Airless's operators start: source → detail-type → id path in detail. */
export const JOB_EVENT_IDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'aws.ecs': { 'ECS Task State Change': 'taskArn' },
  'aws.batch': { 'Batch Job State Change': 'jobId' },
  'aws.glue': { 'Glue Job State Change': 'jobRunId' },
  'aws.states': { 'Step Functions Execution Status Change': 'executionArn' },
  'aws.athena': { 'Athena Query State Change': 'queryExecutionId' },
  'aws.emr-serverless': { 'EMR Serverless Job Run State Change': 'jobRunId' },
  lambda: {
    'Lambda Function Invocation Result - Success': 'requestContext.requestId',
    'Lambda Function Invocation Result - Failure': 'requestContext.requestId',
  },
};

/** Candidate keys an event of another kind is looked up under. */
export const MAX_CANDIDATES = 32;
/** Values longer than this are hashed in keys (DynamoDB keys hold at most 2 KB). */
const MAX_VALUE_CHARS = 256;
const SEP = '\u001f';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

function keyFor(source: string, detailType: string, path: string, value: string | number | boolean): string {
  const v = JSON.stringify(value);
  return [source, detailType, `${path}=${v.length > MAX_VALUE_CHARS ? `#${sha256Hex(v)}` : v}`].join(SEP);
}

/** The job id path shared by these detail-types of a job service's source, if they are all its job events. */
function jobIdPath(source: string, detailTypes: readonly unknown[]): string | undefined {
  const known = JOB_EVENT_IDS[source];
  if (!known || detailTypes.length === 0) return undefined;
  const paths = new Set(detailTypes.map((t) => (typeof t === 'string' ? known[t] : undefined)));
  const [path] = paths;
  return paths.size === 1 && path !== undefined ? path : undefined;
}

/** In a job service's keys the detail-type is this: a job id names one job of the service whatever the event. */
const JOB_KEY_TYPE = '*';

function at(obj: unknown, path: string): unknown {
  let node = obj;
  for (const part of path.split('.')) node = isObject(node) ? node[part] : undefined;
  return node;
}

/** Operators of a condition: a bare `{ prefix: 'x' }` is one condition, not a nested field named `prefix`. */
const OPERATORS = new Set(['prefix', 'suffix', 'equals-ignore-case', 'wildcard', 'anything-but', 'numeric', 'exists', 'cidr']);

/** A bare value or condition in a wait's detail stands for a one-condition list; other objects are nested fields. */
function normalizeDetail(detail: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(detail)) {
    if (v === null || isScalar(v)) out[k] = [v];
    else if (isObject(v)) out[k] = Object.keys(v).some((op) => OPERATORS.has(op)) ? [v] : normalizeDetail(v);
    else out[k] = v;
  }
  return out;
}

/**
 * The EventBridge pattern of a wait.
 *
 * @example
 * waitPattern({ source: 'com.acme', detailType: 'Order Shipped', detail: { orderId: 'o-1' } });
 * // { source: ['com.acme'], 'detail-type': ['Order Shipped'], detail: { orderId: ['o-1'] } }
 */
export function waitPattern(w: EventWait): EventPattern {
  return { source: [w.source], 'detail-type': Array.isArray(w.detailType) ? [...w.detailType] : [w.detailType], ...(w.detail && Object.keys(w.detail).length ? { detail: normalizeDetail(w.detail) } : {}) };
}

/** The one exact scalar a pattern leaf pins, if it pins exactly one. */
function pinned(leaf: unknown): string | number | boolean | undefined {
  if (!Array.isArray(leaf) || leaf.length !== 1) return undefined;
  return isScalar(leaf[0]) ? leaf[0] : undefined;
}

/**
 * Checks a wait and returns its pattern and index key, or the problem in one line.
 *
 * @example
 * checkEventWait({ source: 'aws.ecs', detailType: 'ECS Task State Change', detail: { taskArn: arn } }); // { pattern, key }
 * checkEventWait({ source: 'com.acme', detailType: 'Tick' }); // 'event wait com.acme/Tick has no usable key: …'
 */
export function checkEventWait(w: unknown): { pattern: EventPattern; key: string } | string {
  if (!isObject(w)) return `an event wait must be an object { source, detailType, detail }, got ${JSON.stringify(w)}`;
  if (typeof w.source !== 'string' || w.source === '') return `an event wait needs a source (a non-empty string), got ${JSON.stringify(w.source)}`;
  const types = Array.isArray(w.detailType) ? w.detailType : [w.detailType];
  if (types.length === 0 || !types.every((t) => typeof t === 'string' && t !== '')) return `an event wait needs a detailType (a non-empty string, or a list of them), got ${JSON.stringify(w.detailType)}`;
  if (w.detail !== undefined && !isObject(w.detail)) return `an event wait's detail must be an object (a pattern), got ${JSON.stringify(w.detail)}`;
  const wait = w as unknown as EventWait;
  const pattern = waitPattern(wait);
  const problem = validatePattern(pattern);
  const name = `${wait.source}/${types.join('|')}`;
  if (problem) return `event pattern of ${name}: ${problem}`;
  const key = patternKey(pattern);
  if (key) return { pattern, key };
  const idPath = jobIdPath(wait.source, types);
  const need = idPath ? `detail.${idPath} pinned to one value` : types.length > 1 ? 'one detail-type (its events are keyed on it)' : 'one top-level detail field pinned to one exact value (e.g. detail: { orderId: "o-1" })';
  return `event wait ${name} has no usable key: it needs ${need}, or no event could find it`;
}

/** The index key of a pattern (exactly one source and detail-type, and its key field pinned), or undefined. */
export function patternKey(pattern: EventPattern): string | undefined {
  const source = pinned(pattern.source);
  if (typeof source !== 'string') return undefined;
  const detail = pattern.detail;
  if (!isObject(detail)) return undefined;
  const types = pattern['detail-type'];
  const idPath = Array.isArray(types) ? jobIdPath(source, types) : undefined;
  if (idPath) {
    const v = pinned(at(detail, idPath));
    return v === undefined ? undefined : keyFor(source, JOB_KEY_TYPE, idPath, v);
  }
  const detailType = pinned(types);
  if (typeof detailType !== 'string') return undefined;
  for (const field of Object.keys(detail).sort()) {
    if (field === '$or') continue;
    const v = pinned(detail[field]);
    if (v !== undefined) return keyFor(source, detailType, field, v);
  }
  return undefined;
}

/**
 * The keys an arriving event is looked up (and kept) under.
 *
 * @example
 * eventKeys({ source: 'aws.batch', 'detail-type': 'Batch Job State Change', detail: { jobId: 'j-1', status: 'SUCCEEDED' } }); // one key, on jobId
 */
export function eventKeys(event: AwsEvent): string[] {
  const { source } = event;
  const detailType = event['detail-type'];
  const idPath = JOB_EVENT_IDS[source]?.[detailType];
  if (idPath) {
    const v = at(event.detail, idPath);
    return isScalar(v) ? [keyFor(source, JOB_KEY_TYPE, idPath, v)] : [];
  }
  const keys = new Set<string>();
  for (const field of Object.keys(event.detail).sort()) {
    const v = event.detail[field];
    const values = Array.isArray(v) ? v.filter(isScalar) : isScalar(v) ? [v] : [];
    for (const x of values) {
      if (keys.size >= MAX_CANDIDATES) return [...keys];
      keys.add(keyFor(source, detailType, field, x));
    }
  }
  return [...keys];
}

/**
 * Checks what an events target received: an EventBridge event with a source, a detail-type
 * and an object detail. Returns the problem in one line, or undefined.
 *
 * @example
 * eventProblem({ source: 'x' }); // 'not an EventBridge event: "detail-type" must be a non-empty string'
 */
export function eventProblem(raw: unknown): string | undefined {
  if (!isObject(raw)) return `not an EventBridge event: expected an object, got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}`;
  if (typeof raw.source !== 'string' || raw.source === '') return 'not an EventBridge event: "source" must be a non-empty string';
  if (typeof raw['detail-type'] !== 'string' || raw['detail-type'] === '') return 'not an EventBridge event: "detail-type" must be a non-empty string';
  if (!isObject(raw.detail)) return 'not an EventBridge event: "detail" must be an object';
  return undefined;
}
