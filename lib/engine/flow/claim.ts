/**
 * The claim of a task that has no item yet (docs/adr/0020): a root of a run that just
 * started, or the only downstream of a task that just ended, travels as a message that
 * carries its upstream outcomes (`up`), and the worker that takes the message creates the
 * task already `running`, claimed by itself, in one conditional put. So a plain task costs
 * two writes: this put and its end.
 *
 * The put fails when the item exists. Then the message is a duplicate (a copy, or one sent
 * again by reconcile) of a task already claimed or done, or the task was created by
 * another path first (a repair, a clear, an early decision). Its upstream outcomes are
 * recorded (idempotent), a `scheduled` task is decided as usual, and a listed run whose
 * task had already ended is looked at (the upstream that sent this ended after it).
 */
import { taskSpec, type RunCtx } from '../rules/dag-index.js';
import type { TaskInstance } from '../model/types.js';
import type { Cas, Ports, TaskMessage } from '../model/ports.js';
import { completeRunIfDone, decideTask, keyOf } from './settle.js';
import { isTerminal } from '../model/states.js';
import { createTask, newToken } from '../write/transition.js';
import { completionMode } from './run-ends.js';

/**
 * @example
 * const claim = msg.up ? await claimNew(p, rc, msg) : await transition(p, rc, queuedTi, 'running');
 */
export async function claimNew(p: Ports, rc: RunCtx, msg: TaskMessage & { up: Record<string, TaskInstance['upstream'][string]> }): Promise<Cas<TaskInstance>> {
  const t = taskSpec(rc.spec, msg.taskId);
  const r = await createTask(p, rc, t, 'running', msg.up, { owner: newToken(p), queuedAt: msg.at });
  if (r.ok || !r.current) return r;
  let item = r.current;
  for (const [u, outcome] of Object.entries(msg.up)) {
    if (item.upstream[u] === undefined) item = await p.store.recordUpstream(keyOf(rc, t.taskId), u, outcome);
  }
  if (item.state === 'scheduled') await decideTask(p, rc, item);
  else if (isTerminal(item.state) && completionMode(rc.spec) === 'listed') await completeRunIfDone(p, rc);
  else p.metrics.count('LostRaces');
  return { ok: false, current: item, reason: 'condition' };
}
