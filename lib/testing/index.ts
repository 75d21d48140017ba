/**
 * `airless/testing`: run a DAG inside your own test suite (vitest, node:test, jest) with
 * no database and no AWS. The whole engine runs in process on memory ports and a virtual
 * clock, so retry delays, sensor intervals and deferrals cost no wall time.
 *
 * @example
 * import { testDag, assertTaskStates } from 'airless/testing';
 * import etl from '../dags/etl.js';
 *
 * const r = await testDag(etl, { conf: { full: true }, mocks: { load: async () => 'ok' } });
 * assertTaskStates(r, { extract: 'success', load: 'success' });
 * r.xcom('extract'); // what extract returned
 */
import { SystemClock, VirtualClock } from '../adapters/clock.js';
import { MemoryLog, type LogLine } from '../adapters/memory/observe.js';
import { MemoryStore } from '../adapters/memory/store.js';
import { baseTaskId, InvalidInputError, instanceValue, isInstanceId } from '../engine/index.js';
import { LocalSecrets } from '../adapters/secrets-local.js';
import { FixedSecrets } from './secrets.js';
import type { DagRun, TaskInstance, TaskKey, XcomKey } from '../engine/index.js';
import type { TaskState } from '../engine/index.js';
import type { BundleSource, LoadedBundle, SensorPoke, Store, TaskCallable } from '../engine/index.js';
import { InlineBundleSource } from '../runtime/inline-bundles.js';
import { EmbeddedRuntime, type RunOutcome } from '../runtime/embedded.js';
import { sendRunSignal } from '../runtime/signals.js';
import type { DagDefinition, SensorDefinition } from '../sdk/types.js';
import { DEFINITION, isSdkDag, type Dag as SdkDag } from '../sdk/airflow-ts-sdk/dag.js';
import { builtinSensors } from '../sensors/index.js';
import { awsJobDrivers, JOB_SERVICES, MockJobs, type MockJobCall, type OperatorMock } from '../operators/index.js';
import type { JobDrivers } from '../engine/index.js';

export type { MockJobCall, MockJobResult, OperatorMock } from '../operators/index.js';

export { assertRunState, assertTaskState, assertTaskStates, TestDagAssertionError } from './assert.js';

/** A task body standing in for the real one: receives the same `ctx`. */
export type TaskMock = (ctx: any) => unknown;

export interface TestDagOptions {
  /** Run conf (`dag_run.conf`), also visible as params. */
  conf?: Record<string, unknown>;
  /** Logical date (ISO string, Date or epoch ms). Default 2026-01-01T00:00:00Z. */
  logicalDate?: string | number | Date;
  /** Signals sent before the run waits: key template → payload (`{{ ds }}` etc. are rendered). */
  signals?: Record<string, unknown>;
  /** Task bodies to replace, by task id (the real body is not called). */
  mocks?: Record<string, TaskMock>;
  /** Pokes of sensor types to replace, by type (built-in `file`, `http`, ... or your own). */
  sensorMocks?: Record<string, (pokeContext: any) => unknown>;
  /** Custom sensor types defined outside the DAG's file. */
  sensors?: SensorDefinition<any>[];
  /**
   * Operators to mock, by operator type (`ecs_run_task`, `glue_start_job_run`...): each gets
   * the SDK input and says how the job ends (`{ after: '40m' }`, `{ fail: 'OOM' }`,
   * `{ dropEvent: true }`...); its end event, in AWS's shape, then goes through the events path.
   */
  operatorMocks?: Record<string, OperatorMock>;
  /**
   * An AWS-compatible endpoint (a rehearsal's, or LocalStack) the operators that are not
   * mocked call for real. Their end events reach that endpoint's stack, not this run: the
   * safety net's describes find each job's end.
   */
  endpoint?: string;
  /** Virtual time (default true): waits cost no wall time. `false` runs on the real clock. */
  timeWarp?: boolean;
  /** Stop after this much virtual time (default 30 days): the run is then `stalled`. */
  maxVirtualMs?: number;
  /**
   * Airflow variables the run reads (`ctx.variables.get`), by key: strings as they are, other
   * values as their JSON. Given, only these exist (not AIRLESS_VAR_* or .airless/variables.json).
   */
  variables?: Record<string, unknown>;
  /**
   * Airflow connections the run reads (`ctx.connections.get`), by id: a URI
   * (`postgres://user:pass@host:5432/db`) or Airflow's JSON form. Given, only these exist.
   */
  connections?: Record<string, string | Record<string, unknown>>;
}

