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
export { SENSOR_WAITS_LINE } from './sensor-start.js';
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
export { unknownTriggerTarget } from './rules/authoring.js';
export { badDateTemplate } from './rules/date-math.js';
export { TRIGGER_RUN_ID_KEY } from './flow/trigger-dag-run.js';
export { MARK_STATES, markTask, type MarkResult, type MarkState } from './mark.js';
export { downstreamClosure, upstreamClosure } from './runs.js';
export { loadRunCtx, runTemplateVars, taskSpec } from './dag-index.js';
export { renderDeep, renderTemplate, templateVars } from './template.js';
export { runBody } from './worker.js';
export { pokeOnce } from './poke.js';
export { nextTick, normalizeDate, parseSchedule, prevTick } from './timetable.js';
export { onceTick } from './timetable.js';
export { ParamValidationError, runParamsProblem, valueProblem } from './rules/params.js';
export { isLatestRun } from './rules/latest-only.js';
export { recoveryDueAt } from './recover.js';
export { resendsDueAt } from './flow/resend.js';
export { parseDuration } from './duration.js';
export { idProblem } from './validate.js';
export { RUN_ID_PATTERN, runIdProblem, runIdRule } from './rules/ids.js';
export { depthProblem, MAX_VALUE_DEPTH } from './rules/values.js';
export { checkPools, isLimited, poolProblem, priorityWeights, WEIGHT_RULES, type WeightRule } from './pool-limits.js';
export type * from './mapping-store.js';
export type * from './model/run-ends-store.js';
export type * from './model/run-slots-store.js';
export { MAP_OUTCOMES, baseTaskId, instanceId, isInstanceId, parseInstanceId, shardCount, shardWant, type MapOutcome } from './mapping-ids.js';
export { hasSecrets, isSensitiveKey, maskFields, maskSecret, redact, redactDeep } from './secrets-mask.js';
export { elementAt, mapLength, namedSources } from './mapping-ids.js';
export { envKey } from './secrets.js';
export { instanceValue } from './mapping-values.js';
export * from './model/backfill.js';
export type * from './model/backfill-store.js';
export { advanceBackfill, backfillRuns, cancelBackfill, createBackfill, previewBackfill, setBackfillPaused, type BackfillRequest, type DatePlan } from './flow/backfill.js';
export { CONFIRM_ABOVE, MAX_BACKFILL_DATES, backfillRunId } from './rules/backfill.js';
export { backfillCost, type BackfillCost } from './flow/backfill-cost.js';
export { COST_MODEL, estimateBackfillCost, type CostEstimate, type CostModel, type RequestCost } from './rules/cost-model.js';
export { PRICES } from './rules/prices.js';
export type * from './model/poker-state.js';
export type * from './model/prev-success.js';
export type * from './model/audit-log.js';
export type * from './model/run-delete-store.js';
export { checkPokerSchedules, ensurePokerOn, pokerShardOf } from './flow/poker-schedule.js';
export * from './model/assets.js';
export type * from './model/asset-store.js';
export { assetEventHash, assetEventId, assetEventRef, assetGroupProblem, assetId, assetNameProblem, normalizeAssetUri, parseAssetEventRef } from './rules/asset-uri.js';
export { conditionUris, describeCondition, evaluateCondition } from './rules/asset-condition.js';
export { eventSources, fieldAt, watcherHit, watcherProblem, watcherSource, type ExternalAssetEvent, type WatcherHit } from './rules/asset-watchers.js';
export { extraProblem, evaluateAssetQueue, recordAssetEvent, MAX_EVENT_EXTRA_BYTES, type NewAssetEvent, type RecordedAssetEvent } from './flow/assets.js';
export { assetRecords } from './flow/asset-registry.js';
export { ingestExternalEvent, type IngestReport } from './handlers/asset-ingest.js';
export type * from './model/events.js';
export { handleEvent, type EventReport } from './handlers/events.js';
export { checkEventWait, eventKeys, eventProblem, MAX_CANDIDATES, patternKey, waitPattern } from './rules/event-key.js';
export { matchesPattern, validatePattern } from './rules/event-pattern.js';
export { nextJobCheckAt } from './flow/job-safety-net.js';
export { jobName, WAIT_FOR_EVENT } from './flow/operators.js';
export { markRun, RUN_MARK_STATES, setRunNote, setTaskNote, type RunMarkState } from './flow/mark-run.js';
