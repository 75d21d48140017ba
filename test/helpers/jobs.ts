/**
 * Test helpers for operators: an embedded runtime (on this vitest project's store) whose
 * job drivers are mocks by operator type; each mocked job's end event, in AWS's shape, is
 * delivered to the runtime's events path at its virtual end time.
 */
import type { EmbeddedRuntime } from '../../lib/runtime/embedded.js';
import { JOB_SERVICES, MockJobs, type OperatorMock } from '../../lib/operators/index.js';
import type { DagDefinition } from '../../lib/sdk/types.js';
import { makeRuntime } from './runtime.js';

export const MIN = 60_000;

export async function jobRuntime(dags: DagDefinition[], mocks: Record<string, OperatorMock>, opts: Parameters<typeof makeRuntime>[1] = {}) {
  let rt: EmbeddedRuntime | undefined;
  const jobs = new MockJobs(mocks, JOB_SERVICES, { now: () => rt!.clock.now(), deliver: (event, at) => rt!.scheduleEvent(event, at) });
  const made = await makeRuntime(dags, { jobs: jobs.drivers(), ...opts });
  rt = made.rt;
  const run = async (dagId: string) => {
    const r = await made.rt.trigger(dagId);
    const outcome = await made.rt.runToCompletion(dagId, r.runId, { maxVirtualMs: 3 * 86_400_000 });
    const tasks = Object.fromEntries((await made.rt.ports.store.listTasks(dagId, r.runId)).map((t) => [t.taskId, t]));
    const xcom = (taskId: string) => made.rt.ports.store.getXcom({ dagId, runId: r.runId, taskId, key: 'return_value' });
    return { outcome, runId: r.runId, run: (await made.rt.ports.store.getRun(dagId, r.runId))!, tasks, xcom };
  };
  return { ...made, jobs, run };
}