/** One task of a finished test run; a mapped task's instances are tasks too (`size#0`, ...). */
export interface TestTask {
  /** The task id; `size#2` for instance 2 of mapped task `size`. */
  taskId: string;
  /** An instance's map index (Airflow's `map_index`); absent for a task that is not an instance. */
  mapIndex?: number;
  state: TaskState | 'none';
  /** Tries made (0 when it never ran). */
  tries: number;
  error?: string;
  /** XComs it pushed, by key (`return_value` is what it returned; for a mapped task, its instances' values in map-index order). */
  xcom: Record<string, unknown>;
  /** Virtual (or real) milliseconds from start to end of the last try. */
  durationMs?: number;
}

export interface TestDagResult {
  dagId: string;
  runId: string;
  /** `success`, `failed`, or `running` when the run stalled (nothing left to do or wait for) or hit maxVirtualMs. */
  state: DagRun['state'];
  outcome: RunOutcome;
  tasks: Record<string, TestTask>;
  /** Log lines of the run, task lines carry `fields.taskId` and `fields.tryNumber`. */
  logs: LogLine[];
  /** Virtual milliseconds the run took. */
  virtualMs: number;
  /** The jobs the mocked operators started, in order. */
  jobs: MockJobCall[];
  run: DagRun;
  /** An XCom a task pushed (default key `return_value`); a mapped task's is its instances' values, as `ctx.xcom.pull` gives them. */
  xcom(taskId: string, key?: string): unknown;
  /** Log messages of one task (all tries). */
  taskLogs(taskId: string): string[];
}

const DEFAULT_DATE = Date.parse('2026-01-01T00:00:00Z');

function toMs(d: TestDagOptions['logicalDate']): number {
  if (d === undefined) return DEFAULT_DATE;
  const ms = d instanceof Date ? d.getTime() : typeof d === 'number' ? d : Date.parse(d);
  if (!Number.isFinite(ms)) throw new InvalidInputError(`testDag: logicalDate must be an ISO date, got ${String(d)}`);
  return ms;
}

/** The `variables`/`connections` options, checked: objects keyed by name. */
function checkSecrets(o: TestDagOptions): { variables?: Record<string, unknown>; connections?: Record<string, unknown> } {
  for (const kind of ['variables', 'connections'] as const) {
    const v = o[kind];
    if (v !== undefined && (v === null || typeof v !== 'object' || Array.isArray(v))) throw new InvalidInputError(`testDag: ${kind} must be an object keyed by ${kind === 'variables' ? 'key' : 'connection id'}`);
  }
  return { ...(o.variables ? { variables: o.variables } : {}), ...(o.connections ? { connections: o.connections } : {}) };
}

/** Records every XCom written, so a test can read them all after the run. */
function recordXcoms(store: Store, into: Map<string, Record<string, unknown>>): Store {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'putXcom') {
        return async (key: XcomKey, value: unknown, expiresAt?: number) => {
          await target.putXcom(key, value, expiresAt);
          into.set(key.taskId, { ...(into.get(key.taskId) ?? {}), [key.key]: value });
        };
      }
      // A new try clears the XComs of the tries before it: so does the record.
      if (prop === 'clearXcoms') return async (task: TaskKey) => { await target.clearXcoms(task); into.delete(task.taskId); };
      const v = (target as any)[prop];
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** A bundle source whose task methods are replaced by mocks. */
function withMocks(inner: InlineBundleSource, dag: DagDefinition, mocks: Record<string, TaskMock>): BundleSource {
  for (const id of Object.keys(mocks)) {
    if (!dag.tasks.has(id)) throw new InvalidInputError(`testDag: mocks names task "${id}", which dag ${dag.spec.dagId} does not have (tasks: ${[...dag.tasks.keys()].join(', ')})`);
  }
  return {
    manifest: (v) => inner.manifest(v),
    async load(v): Promise<LoadedBundle> {
      const b = await inner.load(v);
      return {
        manifest: b.manifest,
        sensorPoke: (t) => b.sensorPoke(t),
        taskMethod: (dagId, taskId, method): TaskCallable | undefined =>
          dagId === dag.spec.dagId && method === 'execute' && mocks[taskId] ? (mocks[taskId] as TaskCallable) : b.taskMethod(dagId, taskId, method),
      };
    },
  };
}

/**
 * Triggers one run of `dag` and runs it to the end on memory ports.
 *
 * @example
 * const r = await testDag(dag, { logicalDate: '2026-03-01', signals: { 'approve-{{ ds }}': { by: 'qa' } } });
 * assert.equal(r.state, 'success');
 */
