/**
 * The built-in tasks' tries (TaskSpec.builtin): `latestOnly` (rules/latest-only.ts) and
 * `triggerDagRun`, Airflow's TriggerDagRunOperator (providers/standard operators/trigger_dagrun.py).
 *
 * `triggerDagRun` creates a run of another DAG with a conditional create: run id
 * `manual__<the try's time, ISO>` unless given (Airflow's `DagRun.generate_run_id(MANUAL,
 * logical_date=utcnow())`), conf rendered as templates, run type `manual`, the target's param
 * schemas checked. An existing run with that id fails the task, or with `resetDagRun` is
 * cleared and runs again. Its XCom `trigger_run_id` (and its value) is the run id.
 *
 * With `waitForCompletion` the task defers: the triggered run carries the waiting try
 * (`DagRun.waiter`), and its end wakes it (trigger-dag-run-wake.ts); a timer every
 * {@link TRIGGERED_RUN_SAFETY_NET} is the safety net for a lost wake. Resumed, the task reads
 * the run: a state in `allowedStates` succeeds, one in `failedStates` fails, any other waits on.
 */
import type { DeferRequest, FailRequest, TaskContext } from '../model/context.js';
import type { RunCtx } from '../rules/dag-index.js';
import { InvalidInputError, NotFoundError } from '../model/errors.js';
import type { DagRun, TaskInstance, TaskSpec, TriggerDagRunSpec } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { clearTasks, triggerRun } from './runs.js';
import { secretVarsFor } from './secrets.js';
import { renderDeep, renderTemplate } from '../rules/template.js';
import type { Outcome } from './worker-finish.js';
import { builtinBody } from '../rules/latest-only.js';
import type { RunBody } from './operators.js';

/** The resume method of a triggerDagRun task waiting for its run. */
export const TRIGGERED_RUN_RESUME = '__dagrun';
/** How often a waiting triggerDagRun task looks at its run when no wake came. */
export const TRIGGERED_RUN_SAFETY_NET = '5m';
/** The XCom key of the triggered run's id, as Airflow's `XCOM_RUN_ID`. */
export const TRIGGER_RUN_ID_KEY = 'trigger_run_id';

/**
 * The try of a built-in task, whatever its method.
 *
 * @example
 * if (t.builtin) return runBuiltinTry(p, rc, t, ti, runBody); // worker.ts
 */
export async function runBuiltinTry(p: Ports, rc: RunCtx, t: TaskSpec, ti: TaskInstance, runBody: RunBody): Promise<Outcome> {
  const b = t.builtin!;
  if (b.type === 'latest_only') return runBody(p, rc, t, ti, builtinBody(rc.spec, t, rc.run, p.clock.now()));
  const method = ti.nextMethod ?? 'execute';
  if (method === TRIGGERED_RUN_RESUME) return runBody(p, rc, t, ti, () => awaitRun(p, b, String(ti.nextKwargs?.runId)));
  if (method !== 'execute') return { kind: 'failed', error: `triggerDagRun task ${t.taskId} has no method ${method}`, noRetry: true };
  return runBody(p, rc, t, ti, (ctx) => trigger(p, rc, b, ti, ctx));
}

async function trigger(p: Ports, rc: RunCtx, spec: TriggerDagRunSpec, ti: TaskInstance, ctx: TaskContext): Promise<unknown> {
  const vars = await secretVarsFor(p, rc, ti.taskId, [spec.conf, spec.runId]);
  const conf = spec.conf === undefined ? {} : renderDeep(spec.conf, vars);
  const now = p.clock.now();
  const runId = spec.runId !== undefined ? renderTemplate(spec.runId, vars) : `manual__${new Date(now).toISOString()}`;
  const waiter = spec.waitForCompletion ? { waiter: { dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber } } : {};
  const existing = await p.store.getRun(spec.dagId, runId);
  if (existing) {
    if (!spec.resetDagRun) fail(`run ${runId} of dag ${spec.dagId} exists already (resetDagRun clears it instead)`);
    await resetRun(p, spec.dagId, existing, waiter);
  } else {
    try {
      await triggerRun(p, spec.dagId, { runId, logicalDate: now, conf, runType: 'manual', fields: waiter });
    } catch (err) {
      // An unknown DAG, a conf its params refuse, a run created meanwhile: the same again would fail.
      if (err instanceof InvalidInputError || err instanceof NotFoundError) fail(`cannot trigger dag ${spec.dagId}: ${err.message}`);
      throw err;
    }
  }
  p.log.info('triggered a run', { dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, triggeredDagId: spec.dagId, triggeredRunId: runId });
  await ctx.xcom.push(TRIGGER_RUN_ID_KEY, runId);
  if (!spec.waitForCompletion) return runId;
  return awaitRun(p, spec, runId);
}

/** Airflow's reset_dag_run: every task of the existing run runs again (and this try waits for it). */
async function resetRun(p: Ports, dagId: string, run: DagRun, waiter: Partial<Pick<DagRun, 'waiter'>>): Promise<void> {
  if (waiter.waiter) await p.store.updateRun(dagId, run.runId, { state: run.state }, { waiter: waiter.waiter });
  const dag = await p.store.getDag(dagId);
  if (!dag) fail(`cannot trigger dag ${dagId}: unknown dag ${dagId}`);
  await clearTasks(p, dagId, run.runId, dag.spec.tasks.map((t) => t.taskId));
}

/** The outcome once the run is in a deciding state; else a deferral until it may be. */
async function awaitRun(p: Ports, spec: TriggerDagRunSpec, runId: string): Promise<unknown> {
  const run = await p.store.getRun(spec.dagId, runId);
  if (!run) fail(`the triggered run ${runId} of dag ${spec.dagId} is gone`);
  const allowed = spec.allowedStates ?? ['success'];
  const failed = spec.failedStates ?? ['failed'];
  if (failed.includes(run.state)) fail(`the triggered run ${runId} of dag ${spec.dagId} ended ${run.state} (failedStates: ${failed.join(', ')})`);
  if (allowed.includes(run.state)) return runId;
  if (run.state === 'success' || run.state === 'failed') {
    fail(`the triggered run ${runId} of dag ${spec.dagId} ended ${run.state}, in neither allowedStates (${allowed.join(', ')}) nor failedStates`);
  }
  return { __airless: 'defer', trigger: { after: TRIGGERED_RUN_SAFETY_NET }, resume: TRIGGERED_RUN_RESUME, kwargs: { runId } } satisfies DeferRequest;
}

function fail(reason: string): never {
  throw { __airless: 'fail', reason } satisfies FailRequest;
}
