/**
 * Signals sent for one run before it waits (`airless run --signal`, `testDag({ signals })`):
 * the key is a template rendered with the same variables as the waiting task's own event
 * key (the run's dates, DAG params overlaid by conf, conf), so `approve-{{ params.env }}`
 * names the same key on both sides.
 */
import type { DagRun, DagSpec } from '../engine/index.js';
import type { Ports } from '../engine/index.js';
import { InvalidInputError, renderTemplate, runTemplateVars } from '../engine/index.js';
import { sendSignal } from '../engine/index.js';

const TASK_ID = /\{\{\s*task_id\s*\}\}/;

/**
 * Renders `keyTemplate` for `run` and stores the signal. Returns the rendered key.
 *
 * @example
 * await sendRunSignal(rt.ports, run, spec, 'approve-{{ params.env }}-{{ ds }}', { by: 'me' });
 * @throws InvalidInputError when the key names `{{ task_id }}` (a signal is for the run, not one task) or an unknown variable.
 */
export async function sendRunSignal(p: Ports, run: DagRun, spec: DagSpec, keyTemplate: string, payload: unknown): Promise<string> {
  if (TASK_ID.test(keyTemplate)) {
    throw new InvalidInputError(`signal key "${keyTemplate}" uses {{ task_id }}: a signal is sent for the run, not one task; name the task in the key itself`);
  }
  const key = renderTemplate(keyTemplate, runTemplateVars(run, spec, ''));
  await sendSignal(p, key, payload);
  return key;
}
