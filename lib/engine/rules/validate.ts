/**
 * Validation of a serialized DAG. Runs in the SDK (while `dag()` builds), in the bundler
 * (with the file and the known sensor types) and wherever a manifest is read back, so a
 * bad spec never reaches a scheduler. Every failure is an InvalidDagError naming the
 * file, the DAG and, where there is one, the task.
 */
import { InvalidDagError, InvalidInputError } from '../model/errors.js';
import { TRIGGER_RULES, type DagSpec, type TaskSpec } from '../model/types.js';
import { assertTimezone, parseSchedule } from './timetable.js';
import { checkTaskLimits } from './pool-limits.js';
import { checkFlow } from './validate-flow.js';
import { checkExpand } from './mapping-validate.js';
import { checkAssets } from './asset-validate.js';
import { checkInputs } from './inputs.js';
import { checkAuthoring } from './authoring.js';

/** Ids of DAGs and tasks. */
import { ID_PATTERN } from '../model/id-patterns.js';
export { ID_PATTERN };

/** Sensor types the engine implements. */
export const BUILTIN_SENSOR_TYPES: readonly string[] = ['file', 's3_key', 'http', 'external_task', 'time'];

const TRIGGER_RULE_SET = new Set<string>(TRIGGER_RULES);
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

export interface ValidateOptions {
  /** Sensor types allowed besides nothing: pass built-ins plus the bundle's; omit to skip the check. */
  knownSensorTypes?: readonly string[];
}

/**
 * Describes why an id is invalid, or returns undefined when it is valid.
 *
 * @example
 * idProblem('task', 'a b'); // 'invalid task id "a b": ...'
 */
export function idProblem(kind: 'dag' | 'task', id: unknown): string | undefined {
  if (typeof id === 'string' && ID_PATTERN.test(id)) return undefined;
  return `invalid ${kind} id ${JSON.stringify(id)}: use 1-250 characters from A-Z a-z 0-9 _ . -`;
}

/**
 * Throws InvalidDagError on the first problem found in `spec`.
 *
 * @example
 * validateDagSpec(spec, { knownSensorTypes: [...BUILTIN_SENSOR_TYPES, 'partition_ready'] });
 */
export function validateDagSpec(spec: DagSpec, opts: ValidateOptions = {}): void {
  const file = spec.file || undefined;
  const fail = (msg: string, taskId?: string, cause?: unknown): never => {
    throw new InvalidDagError(msg, { file, dagId: typeof spec.dagId === 'string' ? spec.dagId : undefined, taskId, cause });
  };

  const dagIdProblem = idProblem('dag', spec.dagId);
  if (dagIdProblem) throw new InvalidDagError(dagIdProblem, { file });
  try {
    assertTimezone(spec.timezone);
    if (spec.schedule?.kind === 'cron') {
      parseSchedule(spec.schedule.expr, spec.schedule.timezone);
    } else if (spec.schedule?.kind === 'rate' && !(Number.isInteger(spec.schedule.everyMs) && spec.schedule.everyMs >= 60_000)) {
      fail(`invalid schedule: a rate must be a whole number of minutes, got ${spec.schedule.everyMs} ms`);
    }
  } catch (e) {
    if (e instanceof InvalidInputError) fail(e.message, undefined, e);
    throw e;
  }
  checkDates(spec, fail);
  if (spec.createDataIntervals !== undefined && typeof spec.createDataIntervals !== 'boolean') fail(`createDataIntervals must be true or false, got ${JSON.stringify(spec.createDataIntervals)}`);
  for (const key of ['maxActiveRuns', 'maxActiveTasks'] as const) {
    if (!Number.isInteger(spec[key]) || spec[key] < 1) fail(`${key} must be an integer >= 1, got ${String(spec[key])}`);
  }
  if (!Array.isArray(spec.tasks)) fail('tasks must be an array');

  const byId = new Map<string, TaskSpec>();
  for (const t of spec.tasks) {
    const p = idProblem('task', t.taskId);
    if (p) fail(p);
    if (byId.has(t.taskId)) fail(`duplicate task id "${t.taskId}"`, t.taskId);
    byId.set(t.taskId, t);
  }
  for (const t of spec.tasks) checkTask(t, opts, (msg, cause) => fail(msg, t.taskId, cause));
  for (const t of spec.tasks) if (t.expand) checkExpand(spec, t, (msg) => fail(msg, t.taskId));
  for (const t of spec.tasks) if (t.inputs || t.outputKeys) checkInputs(spec, t, (msg) => fail(msg, t.taskId));
  checkEdges(spec.tasks, byId, fail);
  checkFlow(spec, fail, (id) => ID_PATTERN.test(id));
  checkAssets(spec, fail);
  checkAuthoring(spec, fail);
  const cycle = findCycle(spec.tasks, byId);
  if (cycle) fail(`cycle: ${cycle.join(' -> ')}`);
  // A branch without downstream tasks is valid, as in Airflow: it has nothing to skip.
  if (!Number.isInteger(spec.maxParallelism) || spec.maxParallelism < Math.min(1, spec.tasks.length) || spec.maxParallelism > spec.tasks.length) {
    fail(`maxParallelism must be an integer between 1 and the number of tasks, got ${String(spec.maxParallelism)}`);
  }
}

