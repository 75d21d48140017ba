/**
 * `airless tasks test`: runs one task in process, ignoring dependencies and storing
 * nothing, like `airflow tasks test`; `--map-index N` runs one instance of a mapped task
 * with its element.
 */
import { VirtualClock } from '../adapters/clock.js';
import { InvalidInputError, NotFoundError } from '../engine/index.js';
import type { DagSpec, LoadedBundle, Ports, TaskInstance, TaskSpec } from '../engine/index.js';
import { elementAt, instanceId, mapLength, namedSources, pokeOnce, runBody, taskSpec } from '../engine/index.js';
import { EmbeddedRuntime } from '../runtime/embedded.js';
import { builtinSensors } from '../sensors/index.js';
import { build, terminalLog } from './local.js';
import { XCOM_TEXT_MAX } from './output.js';
import { displayText } from '../adapters/xcom-display.js';

export interface TasksTestOptions {
  conf?: Record<string, unknown>;
  logicalDate?: number;
  typecheck?: boolean;
  /** The instance of a mapped task to run (Airflow's `--map-index`). */
  mapIndex?: number;
}

type Rc = { run: Awaited<ReturnType<EmbeddedRuntime['trigger']>>; spec: DagSpec };

/**
 * @example
 * process.exitCode = await cmdTasksTest('dags', 'mapped_etl', 'size', { mapIndex: 2 });
 */
export async function cmdTasksTest(dir: string, dagId: string, taskId: string, f: TasksTestOptions): Promise<number> {
  const { version, manifest, bundles } = await build(dir, f.typecheck ?? true);
  const spec = manifest.dags.find((d) => d.dagId === dagId);
  if (!spec) throw new NotFoundError(`unknown dag ${dagId} (dags: ${manifest.dags.map((d) => d.dagId).join(', ')})`);
  const t = taskSpec(spec, taskId);
  if (f.mapIndex !== undefined && !t.expand) throw new InvalidInputError(`--map-index: task ${taskId} of dag ${dagId} is not mapped`);
  if (f.mapIndex === undefined && t.expand) throw new InvalidInputError(`task ${taskId} of dag ${dagId} is mapped: pass --map-index N to run its instance N`);
  const clock = new VirtualClock(Date.now());
  const rt = new EmbeddedRuntime({ bundles, clock, schedules: false, sensors: builtinSensors(), log: terminalLog(false) });
  await rt.register(version);
  await rt.ports.store.updateDag(dagId, { paused: true });
  const run = await rt.trigger(dagId, { conf: f.conf, logicalDate: f.logicalDate });
  const rc: Rc = { run, spec };
  const bundle = await bundles.load(version);
  const name = f.mapIndex === undefined ? `${dagId}.${taskId}` : `${dagId}.${taskId}[${f.mapIndex}]`;
  const mapped = f.mapIndex === undefined ? undefined : { index: f.mapIndex, element: await elementOf(rt.ports, rc, t, f.mapIndex, bundle) };
  const ti: TaskInstance = {
    dagId, runId: run.runId, taskId: mapped ? instanceId(taskId, mapped.index) : taskId, state: 'running', tryNumber: 1, upstream: {},
    owner: 'tasks-test', startedAt: clock.now(), ...(mapped ? { mapIndex: mapped.index } : {}),
  };
  const outcome = t.kind === 'sensor'
    ? await pokeOnce(rt.ports, rc, t, ti, bundle)
    : await runBody(rt.ports, rc, t, ti, (ctx) => execute(bundle, dagId, taskId)(ctx, mapped?.element));
  switch (outcome.kind) {
    case 'success':
      process.stdout.write(`${name} succeeded${outcome.value !== undefined ? `, returned ${displayText(outcome.value, XCOM_TEXT_MAX).text}` : ''}\n`);
      return 0;
    case 'skipped':
      process.stdout.write(`${name} skipped${outcome.reason ? `: ${outcome.reason}` : ''}\n`);
      return 0;
    case 'deferred':
      process.stdout.write(`${name} deferred: would resume ${outcome.request.resume ?? 'execute'} on ${JSON.stringify(outcome.request.trigger)}\n`);
      return 0;
    case 'failed':
      process.stdout.write(`${name} failed: ${outcome.error}\n`);
      return 1;
  }
}

function execute(bundle: LoadedBundle, dagId: string, taskId: string) {
  const fn = bundle.taskMethod(dagId, taskId, 'execute');
  if (!fn) throw new NotFoundError(`task ${taskId} has no execute method`);
  return fn;
}

/**
 * The element of instance `index`: from the literal lists, and for a list that is another
 * task's XCom, from running that task here first (tasks test stores nothing, so there is
 * no earlier run to read it from); a source that is itself mapped is refused.
 */
async function elementOf(p: Ports, rc: Rc, t: TaskSpec, index: number, bundle: LoadedBundle): Promise<unknown> {
  const arrays: unknown[][] = [];
  for (const [field, source] of namedSources(t.expand!)) {
    if ('values' in source) {
      arrays.push(source.values);
      continue;
    }
    if ('zip' in source || source.key !== undefined || source.path !== undefined) {
      throw new InvalidInputError(`task ${t.taskId} maps over ${'zip' in source ? 'zipped sources' : `a part of task ${source.task}'s output`}: tasks test --map-index reads a literal list or a task's whole return value; run the DAG with \`airless run\``);
    }
    const up = taskSpec(rc.spec, source.task);
    const what = `task ${t.taskId} maps over the XCom of task ${source.task}${field ? ` (for "${field}")` : ''}`;
    if (up.expand) throw new InvalidInputError(`${what}, which is mapped itself: tasks test cannot run all its instances; run the DAG with \`airless run\``);
    const ti: TaskInstance = { dagId: rc.run.dagId, runId: rc.run.runId, taskId: source.task, state: 'running', tryNumber: 1, upstream: {}, owner: 'tasks-test' };
    const out = await runBody(p, rc, up, ti, (ctx) => execute(bundle, rc.run.dagId, source.task)(ctx, undefined));
    if (out.kind !== 'success') throw new InvalidInputError(`${what}; tasks test ran ${source.task} for it, and it ${out.kind === 'failed' ? `failed: ${out.error}` : `ended ${out.kind}`}`);
    if (!Array.isArray(out.value)) throw new InvalidInputError(`${what}: it must return an array, got ${out.value === null ? 'null' : typeof out.value}`);
    process.stdout.write(`ran ${source.task} in process for the list to map over: ${out.value.length} element(s)\n`);
    arrays.push(out.value);
  }
  const n = mapLength(t.expand!, arrays);
  if (index >= n) throw new InvalidInputError(`--map-index ${index} is out of range: task ${t.taskId} maps over ${n} element(s)${n > 0 ? ` (0..${n - 1})` : ''}`);
  return elementAt(t.expand!, arrays, index);
}
