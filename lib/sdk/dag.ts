/**
 * `dag()`: runs the author's build callback, records tasks and edges, and returns a
 * validated {@link DagDefinition}. Everything here is synchronous and deterministic, so
 * building the same file twice gives the same spec.
 */
import { InvalidDagError, InvalidInputError } from '../engine/index.js';
import type { DagSpec, RetryPolicy, SensorSpec, TaskKind, TaskSpec } from '../engine/index.js';
import { parseDuration } from '../engine/index.js';
import { normalizeDate } from '../engine/index.js';
import { validateDagSpec } from '../engine/index.js';
import { dagWidth } from './width.js';
import { applyPriorityWeights, limitOptions, type OwnWeight } from './pools.js';
import { declareGroup, TaskGroupHandle } from './groups.js';
import { shortCircuitTask } from './flow.js';
import { wrapBody } from './taskflow-run.js';
import { nodeTasks, outputNode } from './outputs.js';
import { collectCallbacks, DAG_CALLBACK_OPTIONS, TASK_CALLBACK_OPTIONS } from './callbacks.js';
import { assetScheduleSpec, assetSpecOf, isAssetDefinition, isAssetSchedule, type AssetDefinition } from './assets.js';
import { isOperatorBody, operatorTask } from './operators.js';
import { triggerSpec, type TriggerDagRunOptions } from './trigger-dag-run.js';
import { edgeLabelsField, splitEdgeOptions, type LinkArg } from './edges.js';
import { Group, Handle, newHandle } from './handles.js';
import { scheduleOption } from './schedule.js';
import { paramFields } from './params.js';
import { dagDisplay, taskDisplay } from './display.js';
import type {
  BranchFn,
  DagBuilder,
  DagDefinition,
  DagOptions,
  DeferrableTask,
  Duration,
  Linkable,
  Params,
  PoolDefinition,
  SensorDeclaration,
  SensorDefinition,
  SensorOptions,
  ShortCircuitOptions,
  TaskFn,
  TaskHandle,
  TaskMethodFn,
  TaskOptions,
} from './types.js';

const DEFAULT_RETRY_DELAY_MS = 300_000;
/** Airflow caps an exponentially backed-off retry delay at 24h when no cap is set. */
const BACKOFF_CAP_MS = 86_400_000;
const SENSOR_DEFAULTS = { mode: 'batched', pokeIntervalMs: 60_000, timeoutMs: 7 * 86_400_000 } as const;

interface Draft {
  spec: Omit<TaskSpec, 'upstream' | 'downstream'>;
  methods: Record<string, TaskMethodFn>;
}

/** Internal state of one `dag()` call, shared by its handles. */
export class DagDraft {
  readonly tasks = new Map<string, Draft>();
  readonly edges = new Map<string, Set<string>>();
  /** Edge labels, keyed `upstream\u0000downstream` (edges.ts). */
  readonly labels = new Map<string, string>();
  readonly sensors = new Set<SensorDefinition<any>>();
  readonly pools = new Set<PoolDefinition>();
  readonly weights = new Map<string, OwnWeight>();
  /** Assets the DAG names (schedule, outlets, inlets), by URI. */
  readonly assets = new Map<string, AssetDefinition>();
  open = true;
  constructor(readonly dagId: string, readonly defaults: TaskOptions) {}

  fail(message: string, taskId?: string, cause?: unknown): never {
    throw new InvalidDagError(message, { dagId: this.dagId, taskId, cause });
  }

  duration(value: Duration | undefined, name: string, taskId?: string): number | undefined {
    if (value === undefined) return undefined;
    try {
      return parseDuration(value);
    } catch (e) {
      return this.fail(`invalid ${name}: ${(e as Error).message}`, taskId, e);
    }
  }

