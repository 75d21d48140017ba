/**
 * Build-time checks of the authoring surface of issue 23 §2 (docs/adr/0025): params with
 * schemas and display fields. Called by validateDagSpec, so a manifest read back passes
 * the same checks as a DAG built by the SDK.
 */
import type { DagSpec, TaskSpec, TriggerDagRunSpec } from '../model/types.js';
import { paramSpecProblem } from './params.js';
import { badDateTemplate } from './date-math.js';

/**
 * Throws (through `fail`) on the first problem of a DAG's authoring fields.
 *
 * @example
 * checkAuthoring(spec, fail); // in validateDagSpec
 */
export function checkAuthoring(spec: DagSpec, fail: (msg: string, taskId?: string) => never): void {
  const params = paramSpecProblem(spec);
  if (params) fail(params);
  const labels = edgeLabelProblem(spec);
  if (labels) fail(labels);
  for (const key of ['displayName', 'doc'] as const) {
    if (spec[key] !== undefined && (typeof spec[key] !== 'string' || spec[key] === '')) fail(`${key} must be a non-empty string`);
  }
  for (const t of spec.tasks) {
    for (const key of ['displayName', 'doc'] as const) {
      if (t[key] !== undefined && (typeof t[key] !== 'string' || t[key] === '')) fail(`${key} must be a non-empty string`, t.taskId);
    }
    if (t.builtin !== undefined) checkBuiltin(t, (msg) => fail(msg, t.taskId));
    // Date arithmetic whose shape is wrong fails every run: refused here when it is static.
    const dates = badDateTemplate([t.builtin, t.operator, t.sensor?.pokeContext]);
    if (dates) fail(dates, t.taskId);
  }
}

function checkBuiltin(t: TaskSpec, fail: (msg: string) => never): void {
  const type = (t.builtin as { type?: unknown }).type;
  if (type === 'trigger_dag_run') return checkTriggerDagRun(t, fail);
  if (type !== 'latest_only') fail(`unknown built-in task ${JSON.stringify(type)}`);
  if (t.kind !== 'branch') fail('a latestOnly task is a branch');
  if (t.expand) fail('a latestOnly task cannot be mapped');
}

const RUN_STATES = ['queued', 'running', 'success', 'failed'];

function checkTriggerDagRun(t: TaskSpec, fail: (msg: string) => never): void {
  const b = t.builtin as TriggerDagRunSpec;
  if (t.kind !== 'task') fail('a triggerDagRun task is a task');
  if (t.expand) fail('a triggerDagRun task cannot be mapped');
  // validate.ts's dag id rule (not imported: validate.ts imports this file).
  if (typeof b.dagId !== 'string' || !/^[A-Za-z0-9_.-]{1,250}$/.test(b.dagId)) fail(`triggerDagRun: invalid dag id ${JSON.stringify(b.dagId)}`);
  if (b.conf !== undefined && (b.conf === null || typeof b.conf !== 'object' || Array.isArray(b.conf))) fail('triggerDagRun: conf must be an object');
  if (b.runId !== undefined && (typeof b.runId !== 'string' || b.runId === '')) fail('triggerDagRun: runId must be a non-empty string');
  for (const k of ['resetDagRun', 'waitForCompletion'] as const) {
    if (b[k] !== undefined && typeof b[k] !== 'boolean') fail(`triggerDagRun: ${k} must be true or false`);
  }
  for (const k of ['allowedStates', 'failedStates'] as const) {
    const v = b[k];
    if (v !== undefined && (!Array.isArray(v) || v.length === 0 || v.some((s) => !RUN_STATES.includes(s)))) {
      fail(`triggerDagRun: ${k} must be a non-empty list of run states (${RUN_STATES.join(', ')}), got ${JSON.stringify(v)}`);
    }
  }
  const both = (b.allowedStates ?? ['success']).filter((s) => (b.failedStates ?? ['failed']).includes(s));
  if (both.length) fail(`triggerDagRun: state ${both[0]} is in both allowedStates and failedStates`);
}

/**
 * A triggerDagRun task whose target is not a DAG of the bundle: the bundle's DAGs are every
 * DAG the deployment has (registration removes the others), so the target would never exist.
 *
 * @example
 * const bad = unknownTriggerTarget(manifest.dags); // { dag, taskId, message } or undefined
 */
export function unknownTriggerTarget(dags: readonly DagSpec[]): { dag: DagSpec; taskId: string; message: string } | undefined {
  const ids = new Set(dags.map((d) => d.dagId));
  for (const dag of dags) {
    for (const t of dag.tasks) {
      const b = t.builtin;
      if (b?.type !== 'trigger_dag_run' || ids.has(b.dagId)) continue;
      return { dag, taskId: t.taskId, message: `triggerDagRun: dag "${b.dagId}" is not in the bundle (its dags: ${[...ids].sort().join(', ')})` };
    }
  }
  return undefined;
}

/**
 * The first problem of a spec's edge labels: not an edge of the DAG, or not a label
 * (the SDK's `a.before(b, { label })`, lib/sdk/edges.ts).
 *
 * @example
 * edgeLabelProblem(spec); // undefined, or 'edge label a -> c: there is no such edge'
 */
export function edgeLabelProblem(spec: Pick<DagSpec, 'edgeLabels' | 'tasks'>): string | undefined {
  if (spec.edgeLabels === undefined) return undefined;
  const down = new Map(spec.tasks.map((t) => [t.taskId, new Set(t.downstream)]));
  for (const [a, to] of Object.entries(spec.edgeLabels)) {
    for (const [b, label] of Object.entries(to ?? {})) {
      if (!down.get(a)?.has(b)) return `edge label ${a} -> ${b}: there is no such edge`;
      if (typeof label !== 'string' || label === '' || label.length > 200) return `edge label ${a} -> ${b}: a label is a string of 1 to 200 characters`;
    }
  }
  return undefined;
}
