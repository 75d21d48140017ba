/**
 * Lookups over a DagSpec, cached per spec object, and the run context the engine
 * carries through one operation.
 */
import { NotFoundError } from '../model/errors.js';
import type { DagRun, DagSpec, Manifest, TaskSpec } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { templateVars } from './template.js';
import { instanceSpec } from './mapping-validate.js';

const index = new WeakMap<DagSpec, Map<string, TaskSpec>>();

export function taskSpec(spec: DagSpec, taskId: string): TaskSpec {
  let m = index.get(spec);
  if (!m) {
    m = new Map(spec.tasks.map((t) => [t.taskId, t]));
    index.set(spec, m);
  }
  // A mapped instance (`size#42`) runs under its task's spec (mapping-ids.ts).
  const t = m.get(taskId) ?? instanceSpec(m, taskId);
  if (!t) throw new NotFoundError(`unknown task ${taskId} in dag ${spec.dagId}`);
  return t;
}

export function hasTask(spec: DagSpec, taskId: string): boolean {
  try {
    taskSpec(spec, taskId);
    return true;
  } catch {
    return false;
  }
}

const concurrentWithUpstream = new WeakMap<DagSpec, boolean>();

/**
 * True when a task may run while one of its upstreams still runs: `always` runs when the
 * run starts, and the `one_*` rules of a task with several upstreams fire on the first. The
 * DAG's width (maxParallelism) assumes a task waits for its ancestors, so it is no
 * bound for such a DAG.
 */
function runsBesideUpstream(spec: DagSpec): boolean {
  let v = concurrentWithUpstream.get(spec);
  if (v === undefined) {
    v = spec.tasks.some((t) =>
      (t.triggerRule === 'always' && t.upstream.length > 0) ||
      ((t.triggerRule === 'one_success' || t.triggerRule === 'one_failed' || t.triggerRule === 'one_done') && t.upstream.length > 1));
    concurrentWithUpstream.set(spec, v);
  }
  return v;
}

/** The maxActiveTasks counter is kept only when the limit can bind. */
export function countsSlots(spec: DagSpec): boolean {
  const bound = runsBesideUpstream(spec) ? spec.tasks.length : spec.maxParallelism || Number.POSITIVE_INFINITY;
  return spec.maxActiveTasks < bound;
}

/** A run and the DAG spec it pinned. */
export interface RunCtx {
  run: DagRun;
  spec: DagSpec;
}

const byDagId = new WeakMap<Manifest, Map<string, DagSpec>>();

/** Loads the spec a run pinned (its bundle version's manifest), by id (a bundle of 500 DAGs is not searched per message). */
export async function specFor(p: Ports, run: DagRun): Promise<DagSpec> {
  const manifest = await p.bundles.manifest(run.bundleVersion);
  let index = byDagId.get(manifest);
  if (!index) byDagId.set(manifest, (index = new Map(manifest.dags.map((d) => [d.dagId, d]))));
  const spec = index.get(run.dagId);
  if (!spec) throw new NotFoundError(`dag ${run.dagId} is not in bundle ${run.bundleVersion}`);
  return spec;
}

/**
 * The run and its spec. `eventually`: the worker's read of a run, eventually consistent (half
 * the read cost), and consistent again unless it shows the run running (one just created or
 * just started may not show yet).
 */
export async function loadRunCtx(p: Ports, dagId: string, runId: string, opts: { eventually?: boolean } = {}): Promise<RunCtx | undefined> {
  const seen = opts.eventually ? await p.store.getRun(dagId, runId, { eventually: true }) : undefined;
  const run = seen?.state === 'running' ? seen : await p.store.getRun(dagId, runId);
  if (!run) return undefined;
  return { run, spec: await specFor(p, run) };
}

/** The template variables of a task of a run (`{{ ds }}`, `{{ params.x }}`, ...). */
export function varsFor(rc: RunCtx, taskId: string) {
  return runTemplateVars(rc.run, rc.spec, taskId);
}

/**
 * The template variables of a task of a run, from the run and its DAG: the one builder
 * behind task templates, poke contexts, event keys and `--signal` keys.
 *
 * @example
 * renderTemplate('approve-{{ params.env }}', runTemplateVars(run, spec, 'gate'));
 */
export function runTemplateVars(run: DagRun, spec: Pick<DagSpec, 'params'>, taskId: string) {
  const rc = { run, spec };
  return templateVars({
    dagId: rc.run.dagId,
    runId: rc.run.runId,
    taskId,
    logicalDate: rc.run.logicalDate,
    dataIntervalStart: rc.run.dataIntervalStart,
    dataIntervalEnd: rc.run.dataIntervalEnd,
    params: { ...rc.spec.params, ...rc.run.conf },
    conf: rc.run.conf,
    runType: rc.run.runType,
  });
}

/** Downstream closure of some tasks, the tasks included. */
export function downstreamClosure(spec: DagSpec, taskIds: Iterable<string>): Set<string> {
  return closure(spec, taskIds, 'downstream');
}

/** Upstream closure of some tasks, the tasks included (clear with `include_upstream`). */
export function upstreamClosure(spec: DagSpec, taskIds: Iterable<string>): Set<string> {
  return closure(spec, taskIds, 'upstream');
}

/** The tasks reached from `taskIds` (included) by following `way`; an unknown id is a NotFoundError. */
function closure(spec: DagSpec, taskIds: Iterable<string>, way: 'upstream' | 'downstream'): Set<string> {
  const byId = new Map(spec.tasks.map((t) => [t.taskId, t]));
  const out = new Set<string>();
  const stack = [...taskIds];
  while (stack.length) {
    const id = stack.pop()!;
    if (out.has(id)) continue;
    const t = byId.get(id);
    if (!t) throw new NotFoundError(`unknown task ${id} in dag ${spec.dagId}`);
    out.add(id);
    stack.push(...t[way]);
  }
  return out;
}
