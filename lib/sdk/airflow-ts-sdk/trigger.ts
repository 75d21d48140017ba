/**
 * `dag.triggerDagRun({ taskId, dagId, conf, ... })` of the Airflow SDK, declared as
 * Airless's own `triggerDagRun(id, { dagId, conf, waitForCompletion, allowedStates,
 * failedStates, resetDagRun })` operator (issue 23 §2, built beside this). The operator is
 * looked up when the Dag is read, on the builder or on the `airless` module, so this file
 * does not depend on where that work puts it; without it the Dag is refused with one line.
 */
import * as airless from '../index.js';
import type { DagBuilder, TaskHandle } from '../types.js';
import type { TriggerDagRunSpec } from './types.js';

type Fail = (msg: string) => never;
type Operator = (taskId: string, options: Record<string, unknown>) => TaskHandle;

const STATES = new Set(['queued', 'running', 'success', 'failed']);

/**
 * Airless's options for the SDK's trigger options: the ones the operator takes, checked;
 * the ones that change nothing on Airless (pokeInterval, deferrable: waiting is always a
 * deferral) accepted; the others refused.
 *
 * @example
 * triggerOptions({ dagId: 'target', conf: { a: 1 } }, fail); // { dagId: 'target', conf: { a: 1 } }
 */
export function triggerOptions(spec: Omit<TriggerDagRunSpec, 'taskId'>, fail: Fail): Record<string, unknown> {
  const o = spec as unknown as Record<string, unknown>;
  const known = ['dagId', 'runId', 'conf', 'resetDagRun', 'waitForCompletion', 'pokeInterval', 'allowedStates', 'failedStates', 'skipWhenAlreadyExists', 'failWhenDagIsPaused', 'note', 'deferrable'];
  for (const k of Object.keys(o)) if (!known.includes(k)) fail(`unknown option "${k}" for triggerDagRun(...)`);
  if (typeof o.dagId !== 'string' || o.dagId === '') fail('triggerDagRun(...) needs the dagId of the Dag to trigger');
  if (o.conf !== undefined && (o.conf === null || typeof o.conf !== 'object' || Array.isArray(o.conf))) fail('triggerDagRun(...) option "conf" must be an object');
  for (const k of ['allowedStates', 'failedStates']) {
    const v = o[k];
    if (v !== undefined && (!Array.isArray(v) || v.some((s) => !STATES.has(s as string)))) fail(`triggerDagRun(...) option "${k}" must be a list of run states (queued, running, success, failed)`);
  }
  for (const [k, why] of [
    ['runId', 'the triggered run gets its own manual run id'],
    ['note', 'runs carry no note'],
  ] as const) if (o[k] !== undefined) fail(`triggerDagRun(...) option "${k}" is not supported on Airless: ${why}`);
  for (const k of ['skipWhenAlreadyExists', 'failWhenDagIsPaused']) if (o[k] === true) fail(`triggerDagRun(...) option "${k}" is not supported on Airless`);
  const out: Record<string, unknown> = { dagId: o.dagId };
  for (const k of ['conf', 'resetDagRun', 'waitForCompletion', 'allowedStates', 'failedStates']) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

/** Declares the trigger task through Airless's operator. */
export function declareTrigger(b: DagBuilder, taskId: string, spec: Omit<TriggerDagRunSpec, 'taskId'>, fail: Fail): TaskHandle {
  const options = triggerOptions(spec, fail);
  const onBuilder = (b as unknown as { triggerDagRun?: Operator }).triggerDagRun;
  const exported = (airless as unknown as { triggerDagRun?: Operator }).triggerDagRun;
  const operator = onBuilder ?? exported;
  if (typeof operator !== 'function') {
    fail('dag.triggerDagRun(...) maps onto Airless\'s triggerDagRun operator, which this version of Airless does not have yet');
  }
  return operator(taskId, options);
}
