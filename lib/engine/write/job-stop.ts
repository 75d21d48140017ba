/**
 * Stopping the job of a task that stops waiting for it (its deferral timed out, it was
 * marked, cleared, or its run timed out). The engine is pure, so it does not call the
 * service: the one writer of task state (transition.ts) calls {@link leaveEventWait}
 * before any write that takes a task out of an event wait. For a job whose end was not
 * recorded (the wait ends some other way than by its end event or a describe), it sends a
 * `stop` message first; a worker carries it out with the operator's stop call
 * ({@link handleStop}). After the write the wait's row is deleted.
 *
 * Sending before the write makes the stop at-least-once without a second copy: a crash
 * between the two leaves a stopped job whose task still waits, and the job's own end
 * event (stopped) then resumes and fails the try, as a job stopped by hand would. A write
 * that loses its race lost it to another way out of the wait: the job's end (the stop is
 * then a no-op on an ended job) or another writer that stops it too. docs/adr/0017.
 */
import { AirlessError } from '../model/errors.js';
import { taskKeyString, type TaskInstance } from '../model/types.js';
import type { JobRef } from '../model/events.js';
import type { Ports, StopMessage, TaskPatch } from '../model/ports.js';
import type { TaskState } from '../model/states.js';

/** Services cap a stop reason (ECS StopTask: 255 characters). */
const MAX_REASON = 250;

function why(to: TaskState, error: string | null | undefined): string {
  if (to === 'scheduled') return 'the task was cleared';
  if (error) return error;
  return to === 'success' || to === 'skipped' || to === 'failed' ? `the task was marked ${to}` : `the task left its wait (${to})`;
}

/**
 * The stop a write moving `ti` to `to` calls for, if any: a job's task leaving its wait
 * other than by resuming, with no end of the job recorded.
 */
export function stopFor(ti: TaskInstance, to: TaskState, fields: Pick<TaskPatch, 'error'>): StopMessage | undefined {
  if (ti.state !== 'deferred' || !ti.trigger || !('pattern' in ti.trigger)) return undefined;
  const job = ti.trigger.job;
  if (!job || to === 'queued' || ti.triggerEvent !== undefined) return undefined;
  const reason = `Airless ${ti.dagId}/${ti.runId}/${ti.taskId}: ${why(to, fields.error)}`.slice(0, MAX_REASON);
  return { kind: 'stop', dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber, job, reason };
}

/**
 * Called by transition() before a write: sends the job's stop when one is due and returns
 * what to do once the write succeeded (delete the wait's row), or undefined when `ti` is
 * not waiting for an event.
 *
 * @example
 * const left = await leaveEventWait(p, ti, 'failed', { error: 'deferral timed out' });
 * // ... the write ...
 * if (ok) await left?.();
 */
export async function leaveEventWait(p: Ports, ti: TaskInstance, to: TaskState, fields: Pick<TaskPatch, 'error'>): Promise<(() => Promise<void>) | undefined> {
  if (ti.state !== 'deferred' || !ti.trigger || !('pattern' in ti.trigger)) return undefined;
  const stop = stopFor(ti, to, fields);
  if (stop) await p.queue.send([stop]);
  return () => p.store.deleteTrigger(taskKeyString(ti));
}

/** How a job is named in logs and errors. */
export function jobLabel(job: JobRef): string {
  return `${job.type} job ${job.id}`;
}

/**
 * A `stop` message: the operator's stop call for the job. A refusal that cannot change
 * (the job is already gone, the grant is missing) is logged on the try and dropped; any
 * other error is thrown, so the queue delivers the message again.
 *
 * @example
 * await handleStop(ports, { kind: 'stop', dagId, runId, taskId, tryNumber: 1, job, reason: 'timed out' });
 */
export async function handleStop(p: Ports, msg: StopMessage): Promise<'done' | 'dropped'> {
  const fields = { dagId: msg.dagId, runId: msg.runId, taskId: msg.taskId, tryNumber: msg.tryNumber, job: msg.job.id };
  const driver = p.jobs?.[msg.job.type];
  if (!driver?.stop) {
    const why = driver ? `${msg.job.type} jobs cannot be stopped` : `this runtime has no ${msg.job.type} driver`;
    p.log.warn(`cannot stop ${jobLabel(msg.job)}: ${why}`, fields);
    return 'dropped';
  }
  try {
    await driver.stop(msg.job, msg.reason);
  } catch (err) {
    if (err instanceof AirlessError && !err.retryable) {
      p.log.warn(`could not stop ${jobLabel(msg.job)}: ${err.message}`, fields);
      return 'dropped';
    }
    throw err;
  }
  p.metrics.count('JobsStopped');
  p.log.info(`stopped ${jobLabel(msg.job)}: ${msg.reason}`, fields);
  return 'done';
}
