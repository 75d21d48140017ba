/**
 * The Airflow TypeScript SDK's Dag and task options, turned into Airless's (durations in
 * seconds become milliseconds). An option Airless cannot honour is refused with one line
 * naming it, never dropped in silence; an option that changes nothing on Airless (a queue
 * routing tasks to the SDK's Node coordinator, an owner, e-mail flags) is accepted.
 */
import type { DagOptions, TaskOptions as AirlessTaskOptions } from '../types.js';
import type { DagSpec, TaskSpec } from './types.js';

type Fail = (msg: string) => never;

const DAG_KEYS = new Set([
  'schedule', 'description', 'startDate', 'endDate', 'tags', 'dagDisplayName', 'docMd', 'maxActiveTasks', 'maxActiveRuns',
  'maxConsecutiveFailedDagRuns', 'dagrunTimeout', 'catchup', 'failFast', 'renderTemplateAsNativeObj', 'disableBundleVersioning',
  'isPausedUponCreation', 'queue',
]);

const TASK_KEYS = new Set([
  'taskId', 'owner', 'startDate', 'endDate', 'triggerRule', 'dependsOnPast', 'ignoreFirstDependsOnPast', 'waitForPastDependsBeforeSkipping',
  'waitForDownstream', 'retries', 'queue', 'pool', 'poolSlots', 'executionTimeout', 'retryDelay', 'retryExponentialBackoff', 'maxRetryDelay',
  'priorityWeight', 'weightRule', 'executor', 'doXcomPush', 'returnsDagResult', 'emailOnFailure', 'emailOnRetry', 'docMd', 'mapIndexTemplate',
  'maxActiveTisPerDag', 'maxActiveTisPerDagrun',
]);

function plain(v: unknown, what: string, fail: Fail): Record<string, unknown> {
  if (v === undefined) return {};
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(`${what} must be an object`);
  return v as Record<string, unknown>;
}

function seconds(v: unknown, name: string, fail: Fail): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(`option "${name}" is a number of seconds, got ${JSON.stringify(v)}`);
  return Math.round((v as number) * 1000);
}

/** Refuses `name` when it is set to anything but its harmless value. */
function only(o: Record<string, unknown>, name: string, allowed: unknown, why: string, fail: Fail): void {
  if (o[name] !== undefined && o[name] !== allowed) fail(`option "${name}" is not supported on Airless: ${why}`);
}

/**
 * Airless's DAG options for an SDK `DagSpec`.
 *
 * @example
 * dagOptions({ schedule: '@daily', dagrunTimeout: 3600 }, fail); // { schedule: '@daily', dagrunTimeout: 3600000, ... }
 */
export function dagOptions(spec: DagSpec | undefined, fail: Fail): DagOptions & Record<string, unknown> {
  const o = plain(spec, 'the spec of a Dag', fail);
  for (const k of Object.keys(o)) if (!DAG_KEYS.has(k)) fail(`unknown option "${k}" in the spec of the Dag`);
  if (o.schedule === '@continuous') fail('schedule "@continuous" is not supported on Airless: use a cron schedule, or trigger runs from an event');
  only(o, 'maxConsecutiveFailedDagRuns', undefined, 'a DAG is not paused after failed runs (alarm on failed runs instead)', fail);
  only(o, 'failFast', false, 'a failed task does not stop its run\'s other tasks', fail);
  only(o, 'renderTemplateAsNativeObj', false, 'templates render to strings', fail);
  only(o, 'disableBundleVersioning', false, 'every run pins the bundle version it started with', fail);
  const out: DagOptions & Record<string, unknown> = {};
  if (o.schedule !== undefined) out.schedule = o.schedule as string;
  if (o.description !== undefined) out.description = o.description as string;
  if (o.startDate !== undefined) out.startDate = o.startDate as Date;
  if (o.endDate !== undefined) out.endDate = o.endDate as Date;
  if (o.tags !== undefined) out.tags = [...(o.tags as string[])];
  if (o.maxActiveTasks !== undefined) out.maxActiveTasks = o.maxActiveTasks as number;
  if (o.maxActiveRuns !== undefined) out.maxActiveRuns = o.maxActiveRuns as number;
  if (o.catchup !== undefined) out.catchup = o.catchup as boolean;
  if (o.isPausedUponCreation !== undefined) out.pausedOnCreation = o.isPausedUponCreation as boolean;
  const timeout = seconds(o.dagrunTimeout, 'dagrunTimeout', fail);
  if (timeout !== undefined) out.dagrunTimeout = timeout;
  // Display name and doc: Airless's own options of the same meaning (issue 23 §2).
  if (o.dagDisplayName !== undefined) out.displayName = o.dagDisplayName;
  if (o.docMd !== undefined) out.doc = o.docMd;
  return out;
}

/**
 * Airless's task options for an SDK `TaskSpec` (without `taskId`), and whether the task
 * keeps its return value (`doXcomPush`).
 *
 * @example
 * taskOptions({ retries: 2, retryDelay: 30 }, fail); // { options: { retries: 2, retryDelay: 30000 }, push: true }
 */
export function taskOptions(spec: TaskSpec | undefined, fail: Fail): { options: AirlessTaskOptions & Record<string, unknown>; push: boolean } {
  const o = plain(spec, 'the spec of a task', fail);
  for (const k of Object.keys(o)) if (!TASK_KEYS.has(k)) fail(`unknown option "${k}" in the spec of the task`);
  for (const k of ['startDate', 'endDate'] as const) only(o, k, undefined, 'a task runs within its DAG\'s dates', fail);
  only(o, 'ignoreFirstDependsOnPast', true, 'the first instance of a dependsOnPast task always runs (as Airflow\'s default)', fail);
  only(o, 'waitForPastDependsBeforeSkipping', false, 'not implemented', fail);
  only(o, 'waitForDownstream', false, 'not implemented (dependsOnPast is)', fail);
  only(o, 'returnsDagResult', false, 'a run has no result of its own: read the task\'s XCom', fail);
  only(o, 'mapIndexTemplate', undefined, 'mapped instances are named by their index', fail);
  const options: AirlessTaskOptions & Record<string, unknown> = {};
  const copy = ['triggerRule', 'dependsOnPast', 'retries', 'pool', 'poolSlots', 'priorityWeight', 'weightRule', 'maxActiveTisPerDag', 'maxActiveTisPerDagrun'] as const;
  for (const k of copy) if (o[k] !== undefined) (options as Record<string, unknown>)[k] = o[k];
  for (const k of ['executionTimeout', 'retryDelay', 'maxRetryDelay'] as const) {
    const ms = seconds(o[k], k, fail);
    if (ms !== undefined) options[k] = ms;
  }
  if (o.retryExponentialBackoff !== undefined) {
    const b = o.retryExponentialBackoff;
    if (typeof b !== 'number' && typeof b !== 'boolean') fail(`option "retryExponentialBackoff" is a number, got ${JSON.stringify(b)}`);
    // Airflow multiplies the delay by this base; Airless doubles it: any positive base turns backoff on.
    options.retryExponentialBackoff = Boolean(b);
  }
  if (o.docMd !== undefined) options.doc = o.docMd;
  return { options, push: o.doXcomPush !== false };
}
