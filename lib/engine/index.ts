/**
 * The Airless engine: pure orchestration logic over ports. Runtimes (the embedded
 * runtime, the Lambda handlers) build {@link Ports} and call these functions.
 */
export * from './ports.js';
export * from './model.js';
export * from './states.js';
export * from './errors.js';
export type * from './context.js';
export { handleMessage } from './dispatch.js';
export { encodeQueueMessage, parseQueueMessage, validateQueueMessage } from './messages.js';
export { handleTask } from './worker.js';
export { reconcile, type ReconcileReport } from './reconcile.js';
export { pokeShard, type PokeReport } from './poke.js';
export { sendSignal } from './waiting.js';
export { sensorHash, VIRTUAL_SHARDS } from './sensor-start.js';
export {
  clearTasks,
  createRun,
  registerManifest,
  scheduleDag,
  setPaused,
  startQueuedRuns,
  triggerRun,
  type TriggerOptions,
} from './runs.js';
export { advanceRun, completeRunIfDone } from './settle.js';
export { evaluateTriggerRule } from './trigger-rules.js';
export { decideRunState } from './run-state.js';
export { deepFreeze } from './freeze.js';
export { canonicalJson, sha256Hex } from './hash.js';
export { BUILTIN_SENSOR_TYPES, validateDagSpec } from './validate.js';
export { MARK_STATES, markTask, type MarkResult, type MarkState } from './mark.js';
export { downstreamClosure, upstreamClosure } from './runs.js';
export { loadRunCtx, runTemplateVars, taskSpec } from './dag-index.js';
export { renderDeep, renderTemplate, templateVars } from './template.js';
export { runBody } from './worker.js';
export { pokeOnce } from './poke.js';
export { nextTick, normalizeDate, parseSchedule, prevTick } from './timetable.js';
export { recoveryDueAt } from './recover.js';
export { resendsDueAt } from './flow/resend.js';
export { parseDuration } from './duration.js';
export { idProblem } from './validate.js';
export { checkPools, isLimited, poolProblem, priorityWeights, WEIGHT_RULES, type WeightRule } from './pool-limits.js';
export type * from './mapping-store.js';
export type * from './model/run-ends-store.js';
export type * from './model/run-slots-store.js';
export { MAP_OUTCOMES, baseTaskId, instanceId, isInstanceId, parseInstanceId, shardCount, shardWant, type MapOutcome } from './mapping-ids.js';
export { isSensitiveKey, redact, redactDeep } from './secrets-mask.js';
export { envKey } from './secrets.js';
export { instanceValue } from './mapping-values.js';