  add(taskId: string, kind: TaskKind, methods: Record<string, TaskMethodFn>, options: TaskOptions, extra: Partial<TaskSpec>): TaskHandle {
    if (!this.open) this.fail(`task "${taskId}" declared after dag() returned`, taskId);
    if (typeof taskId !== 'string') this.fail(`task id must be a string, got ${JSON.stringify(taskId)}`);
    if (this.tasks.has(taskId)) this.fail(`duplicate task id "${taskId}"`, taskId);
    const o = { ...this.defaults, ...stripUndefined(options ?? {}) };
    const retries = o.retries ?? 0;
    if (!Number.isInteger(retries) || retries < 0) this.fail(`retries must be an integer >= 0, got ${String(retries)}`, taskId);
    const backoff = o.retryExponentialBackoff ?? false;
    const retry: RetryPolicy = {
      retries,
      retryDelayMs: this.duration(o.retryDelay, 'retryDelay', taskId) ?? DEFAULT_RETRY_DELAY_MS,
      retryExponentialBackoff: backoff,
    };
    const cap = this.duration(o.maxRetryDelay, 'maxRetryDelay', taskId) ?? (backoff ? BACKOFF_CAP_MS : undefined);
    if (cap !== undefined) retry.maxRetryDelayMs = cap;
    const spec: Draft['spec'] = { taskId, kind, ...retry, triggerRule: o.triggerRule ?? 'all_success', ...extra, ...taskDisplay(options, (msg) => this.fail(msg, taskId)) };
    const timeout = this.duration(o.executionTimeout, 'executionTimeout', taskId);
    if (timeout !== undefined) spec.executionTimeoutMs = timeout;
    if (o.isolation !== undefined && o.isolation !== 'thread' && o.isolation !== 'none') this.fail(`isolation must be 'thread' or 'none', got ${JSON.stringify(o.isolation)}`, taskId);
    if (o.isolation === 'none') spec.isolation = 'none';
    const limits = limitOptions(o, (msg) => this.fail(msg, taskId), (pool) => this.pools.add(pool));
    Object.assign(spec, limits.fields);
    this.weights.set(taskId, limits.own);
    if (o.dependsOnPast !== undefined && typeof o.dependsOnPast !== 'boolean') this.fail(`dependsOnPast must be a boolean, got ${JSON.stringify(o.dependsOnPast)}`, taskId);
    if (o.dependsOnPast) spec.dependsOnPast = true;
    for (const field of ['outlets', 'inlets'] as const) {
      const list = o[field];
      if (list === undefined) continue;
      if (kind === 'sensor' && field === 'outlets') this.fail('a sensor cannot have outlets (a batched sensor ends in the poker, which emits no asset events)', taskId);
      if (!Array.isArray(list)) this.fail(`${field} must be a list of assets from asset(), got ${describe(list)}`, taskId);
      spec[field] = list.map((a) => this.useAsset(a, field, taskId));
    }
    const cb = collectCallbacks(o as Record<string, unknown>, TASK_CALLBACK_OPTIONS, { dagId: this.dagId, taskId });
    if (cb.events.length) spec.callbacks = cb.events;
    if (cb.notify.length) spec.notify = cb.notify;
    // The body gets its typed inputs through the TaskFlow wrapper (taskflow-run.ts); resume methods are as written.
    const body: Record<string, TaskMethodFn> = methods.execute ? { execute: wrapBody(this, taskId, methods.execute) } : {};
    this.tasks.set(taskId, { spec, methods: { ...methods, ...body, ...cb.methods } });
    return newHandle(this, taskId, kind);
  }

  /** `from` upstream of the link ends of `targets`; returns the one target, or a group of them (as `a.before(b, c)`). */
  linkBefore(from: readonly string[], args: readonly LinkArg[]): Linkable {
    const { ends, label } = splitEdgeOptions(args, (x) => outputNode(x) !== undefined);
    const targets = ends as Array<Linkable | readonly Linkable[]>;
    this.link(from, this.ids(targets), label);
    if (targets.length === 1 && !Array.isArray(targets[0])) return targets[0] as Linkable;
    return new Group(this, targets.flat());
  }

  /** The link ends of `args` (and its edge options) upstream of `to`. */
  linkAfter(args: readonly LinkArg[], to: readonly string[]): void {
    const { ends, label } = splitEdgeOptions(args, (x) => outputNode(x) !== undefined);
    this.link(this.ids(ends as Array<Linkable | readonly Linkable[]>, 'from'), to, label);
  }

