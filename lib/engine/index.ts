/**
 * The Airless engine: pure orchestration logic over ports. Runtimes (the embedded
 * runtime, the Lambda handlers), the CLI and the API build {@link Ports} and call these
 * functions. What adapters implement is the second entry, ./ports-index.ts, re-exported here.
 */
export * from './ports-index.js';
export * from './model/types.js';
export * from './model/states.js';
export * from './model/errors.js';
export type * from './model/context.js';
export { handleMessage } from './handlers/dispatch.js';
export { encodeQueueMessage, parseQueueMessage, validateQueueMessage } from './model/messages.js';
export { reconcile, type ReconcileReport } from './flow/reconcile.js';
export { pokeShard, type PokeReport } from './flow/poke.js';
export { sendSignal } from './flow/waiting.js';
export { sensorHash, VIRTUAL_SHARDS } from './flow/sensor-start.js';
export { SENSOR_WAITS_LINE } from './flow/sensor-start.js';
export {
  clearTasks,
  createRun,
  registerManifest,
  scheduleDag,
  setPaused,
  startQueuedRuns,
  triggerRun,
  type TriggerOptions,
} from './flow/runs.js';
export { advanceRun } from './flow/settle.js';
export { evaluateTriggerRule } from './rules/trigger-rules.js';
export { decideRunState } from './rules/run-state.js';
export { deepFreeze } from './rules/freeze.js';
export { canonicalJson, sha256Hex } from './rules/hash.js';
export { BUILTIN_SENSOR_TYPES, validateDagSpec } from './rules/validate.js';
export { unknownTriggerTarget } from './rules/authoring.js';
export { badDateTemplate } from './rules/date-math.js';
export { TRIGGER_RUN_ID_KEY } from './flow/trigger-dag-run.js';
export { MARK_STATES, markTask, type MarkResult, type MarkState } from './flow/mark.js';
export { downstreamClosure, upstreamClosure } from './flow/runs.js';
export { loadRunCtx, runTemplateVars, taskSpec } from './rules/dag-index.js';
export { renderDeep, renderTemplate, templateVars } from './rules/template.js';
export { runBody } from './handlers/worker.js';
export { pokeOnce } from './flow/poke.js';
export { nextTick, normalizeDate, parseSchedule, prevTick } from './rules/timetable.js';
export { onceTick } from './rules/timetable.js';
export { ParamValidationError, runParamsProblem, valueProblem } from './rules/params.js';
export { isLatestRun } from './rules/latest-only.js';
export { recoveryDueAt } from './flow/recover.js';
export { resendsDueAt } from './flow/resend.js';
export { parseDuration } from './rules/duration.js';
export { idProblem } from './rules/validate.js';
export { RUN_ID_PATTERN, runIdProblem, runIdRule } from './rules/ids.js';
export { depthProblem, MAX_VALUE_DEPTH } from './rules/values.js';
export { checkPools, isLimited, poolProblem, priorityWeights, WEIGHT_RULES, type WeightRule } from './rules/pool-limits.js';
export { MAP_OUTCOMES, baseTaskId, instanceId, isInstanceId, shardCount, shardWant, type MapOutcome } from './rules/mapping-ids.js';
export { hasSecrets, isSensitiveKey, maskFields, maskSecret, redact, redactDeep } from './rules/secrets-mask.js';
export { elementAt, mapLength, namedSources } from './rules/mapping-ids.js';
export { instanceValue } from './flow/mapping-values.js';
export * from './model/backfill.js';
export { advanceBackfill, backfillRuns, cancelBackfill, createBackfill, previewBackfill, setBackfillPaused, type BackfillRequest, type DatePlan } from './flow/backfill.js';
export { CONFIRM_ABOVE, MAX_BACKFILL_DATES, backfillRunId } from './rules/backfill.js';
export { backfillCost, type BackfillCost } from './flow/backfill-cost.js';
export { COST_MODEL, estimateBackfillCost, type CostEstimate, type CostModel, type RequestCost } from './rules/cost-model.js';
export { PRICES, usd, type Price } from './rules/prices.js';
export { checkPokerSchedules, ensurePokerOn } from './flow/poker-schedule.js';
export * from './model/assets.js';
export { assetEventHash, assetEventId, assetEventRef, assetGroupProblem, assetId, assetNameProblem, normalizeAssetUri, parseAssetEventRef } from './rules/asset-uri.js';
export { conditionUris, describeCondition, evaluateCondition } from './rules/asset-condition.js';
export { watcherProblem, type ExternalAssetEvent, type WatcherHit } from './rules/asset-watchers.js';
export { extraProblem, evaluateAssetQueue, recordAssetEvent, type NewAssetEvent, type RecordedAssetEvent } from './flow/assets.js';
export { assetRecords } from './flow/asset-registry.js';
export { ingestExternalEvent, type IngestReport } from './handlers/asset-ingest.js';
export { handleEvent, type EventReport } from './handlers/events.js';
export { checkEventWait, eventKeys, eventProblem, MAX_CANDIDATES, patternKey, waitPattern } from './rules/event-key.js';
export { matchesPattern, validatePattern } from './rules/event-pattern.js';
export { nextJobCheckAt } from './flow/job-safety-net.js';
export { jobName, WAIT_FOR_EVENT } from './flow/operators.js';
export { markRun, RUN_MARK_STATES, setRunNote, setTaskNote, type RunMarkState } from './flow/mark-run.js';
