/**
 * Signals sent for one run before it waits (`airless run --signal`, `testDag({ signals })`):
 * the key is a template rendered with the run's variables, DAG params and conf, as the
 * waiting task renders its own event key.
 */
import type { DagRun, DagSpec } from '../engine/index.js';
import type { Ports } from '../engine/index.js';
import { renderTemplate, templateVars } from '../engine/index.js';
import { sendSignal } from '../engine/index.js';

/**
 * Renders `keyTemplate` for `run` and stores the signal.
 *
 * @example
 * await sendRunSignal(rt.ports, run, spec, 'approve-{{ ds }}', { by: 'me' });
 */
export async function sendRunSignal(p: Ports, run: DagRun, spec: DagSpec | undefined, keyTemplate: string, payload: unknown): Promise<string> {
  const vars = templateVars({
    dagId: run.dagId, runId: run.runId, taskId: '', logicalDate: run.logicalDate,
    dataIntervalStart: run.dataIntervalStart, dataIntervalEnd: run.dataIntervalEnd,
    params: { ...(spec?.params ?? {}), ...run.conf }, conf: run.conf,
  });
  const key = renderTemplate(keyTemplate, vars);
  await sendSignal(p, key, payload);
  return key;
}
