/**
 * The build's check that a DAG can be deployed as it is written: its schedule must be one
 * EventBridge Scheduler can express (lib/adapters/aws/eventbridge renders it).
 */
import { InvalidDagError } from '../engine/index.js';
import { toEventBridgeExpression } from '../adapters/aws/eventbridge/to-expression.js';
import type { DagDefinition } from '../sdk/types.js';

/** A schedule EventBridge Scheduler cannot express fails the build, not the deployment. */
export function checkDeployable(d: Pick<DagDefinition, 'spec'>, file: string): void {
  const schedule = d.spec.schedule;
  if (!schedule || schedule.kind === 'once') return;
  try {
    toEventBridgeExpression(schedule);
  } catch (e) {
    throw new InvalidDagError(`schedule cannot run on EventBridge Scheduler: ${(e as Error).message}`, { file, dagId: d.spec.dagId, cause: e });
  }
}