function checkDates(spec: DagSpec, fail: (msg: string) => never): void {
  const parsed: Record<'startDate' | 'endDate', number | undefined> = { startDate: undefined, endDate: undefined };
  for (const key of ['startDate', 'endDate'] as const) {
    const v = spec[key];
    if (v === undefined) continue;
    const ms = typeof v === 'string' && ISO_INSTANT.test(v) ? Date.parse(v) : NaN;
    if (Number.isNaN(ms)) fail(`${key} ${JSON.stringify(v)} is not an ISO-8601 instant (e.g. '2026-01-01T00:00:00Z')`);
    parsed[key] = ms;
  }
  if (parsed.startDate !== undefined && parsed.endDate !== undefined && parsed.endDate < parsed.startDate) {
    fail(`endDate ${spec.endDate} is before startDate ${spec.startDate}`);
  }
}

function checkMs(name: string, value: unknown, fail: (msg: string) => never, optional = false): void {
  if (optional && value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    fail(`invalid ${name}: expected a non-negative duration in ms, got ${JSON.stringify(value)}`);
  }
}

function checkTask(t: TaskSpec, opts: ValidateOptions, fail: (msg: string, cause?: unknown) => never): void {
  if (t.kind !== 'task' && t.kind !== 'branch' && t.kind !== 'sensor') fail(`unknown task kind ${JSON.stringify(t.kind)}`);
  if (!TRIGGER_RULE_SET.has(t.triggerRule)) {
    fail(`unknown trigger rule ${JSON.stringify(t.triggerRule)} (expected one of: ${TRIGGER_RULES.join(', ')})`);
  }
  if (!Number.isInteger(t.retries) || t.retries < 0) fail(`retries must be an integer >= 0, got ${String(t.retries)}`);
  checkMs('retryDelay', t.retryDelayMs, fail);
  checkMs('maxRetryDelay', t.maxRetryDelayMs, fail, true);
  checkMs('executionTimeout', t.executionTimeoutMs, fail, true);
  if (t.executionTimeoutMs === 0) fail('invalid executionTimeout: must be greater than 0');
  if (t.isolation !== undefined && t.isolation !== 'none') fail(`invalid isolation ${JSON.stringify(t.isolation)} (expected 'none' or absent)`);
  if (!Array.isArray(t.upstream) || !Array.isArray(t.downstream)) fail('upstream and downstream must be arrays');
  checkTaskLimits(t, fail);
  if (t.kind !== 'sensor') {
    if (t.sensor) fail('only sensor tasks have sensor settings');
    return;
  }
  const s = t.sensor;
  if (!s) return fail('sensor task without sensor settings');
  if (typeof s.type !== 'string' || s.type === '') fail('sensor type must be a non-empty string');
  if (opts.knownSensorTypes && !opts.knownSensorTypes.includes(s.type)) {
    const custom = opts.knownSensorTypes.filter((x) => !BUILTIN_SENSOR_TYPES.includes(x));
    fail(
      `unknown sensor type "${s.type}" (built-in: ${BUILTIN_SENSOR_TYPES.join(', ')}; ` +
        `defined with defineSensor in this bundle: ${custom.length ? custom.join(', ') : 'none'})`,
    );
  }
  if (s.mode !== 'batched' && s.mode !== 'reschedule') fail(`unknown sensor mode ${JSON.stringify(s.mode)} (expected batched or reschedule)`);
  checkMs('pokeInterval', s.pokeIntervalMs, fail);
  if (s.pokeIntervalMs === 0) fail('invalid pokeInterval: must be greater than 0');
  checkMs('timeout', s.timeoutMs, fail);
  checkMs('maxPokeInterval', s.maxPokeIntervalMs, fail, true);
  if (s.silentFail !== undefined && typeof s.silentFail !== 'boolean') fail('sensor silentFail must be a boolean');
  if (s.pokeContext === null || typeof s.pokeContext !== 'object' || Array.isArray(s.pokeContext)) {
    fail('sensor pokeContext must be an object');
  }
  const missing = builtinContextProblem(s.type, s.pokeContext as Record<string, unknown>);
  if (missing) fail(`${s.type} sensor ${missing}`);
}

