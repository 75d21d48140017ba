/**
 * Build-time checks of the authoring surface of issue 23 §2 (docs/adr/0025): params with
 * schemas and display fields. Called by validateDagSpec, so a manifest read back passes
 * the same checks as a DAG built by the SDK.
 */
import type { DagSpec, TaskSpec } from '../model.js';
import { paramSpecProblem } from './params.js';

/**
 * Throws (through `fail`) on the first problem of a DAG's authoring fields.
 *
 * @example
 * checkAuthoring(spec, fail); // in validateDagSpec
 */
export function checkAuthoring(spec: DagSpec, fail: (msg: string, taskId?: string) => never): void {
  const params = paramSpecProblem(spec);
  if (params) fail(params);
  for (const key of ['displayName', 'doc'] as const) {
    if (spec[key] !== undefined && (typeof spec[key] !== 'string' || spec[key] === '')) fail(`${key} must be a non-empty string`);
  }
  for (const t of spec.tasks) {
    for (const key of ['displayName', 'doc'] as const) {
      if (t[key] !== undefined && (typeof t[key] !== 'string' || t[key] === '')) fail(`${key} must be a non-empty string`, t.taskId);
    }
    if (t.builtin !== undefined) checkBuiltin(t, (msg) => fail(msg, t.taskId));
  }
}

function checkBuiltin(t: TaskSpec, fail: (msg: string) => never): void {
  const type = (t.builtin as { type?: unknown }).type;
  if (type !== 'latest_only') fail(`unknown built-in task ${JSON.stringify(type)}`);
  if (t.kind !== 'branch') fail('a latestOnly task is a branch');
  if (t.expand) fail('a latestOnly task cannot be mapped');
}
