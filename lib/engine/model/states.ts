/**
 * Task and run states (Airflow 3 names) and the transitions the engine may make.
 * Every state read from storage goes through {@link parseTaskState} or
 * {@link parseRunState}, so an unknown value is rejected at the edge.
 */

export const TaskState = {
  scheduled: 'scheduled',
  queued: 'queued',
  running: 'running',
  success: 'success',
  failed: 'failed',
  up_for_retry: 'up_for_retry',
  deferred: 'deferred',
  sensing: 'sensing',
  skipped: 'skipped',
  upstream_failed: 'upstream_failed',
  removed: 'removed',
} as const;
export type TaskState = (typeof TaskState)[keyof typeof TaskState];

export const RunState = {
  queued: 'queued',
  running: 'running',
  success: 'success',
  failed: 'failed',
} as const;
export type RunState = (typeof RunState)[keyof typeof RunState];

/** States a task never leaves unless it is cleared. */
export const TERMINAL_TASK_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'success',
  'failed',
  'skipped',
  'upstream_failed',
  'removed',
]);

/**
 * What a downstream records of each finished upstream. `branch_skipped` is a branch
 * task that succeeded and did not choose this downstream: the downstream is skipped
 * whatever its trigger rule (Airflow's NotPreviouslySkippedDep).
 */
export type UpstreamOutcome = 'success' | 'failed' | 'skipped' | 'upstream_failed' | 'branch_skipped';

export function isTerminal(state: TaskState): boolean {
  return TERMINAL_TASK_STATES.has(state);
}

export function isRunTerminal(state: RunState): boolean {
  return state === 'success' || state === 'failed';
}

/**
 * The explicit transition table, checked by the one writer of task state
 * (transition.ts): a write that is not listed here is a bug in the engine, and
 * `assertTransition` throws on it.
 * `clear` may move any terminal state back to `scheduled`; it is listed too.
 */
export const TASK_TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = {
  // `deferred` from `scheduled`: a time sensor waits on a timer without a worker.
  scheduled: ['queued', 'sensing', 'deferred', 'skipped', 'upstream_failed', 'removed'],
  queued: ['running', 'skipped', 'upstream_failed', 'scheduled', 'removed', 'failed'],
  running: ['success', 'failed', 'up_for_retry', 'deferred', 'skipped', 'scheduled'],
  // `skipped` from `up_for_retry`: the run timed out (run-timeout.ts).
  up_for_retry: ['queued', 'sensing', 'failed', 'scheduled', 'skipped'],
  // `success` from `deferred`: a time sensor's timer fired.
  deferred: ['queued', 'success', 'failed', 'up_for_retry', 'skipped', 'scheduled'],
  sensing: ['success', 'failed', 'skipped', 'up_for_retry', 'scheduled'],
  success: ['scheduled'],
  failed: ['scheduled'],
  skipped: ['scheduled'],
  upstream_failed: ['scheduled'],
  removed: ['scheduled'],
};

export function canTransition(from: TaskState, to: TaskState): boolean {
  return TASK_TRANSITIONS[from].includes(to);
}

export function assertTransition(from: TaskState, to: TaskState): void {
  if (!canTransition(from, to)) throw new Error(`illegal task transition ${from} -> ${to}`);
}

const TASK_STATE_SET = new Set<string>(Object.values(TaskState));
const RUN_STATE_SET = new Set<string>(Object.values(RunState));

export function parseTaskState(value: unknown): TaskState {
  if (typeof value === 'string' && TASK_STATE_SET.has(value)) return value as TaskState;
  throw new Error(`unknown task state ${JSON.stringify(value)}`);
}

export function parseRunState(value: unknown): RunState {
  if (typeof value === 'string' && RUN_STATE_SET.has(value)) return value as RunState;
  throw new Error(`unknown run state ${JSON.stringify(value)}`);
}