  /** Records an asset the DAG names; the same URI must mean the same asset everywhere in it. */
  useAsset(a: unknown, where: string, taskId?: string): string {
    if (!isAssetDefinition(a)) return this.fail(`${where} must list assets from asset(), got ${describe(a)}`, taskId);
    if (a.problem) this.fail(a.problem, taskId);
    const seen = this.assets.get(a.uri);
    if (seen && seen !== a && JSON.stringify(assetSpecOf(seen)) !== JSON.stringify(assetSpecOf(a))) {
      this.fail(`asset ${a.uri} is declared twice with different settings (name, group, extra or watchers): declare it once and share it`, taskId);
    }
    if (!seen) this.assets.set(a.uri, a);
    return a.uri;
  }

  link(from: readonly string[], to: readonly string[], label?: string): void {
    if (!this.open) this.fail(`dependency ${from[0]} -> ${to[0]} declared after dag() returned`, from[0]);
    for (const a of from) {
      let set = this.edges.get(a);
      if (!set) this.edges.set(a, (set = new Set()));
      for (const b of to) set.add(b);
      if (label !== undefined) for (const b of to) this.labels.set(`${a}\u0000${b}`, label);
    }
  }

  /** Task ids of link ends; a task group stands for its leaves `from` it and its roots `to` it. */
  ids(targets: ReadonlyArray<Linkable | readonly Linkable[]>, way: 'from' | 'to' = 'to'): string[] {
    const out: string[] = [];
    for (const t of targets.flat()) {
      if (t instanceof Handle) {
        if (t.draft !== this) this.fail(`task "${t.taskId}" belongs to dag "${t.dagId}", not to this DAG`, t.taskId);
        out.push(t.taskId);
      } else if (outputNode(t)) {
        out.push(...nodeTasks(outputNode(t, this)!));
      } else if (t instanceof Group) {
        out.push(...this.ids(t.members, way));
      } else if (t instanceof TaskGroupHandle && t.draft === this) {
        out.push(...t.edgeIds(way));
      } else {
        this.fail(`cannot link ${describe(t)}: expected a task handle or a group`);
      }
    }
    return out;
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function describe(v: unknown): string {
  return typeof v === 'string' ? `"${v}" (a string; link the handle that task() returned)` : String(v);
}

/**
 * Declares a DAG. The build callback declares tasks and their dependencies; the result
 * holds the serializable spec (validated) and the task code.
 *
 * @example
 * export default dag('hello', { schedule: '@daily', startDate: '2026-01-01' }, ({ task }) => {
 *   task('say', async (ctx) => ctx.log.info(`hello ${ctx.ds}`));
 * });
 * @throws InvalidDagError naming the DAG and the task.
 */
export function dag<P extends Params = Params>(
  dagId: string,
  options: DagOptions<P>,
  build: (builder: DagBuilder<P & Params>) => void,
): DagDefinition {
  // The build counts dag() calls per file, to warn about a DAG that is built but not exported.
  (globalThis as { __airlessDagCalls?: string[] }).__airlessDagCalls?.push(String(dagId));
  const fail = (msg: string, cause?: unknown): never => {
    throw new InvalidDagError(msg, { dagId: typeof dagId === 'string' ? dagId : String(dagId), cause });
  };
  const o = options ?? ({} as DagOptions<P>);
  const timezone = o.timezone ?? 'UTC';
  const input = <T>(what: string, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      if (e instanceof InvalidInputError) return fail(what ? `${what}: ${e.message}` : e.message, e);
      throw e;
    }
  };
  const assetSchedule = isAssetSchedule(o.schedule) ? assetScheduleSpec(o.schedule) : undefined;
  if (assetSchedule?.problem) fail(assetSchedule.problem);
  const { schedule, createDataIntervals } = assetSchedule ? { schedule: null, createDataIntervals: undefined } : input('', () => scheduleOption(o, timezone));
  const startDate = o.startDate === undefined ? undefined : input('invalid startDate', () => normalizeDate(o.startDate!, timezone));
  const endDate = o.endDate === undefined ? undefined : input('invalid endDate', () => normalizeDate(o.endDate!, timezone));

  const draft = new DagDraft(dagId, stripUndefined(o.defaultArgs ?? {}));
  for (const a of assetSchedule?.assets ?? []) draft.useAsset(a, 'schedule');
  // The builder's methods are typed by DagBuilder (typed TaskFlow handles); here they take what JavaScript may pass.
  const builder = {
    task: (taskId: string, body: unknown, opts: TaskOptions = {}) => {
      if (isOperatorBody(body)) return operatorTask(draft, taskId, body, opts);
      if (typeof body === 'function') return draft.add(taskId, 'task', { execute: body as TaskMethodFn }, opts, {});
      if (!body || typeof body !== 'object' || typeof (body as DeferrableTask).execute !== 'function') {
        draft.fail('a task body must be a function or an object with an execute method', taskId);
      }
      const methods: Record<string, TaskMethodFn> = {};
      for (const [name, fn] of Object.entries(body as DeferrableTask)) {
        if (typeof fn !== 'function') draft.fail(`method "${name}" is not a function`, taskId);
        methods[name] = fn as TaskMethodFn;
      }
      const others = Object.keys(methods).filter((m) => m !== 'execute').sort();
      return draft.add(taskId, 'task', methods, opts, others.length ? { methods: others } : {});
    },
    branch: (taskId: string, body: BranchFn<any>, opts: TaskOptions = {}) => {
      if (typeof body !== 'function') draft.fail('a branch body must be a function', taskId);
      return draft.add(taskId, 'branch', { execute: body as TaskMethodFn }, opts, {});
    },
    sensor: (taskId: string, decl: SensorDeclaration, opts: SensorOptions = {}) => {
      return draft.add(taskId, 'sensor', {}, opts, { sensor: sensorSpec(draft, taskId, decl, opts) });
    },
    shortCircuit: (taskId: string, body: TaskFn<any>, opts?: ShortCircuitOptions) => shortCircuitTask(draft, taskId, body, opts),
    latestOnly: (taskId: string, opts: TaskOptions = {}) => draft.add(taskId, 'branch', {}, opts, { builtin: { type: 'latest_only' } }),
    triggerDagRun: (taskId: string, t: TriggerDagRunOptions, opts: TaskOptions = {}) => draft.add(taskId, 'task', {}, opts, { builtin: triggerSpec(t) }),
    group: (groupId: string, a: any, b?: any) => declareGroup(builder, draft, undefined, groupId, a, b),
  } as unknown as DagBuilder<P & Params>;
  const result: unknown = build(builder);
  draft.open = false;
  if (result && typeof (result as { then?: unknown }).then === 'function') {
    fail('the build callback must be synchronous (it returned a promise)');
  }

  const spec: DagSpec = {
    dagId,
    file: '',
    ...(o.description !== undefined ? { description: o.description } : {}),
    schedule,
    timezone,
    ...(startDate !== undefined ? { startDate } : {}),
    ...(endDate !== undefined ? { endDate } : {}),
    catchup: o.catchup ?? false,
    ...(createDataIntervals ? { createDataIntervals: true } : {}),
    maxActiveRuns: o.maxActiveRuns ?? 16,
    maxActiveTasks: o.maxActiveTasks ?? 16,
    maxParallelism: draft.tasks.size,
    ...paramFields(o.params),
    ...dagDisplay(o, fail),
    tags: [...(o.tags ?? [])],
    pausedOnCreation: o.pausedOnCreation ?? false,
    tasks: assembleTasks(draft),
    ...edgeLabelsField(draft.labels),
    ...(assetSchedule ? { assetSchedule: assetSchedule.condition } : {}),
    ...(draft.assets.size ? { assets: [...draft.assets.values()].map(assetSpecOf) } : {}),
  };
  applyPriorityWeights(spec.tasks, draft.weights);
  const dagrunTimeoutMs = draft.duration(o.dagrunTimeout, 'dagrunTimeout');
  if (dagrunTimeoutMs !== undefined) spec.dagrunTimeoutMs = dagrunTimeoutMs;
  const cb = collectCallbacks(o as Record<string, unknown>, DAG_CALLBACK_OPTIONS, { dagId });
  if (cb.events.length) spec.callbacks = cb.events as DagSpec['callbacks'];
  if (cb.notify.length) spec.notify = cb.notify;
  validateDagSpec(spec);
  spec.maxParallelism = dagWidth(spec.tasks);
  const methods = [...draft.tasks].map(([id, d]): [string, Readonly<Record<string, TaskMethodFn>>] => [id, Object.freeze(d.methods)]);
  // Run-level callback code sits under the empty task id, which no task can have.
  if (Object.keys(cb.methods).length) methods.push(['', Object.freeze(cb.methods)]);
  return Object.freeze({
    __airless: 'dag' as const,
    spec: asManifestJson(spec),
    tasks: new Map(methods),
    sensors: [...draft.sensors],
    pools: [...draft.pools],
  });
}

/**
 * The spec as the manifest carries it (manifest.json is this spec through JSON), so the
 * embedded runtime runs on what a deployed worker reads. It also gives every task spec
 * with the same fields one V8 hidden class, as JSON.parse builds them: specs built by
 * spreads each had their own, and the engine's reads of them (several per task and step)
 * went megamorphic, a fifth of the cost of a run of many DAGs (docs/performance.md).
 */
function asManifestJson(spec: DagSpec): DagSpec {
  return JSON.parse(JSON.stringify(spec)) as DagSpec;
}

function assembleTasks(draft: DagDraft): TaskSpec[] {
  const up = new Map<string, string[]>();
  for (const [a, bs] of draft.edges) for (const b of bs) up.set(b, [...(up.get(b) ?? []), a]);
  const ids = new Set(draft.tasks.keys());
  const tasks: TaskSpec[] = [...draft.tasks.values()].map(({ spec }) => ({
    ...spec,
    upstream: [...(up.get(spec.taskId) ?? [])].sort(),
    downstream: [...(draft.edges.get(spec.taskId) ?? [])].sort(),
  }));
  // Edges cannot name a task outside the DAG (handles are checked), but a self-edge or a
  // cycle can exist: validateDagSpec reports it with its path.
  for (const t of tasks) for (const d of t.downstream) if (!ids.has(d)) draft.fail(`unknown task "${d}"`, t.taskId);
  return tasks;
}

function sensorSpec(draft: DagDraft, taskId: string, decl: SensorDeclaration, o: SensorOptions): SensorSpec {
  if (!decl || typeof decl !== 'object') draft.fail('a sensor needs a declaration { type, pokeContext }', taskId);
  let type: string;
  if (typeof decl.type === 'string') type = decl.type;
  else if (decl.type && (decl.type as SensorDefinition).__airless === 'sensor') {
    type = (decl.type as SensorDefinition).type;
    draft.sensors.add(decl.type as SensorDefinition);
  } else return draft.fail(`sensor type must be a string or a defineSensor() result, got ${describe(decl.type)}`, taskId);
  const s: SensorSpec = {
    type,
    pokeContext: { ...(decl.pokeContext ?? {}) },
    mode: o.mode ?? SENSOR_DEFAULTS.mode,
    pokeIntervalMs: draft.duration(o.pokeInterval, 'pokeInterval', taskId) ?? SENSOR_DEFAULTS.pokeIntervalMs,
    timeoutMs: draft.duration(o.timeout, 'timeout', taskId) ?? SENSOR_DEFAULTS.timeoutMs,
    softFail: o.softFail ?? false,
    exponentialBackoff: o.exponentialBackoff ?? false,
  };
  const max = draft.duration(o.maxPokeInterval, 'maxPokeInterval', taskId);
  if (max !== undefined) s.maxPokeIntervalMs = max;
  if (o.silentFail !== undefined && typeof o.silentFail !== 'boolean') draft.fail(`silentFail must be true or false, got ${describe(o.silentFail)}`, taskId);
  if (o.silentFail) s.silentFail = true;
  return s;
}
