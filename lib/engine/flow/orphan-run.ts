/**
 * Orphan runs: a run pinned to a bundle version that no longer exists (its manifest or
 * code deleted from the bucket, or its DAG not in it). Retrying cannot help, so reconcile
 * ends such a run `failed` with the reason on the run (`error`), gives its maxActiveRuns
 * slot back and lets the DAG's queued runs start, instead of logging the same error every
 * minute while the run holds its slot for ever. Only a permanent "not found" ends a run:
 * AccessDenied, throttling or a timeout reading the bundle leave it for the next tick.
 *
 * The run's unfinished tasks keep their state (a transition needs the task's spec, which is
 * what is gone); each is annotated with the reason and taken off the due index, and a
 * waiting sensor's or deferral's trigger is deleted, so no tick or poker reviews them again.
 */
import { specFor } from '../rules/dag-index.js';
import { BundleNotFoundError, NotFoundError } from '../model/errors.js';
import type { DagRun, DagSpec } from '../model/types.js';
import { taskKeyString } from '../model/types.js';
import type { Ports } from '../model/ports.js';
import { isTerminal } from '../model/states.js';
import { annotate, retainUntil } from '../write/transition.js';
import { giveBackSlot } from './run-slots.js';

/**
 * Is `err` a permanent "this bundle version, or this DAG in it, does not exist"?
 *
 * @example
 * bundleGone(new BundleNotFoundError('bundle version v1 not found')); // true
 */
export function bundleGone(err: unknown): boolean {
  return err instanceof BundleNotFoundError || err instanceof NotFoundError;
}

/**
 * The run's DAG spec; when its bundle is gone for good, ends the run instead and returns
 * undefined (the caller then starts the DAG's queued runs). Other errors are thrown.
 *
 * @example
 * const spec = await specOrEndOrphan(p, run);
 * if (!spec) return void (await startQueuedRuns(p, run.dagId, { ended: true }));
 */
export async function specOrEndOrphan(p: Ports, run: DagRun): Promise<DagSpec | undefined> {
  try {
    return await specFor(p, run);
  } catch (err) {
    if (!bundleGone(err)) throw err;
    await endOrphanRun(p, run, err);
    return undefined;
  }
}

/**
 * Fails a running run whose bundle is gone, with a one-line reason, and gives its slot back. Returns true when this call ended it (a concurrent tick loses the
 * compare-and-set and does nothing).
 *
 * @example
 * await endOrphanRun(p, run, new BundleNotFoundError('bundle version v1 not found'));
 */
export async function endOrphanRun(p: Ports, run: DagRun, err: unknown): Promise<boolean> {
  if (run.state !== 'running') return false;
  const now = p.clock.now();
  const error = orphanReason(run, err);
  const r = await p.store.updateRun(
    run.dagId,
    run.runId,
    { state: 'running' },
    { state: 'failed', endedAt: now, expiresAt: retainUntil(p) ?? null, error },
  );
  if (!r.ok) return false;
  // Its maxActiveRuns slot goes back after its end (flow/run-slots.ts).
  await giveBackSlot(p, run);
  p.metrics.count('RunsFailed');
  p.log.warn('run failed: its bundle is gone', { dagId: run.dagId, runId: run.runId, bundleVersion: run.bundleVersion, error });
  const tis = await p.store.listTasks(run.dagId, run.runId);
  await Promise.all(tis.filter((ti) => !isTerminal(ti.state)).map(async (ti) => {
    const done = await annotate(p, ti, { dueAt: null, error });
    if (done.ok && (ti.state === 'sensing' || ti.state === 'deferred')) await p.store.deleteTrigger(taskKeyString(ti));
  }));
  return true;
}

/** `run failed: bundle v1 not found: s3://b/bundles/v1/manifest.json does not exist` on one line. */
function orphanReason(run: DagRun, err: unknown): string {
  const message = String((err as Error)?.message ?? err).replace(/\s+/g, ' ').trim();
  return `run failed: its bundle version ${run.bundleVersion} is gone (${message})`;
}
