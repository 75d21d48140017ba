/**
 * Outlets: a task's success emits one asset event per outlet, with the extra the task set.
 * As callbacks do (callbacks.ts), the worker arms a delayed check before the success write
 * and emits after it; the check finds the events there and changes nothing, or (the worker
 * died between its write and the events) emits them, or finds the try did not succeed. The
 * events' dedup key is the try (`task:<dag>/<run>/<task>/<try>`), so emitting twice records
 * one event. Tasks without outlets pay nothing.
 */
import type { RunCtx } from '../rules/dag-index.js';
import { loadRunCtx, taskSpec } from '../rules/dag-index.js';
import type { TaskInstance, TaskSpec } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import type { AssetMessage } from '../model/assets.js';
import { baseTaskId } from '../rules/mapping-ids.js';
import { extraProblem, recordAssetEvent } from './assets.js';
import type { OutletExtras } from './asset-context.js';

/** How long after the success write the check looks, and how often it looks again while the try is still running. */
export const OUTLETS_RECHECK_MS = 60_000;
const MAX_CHECKS = 10;

type OutletsMessage = Extract<AssetMessage, { op: 'outlets' }>;

/** Why the extras a try set cannot be stored, or undefined. */
export function outletsProblem(t: TaskSpec, extras: OutletExtras | undefined): string | undefined {
  for (const [uri, extra] of Object.entries(extras ?? {})) {
    if (!t.outlets?.includes(uri)) return `outletEvents: ${uri} is not an outlet of task ${t.taskId}`;
    const p = extraProblem(extra);
    if (p) return `the outlet event of ${uri}: ${p}`;
  }
  return undefined;
}

function message(ti: TaskInstance, extras: OutletExtras | undefined, attempt = 0): OutletsMessage {
  return {
    kind: 'asset', op: 'outlets', dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber,
    ...(extras ? { extras: JSON.parse(JSON.stringify(extras)) as OutletExtras } : {}),
    ...(attempt ? { attempt } : {}),
  };
}

const timerId = (m: OutletsMessage): string => `outlets-${m.dagId}-${m.runId}-${m.taskId}-${m.tryNumber}${m.attempt ? `-${m.attempt}` : ''}`;

/** The task declares outlets (the worker arms and emits them only then). */
export function hasOutlets(t: TaskSpec): boolean {
  return (t.outlets?.length ?? 0) > 0;
}

/** Before the success write: the delayed check that emits the events if the worker dies after it. */
export async function armOutlets(p: Ports, t: TaskSpec, ti: TaskInstance, extras: OutletExtras | undefined): Promise<void> {
  if (!hasOutlets(t)) return;
  const m = message(ti, extras);
  await p.timer.schedule(timerId(m), p.clock.now() + OUTLETS_RECHECK_MS, m);
}

/** After the success write: one asset event per outlet of the task. */
export async function emitOutlets(p: Ports, t: TaskSpec, ti: TaskInstance, extras: OutletExtras | undefined): Promise<void> {
  for (const uri of t.outlets ?? []) {
    await recordAssetEvent(p, {
      uri,
      key: `task:${ti.dagId}/${ti.runId}/${ti.taskId}/${ti.tryNumber}`,
      extra: extras?.[uri] ?? {},
      origin: 'task',
      source: { dagId: ti.dagId, runId: ti.runId, taskId: baseTaskId(ti.taskId), mapIndex: ti.mapIndex ?? -1 },
    });
  }
}

/**
 * The delayed check: emits the events of a try that succeeded (a no-op when the worker did),
 * looks again later while the try has not ended, and drops the check otherwise.
 */
export async function checkOutlets(p: Ports, m: OutletsMessage): Promise<'done' | 'dropped'> {
  const rc: RunCtx | undefined = await loadRunCtx(p, m.dagId, m.runId);
  if (!rc) return 'dropped';
  const ti = await p.store.getTask({ dagId: m.dagId, runId: m.runId, taskId: m.taskId });
  if (!ti || ti.tryNumber !== m.tryNumber) return 'dropped';
  if (ti.state === 'success') {
    await emitOutlets(p, taskSpec(rc.spec, m.taskId), ti, m.extras);
    return 'done';
  }
  if ((ti.state === 'running' || ti.state === 'queued') && (m.attempt ?? 0) < MAX_CHECKS) {
    const next = { ...m, attempt: (m.attempt ?? 0) + 1 };
    await p.timer.schedule(timerId(next), p.clock.now() + OUTLETS_RECHECK_MS, next);
    return 'done';
  }
  return 'dropped';
}