export async function testDag(given: DagDefinition | SdkDag, opts: TestDagOptions = {}): Promise<TestDagResult> {
  // A Dag of Airflow's TypeScript SDK is tested as the Airless DAG it is read as.
  const dag = isSdkDag(given) ? given[DEFINITION]() : given;
  if (!dag || (dag as { __airless?: unknown }).__airless !== 'dag') throw new InvalidInputError('testDag: the first argument must be what dag() returns');
  const logicalDate = toMs(opts.logicalDate);
  const clock = opts.timeWarp === false ? new SystemClock() : new VirtualClock(logicalDate);
  const inline = new InlineBundleSource([dag], opts.sensors ?? []);
  const bundles = opts.mocks ? withMocks(inline, dag, opts.mocks) : inline;
  const sensors: Record<string, SensorPoke> = { ...builtinSensors(), ...(opts.sensorMocks as Record<string, SensorPoke> | undefined) };
  const log = new MemoryLog();
  const xcoms = new Map<string, Record<string, unknown>>();
  const secrets = opts.variables || opts.connections ? new FixedSecrets(checkSecrets(opts), new LocalSecrets()) : undefined;
  let rt: EmbeddedRuntime | undefined;
  const mocks = opts.operatorMocks && new MockJobs(opts.operatorMocks, JOB_SERVICES, { now: () => clock.now(), deliver: (event, at) => rt!.scheduleEvent(event, at) });
  const jobs: JobDrivers | undefined = opts.endpoint || mocks ? { ...(opts.endpoint ? awsJobDrivers({ endpoint: opts.endpoint }) : {}), ...mocks?.drivers() } : undefined;
  rt = new EmbeddedRuntime({ bundles, clock, schedules: false, sensors, log, store: recordXcoms(new MemoryStore(), xcoms), jobs, ...(secrets ? { secrets } : {}) });
  await rt.register(inline.version);
  const started = clock.now();
  const run = await rt.trigger(dag.spec.dagId, { conf: opts.conf, logicalDate });
  for (const [key, payload] of Object.entries(opts.signals ?? {})) await sendRunSignal(rt.ports, run, dag.spec, key, payload);
  const outcome = await rt.runToCompletion(dag.spec.dagId, run.runId, { maxVirtualMs: opts.maxVirtualMs ?? 30 * 86_400_000 });
  const final = (await rt.ports.store.getRun(dag.spec.dagId, run.runId))!;
  const all = await rt.ports.store.listTasks(dag.spec.dagId, run.runId);
  const instances = new Map<string, TaskInstance>(all.map((t) => [t.taskId, t]));
  const tasks: Record<string, TestTask> = {};
  const entry = (taskId: string, ti: TaskInstance | undefined, xcom: Record<string, unknown>): TestTask => ({
    taskId,
    ...(ti?.mapIndex !== undefined ? { mapIndex: ti.mapIndex } : {}),
    state: ti?.state ?? 'none',
    tries: ti?.tryNumber ?? 0,
    error: ti?.error,
    xcom,
    durationMs: ti?.startedAt !== undefined && ti.endedAt !== undefined ? ti.endedAt - ti.startedAt : undefined,
  });
  for (const t of dag.spec.tasks) {
    if (!t.expand) {
      tasks[t.taskId] = entry(t.taskId, instances.get(t.taskId), xcoms.get(t.taskId) ?? {});
      continue;
    }
    // A mapped task, then its instances in map-index order (their small values live on the instance, not in XCom).
    const mine = all.filter((ti) => isInstanceId(ti.taskId) && baseTaskId(ti.taskId) === t.taskId).sort((a, b) => a.mapIndex! - b.mapIndex!);
    const values: unknown[] = [];
    const rows: TestTask[] = [];
    for (const ti of mine) {
      const value = ti.state === 'success' && ti.mapValue !== undefined ? await instanceValue(rt.ports, ti) : undefined;
      if (value !== undefined) values.push(value);
      rows.push(entry(ti.taskId, ti, { ...(xcoms.get(ti.taskId) ?? {}), ...(value !== undefined ? { return_value: value } : {}) }));
    }
    tasks[t.taskId] = entry(t.taskId, instances.get(t.taskId), { ...(xcoms.get(t.taskId) ?? {}), ...(mine.length > 0 ? { return_value: values } : {}) });
    for (const r of rows) tasks[r.taskId] = r;
  }
  return {
    dagId: final.dagId,
    runId: final.runId,
    state: final.state,
    outcome,
    tasks,
    logs: log.lines,
    virtualMs: clock.now() - started,
    jobs: mocks?.calls ?? [],
    run: final,
    xcom: (taskId, key = 'return_value') => (tasks[taskId] ? tasks[taskId].xcom[key] : xcoms.get(taskId)?.[key]),
    taskLogs: (taskId) => log.lines.filter((l) => l.fields?.taskId === taskId).map((l) => l.msg),
  };
}
