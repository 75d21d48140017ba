/**
 * maxActiveTasks without reading the run's task list: a task refused a slot by its run's
 * counter waits in the run's waiting line (the `waiting` index, as pools do: `waitKey`
 * `mat:<dagId>/<runId>`, ordered by priority weight, then time), and the task that gives
 * a slot back starts the best waiter (settle.ts `wakeReady`, through pools.ts
 * `wakeWaiters`). Before: every task that left a slot listed the whole run to find one.
 */
import type { RunCtx } from '../rules/dag-index.js';
import { taskSpec } from '../rules/dag-index.js';
import type { DagRun, TaskInstance } from '../model/types.js';
import { taskKeyString } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { activeTasksLine, waitRank } from '../rules/pool-limits.js';
import { annotate, transition } from '../write/transition.js';
import { wakeWaiters } from './pools.js';

/**
 * The waiting line of a run's maxActiveTasks slots.
 *
 * @example
 * matWaitKey({ dagId: 'etl', runId: 'r1' }); // 'mat:etl/r1'
 */
export function matWaitKey(run: Pick<DagRun, 'dagId' | 'runId'>): string {
  return activeTasksLine(run.dagId, run.runId);
}

/**
 * Puts a ready task that its run's counter refused in the run's waiting line (it stays, or
 * goes back to, `scheduled`, holding no message). A slot that freed between the refusal
 * and this write would wake nobody: the run is read once more and, below its limit, the
 * best waiter is started now.
 */
export async function waitForSlot(p: Ports, rc: RunCtx, ti: TaskInstance): Promise<void> {
  const t = taskSpec(rc.spec, ti.taskId);
  const fields = { ready: true, waitKey: matWaitKey(rc.run), waitRank: waitRank(t.priorityWeight ?? 1, p.clock.now(), taskKeyString(ti)) };
  const r = ti.state === 'scheduled' ? await annotate(p, ti, fields) : await transition(p, rc, ti, 'scheduled', fields);
  if (!r.ok) return;
  const run = await p.store.getRun(rc.run.dagId, rc.run.runId);
  if (run && run.state === 'running' && (run.activeTasks ?? 0) < rc.spec.maxActiveTasks) await wakeWaiters(p, fields.waitKey, 1, rc);
}
