/**
 * The `airless` package as DAG files import it.
 *
 * @example
 * import { dag, chain } from 'airless';
 * export default dag('etl', { schedule: '@daily', startDate: '2026-01-01' }, ({ task }) => {
 *   chain(task('extract', async () => 42), task('load', async (ctx) => ctx.xcom.pull('extract')));
 * });
 */
import { InvalidDagError } from '../engine/index.js';
import { idProblem } from '../engine/index.js';
import type { SensorDefinition } from './types.js';

export { dag } from './dag.js';
export { chain, chainLinear, type ChainItem } from './flow.js';
export { zip } from './zip.js';
export type * from './taskflow-types.js';
export { definePool, isPoolDefinition } from './pools.js';
export { notify, isNotifier, type NotifierDefinition } from './notify.js';
export { asset, allOf, anyOf, watch, isAssetDefinition, type AssetDefinition, type AssetConditionDefinition, type AssetOptions, type AssetSchedule } from './assets.js';
export type { AssetWatcherSpec, TriggeringAssetEvent } from '../engine/index.js';
export {
  athenaQuery, batchSubmitJob, ecsRunTask, emrServerlessJobRun, glueStartJobRun, lambdaInvoke, sfnStartExecution, waitForEvent,
  isOperatorBody, type OperatorOptions, type OperatorInput, type SfnStartExecutionInput, type LambdaInvokeInput,
  type EmrServerlessJobRunInput, type BatchSubmitJobInput,
} from './operators.js';
export type { EventWait, AwsEvent } from '../engine/index.js';
export { BUILTIN_SENSOR_TYPES } from '../engine/index.js';
export type { TaskContext, ResumeInput, DeferOptions, DeferRequest, SkipRequest, TaskLogger } from '../engine/index.js';
export type { TriggerRule, TriggerSpec, SensorMode, DagSpec, TaskSpec } from '../engine/index.js';
export type * from './types.js';

/**
 * Defines a custom sensor type. Its poke receives only the rendered poke context and
 * returns truthy when the condition holds. Export it from a DAG file (or use it as a
 * sensor's `type`) so the bundle knows it.
 *
 * @example
 * export const partitionReady = defineSensor('partition_ready',
 *   async (pc: { table: string; ds: string }) => pc.table.length > 0);
 * // in a DAG: sensor('wait', { type: 'partition_ready', pokeContext: { table: 't', ds: '{{ ds }}' } })
 */
export function defineSensor<C extends Record<string, any>>(
  type: string,
  poke: (pokeContext: C) => unknown,
): SensorDefinition<C> {
  const problem = idProblem('task', type)?.replace('task id', 'sensor type');
  if (problem) throw new InvalidDagError(problem);
  if (typeof poke !== 'function') throw new InvalidDagError(`sensor type "${type}": poke must be a function`);
  return Object.freeze({ __airless: 'sensor' as const, type, poke });
}

/**
 * True when `v` is what `dag()` returns (also across copies of this module).
 *
 * @example
 * Object.values(await import('./dags/etl.ts')).filter(isDagDefinition);
 */
export function isDagDefinition(v: unknown): v is import('./types.js').DagDefinition {
  return typeof v === 'object' && v !== null && (v as { __airless?: unknown }).__airless === 'dag';
}

/**
 * True when `v` is what `defineSensor()` returns.
 *
 * @example
 * isSensorDefinition(partitionReady); // true
 */
export function isSensorDefinition(v: unknown): v is SensorDefinition {
  return typeof v === 'object' && v !== null && (v as { __airless?: unknown }).__airless === 'sensor';
}