const text = (v: unknown): boolean => typeof v === 'string' && v !== '';

/**
 * What a built-in sensor's poke context lacks, checked at build so that the run does not
 * crash on it. Values may be templates (`'{{ ds }}'`): only presence and type are checked.
 */
function builtinContextProblem(type: string, pc: Record<string, unknown>): string | undefined {
  switch (type) {
    case 'time': {
      const given = ['at', 'after'].filter((k) => pc[k] !== undefined);
      if (given.length !== 1) return 'needs exactly one of "at" (a date) and "after" (a duration) in its poke context';
      return text(pc[given[0]!]) || typeof pc[given[0]!] === 'number' ? undefined : `"${given[0]}" must be a string or a number`;
    }
    case 'file':
      return text(pc.path) ? undefined : 'needs a "path" string in its poke context';
    case 's3_key':
      return text(pc.key) || typeof pc.prefix === 'string' ? undefined : 'needs a "key" (or a "prefix") in its poke context';
    case 'http':
      return text(pc.url) ? undefined : 'needs a "url" string in its poke context';
    case 'external_task':
      if (!text(pc.externalDagId ?? pc.dagId)) return 'needs "externalDagId" in its poke context';
      return text(pc.externalTaskId ?? pc.taskId) ? undefined : 'needs "externalTaskId" in its poke context';
    default:
      return undefined;
  }
}

function checkEdges(tasks: readonly TaskSpec[], byId: Map<string, TaskSpec>, fail: (msg: string, taskId?: string) => never): void {
  for (const t of tasks) {
    for (const [dir, list, back] of [
      ['upstream', t.upstream, 'downstream'],
      ['downstream', t.downstream, 'upstream'],
    ] as const) {
      const seen = new Set<string>();
      for (const other of list) {
        const o = byId.get(other);
        if (!o) fail(`task "${t.taskId}" has ${dir} "${other}", which is not a task of this DAG`, t.taskId);
        if (seen.has(other)) fail(`task "${t.taskId}" lists ${dir} "${other}" twice`, t.taskId);
        seen.add(other);
        if (!o[back].includes(t.taskId)) {
          fail(`task "${t.taskId}" has ${dir} "${other}" but "${other}" does not list it as ${back}`, t.taskId);
        }
      }
    }
  }
}

/**
 * Finds one cycle, as a path that starts and ends at the same task (`a -> b -> a`), or
 * undefined. Deterministic: roots are visited in id order, children in list order.
 *
 * @example
 * findCycle(spec.tasks, new Map(spec.tasks.map((t) => [t.taskId, t]))); // ['a', 'b', 'a']
 */
export function findCycle(tasks: readonly TaskSpec[], byId: ReadonlyMap<string, TaskSpec>): string[] | undefined {
  const color = new Map<string, 1 | 2>(); // 1 = on the DFS path, 2 = done
  const ids = tasks.map((t) => t.taskId).sort();
  for (const root of ids) {
    if (color.has(root)) continue;
    // Iterative DFS: 1,000-task chains must not hit the stack limit.
    const path: string[] = [root];
    const next: number[] = [0];
    color.set(root, 1);
    while (path.length > 0) {
      const id = path[path.length - 1];
      const down = byId.get(id)?.downstream ?? [];
      const i = next[next.length - 1]++;
      if (i >= down.length) {
        color.set(id, 2);
        path.pop();
        next.pop();
        continue;
      }
      const child = down[i];
      const c = color.get(child);
      if (c === 1) return [...path.slice(path.indexOf(child)), child];
      if (c === undefined) {
        color.set(child, 1);
        path.push(child);
        next.push(0);
      }
    }
  }
  return undefined;
}
