/**
 * The safety net of a job whose end event never came (EventBridge delivers at least once
 * but a rule can be misconfigured, a target throttled, a DLQ full): each job's wait row
 * sits in a safety-net partition of the sensor index with `nextPokeAt` = the last news of
 * it plus its interval (default 15 minutes). The batched poker of a shard lists only the
 * rows due in its partitions, describes each job once (one call per job however many
 * tasks wait on it) and resumes its task when the job has ended, or moves the row one
 * interval on. A job the service no longer knows resumes its task with `gone`, which fails
 * the try naming the job. Nothing is read or written for a job between its checks.
 */
import { loadRunCtx } from '../rules/dag-index.js';
import type { TriggerRecord } from '../model/types.js';
import type { JobStatus } from '../model/events.js';
import type { Ports } from '../model/ports.js';
import { JOB_PARTITIONS, JOB_SHARD_BASE, resumeWait, type JobEnd } from './event-wait.js';
import { jobLabel } from '../write/job-stop.js';

export interface JobCheckReport {
  /** Jobs described this cycle. */
  described: number;
  /** Tasks resumed because their job had ended (or vanished). */
  resumed: number;
  /**
   * Job rows waiting in this poker's partitions, due or not (at least 1 when any waits:
   * rows not yet due are only looked for, one item per partition). The poker stays on
   * while this is above 0 (flow/poker-schedule.ts), so a job whose end event is lost is
   * still described when its 15 minutes are up.
   */
  waiting: number;
}

/** The safety-net partitions poker `shard` of `shards` looks at. */
function partitionsOf(shard: number, shards: number): number[] {
  return Array.from({ length: JOB_PARTITIONS }, (_, j) => j).filter((j) => j % shards === shard);
}

/**
 * One safety-net pass of a poker shard: the jobs due, described.
 *
 * @example
 * const report = await checkJobs(ports, 0, 8);
 */
export async function checkJobs(p: Ports, shard: number, shards: number): Promise<JobCheckReport> {
  const report: JobCheckReport = { described: 0, resumed: 0, waiting: 0 };
  const now = p.clock.now();
  const partitions = partitionsOf(shard, shards);
  const rows = (await Promise.all(partitions.map((j) => p.store.listSensorTriggers(JOB_SHARD_BASE + j, now)))).flat();
  report.waiting = rows.length;
  // Rows not due yet keep the poker on too; a one-item query per partition says whether any exist.
  if (rows.length === 0 && p.pokerSchedules) {
    const found = await Promise.all(partitions.map((j) => p.store.hasSensorTriggers(JOB_SHARD_BASE + j)));
    report.waiting = found.filter(Boolean).length;
  }
  const byJob = new Map<string, TriggerRecord[]>();
  for (const row of rows) if (row.hashcode) byJob.set(row.hashcode, [...(byJob.get(row.hashcode) ?? []), row]);
  const groups = [...byJob.values()];
  let next = 0;
  const lane = async () => {
    while (next < groups.length) await checkJob(p, groups[next++], now, report);
  };
  await Promise.all(Array.from({ length: Math.min(p.config.pokeConcurrency, groups.length) }, lane));
  if (report.described) p.metrics.count('JobsDescribed', report.described);
  if (report.resumed) p.metrics.count('JobsResumedBySafetyNet', report.resumed);
  return report;
}

async function checkJob(p: Ports, rows: TriggerRecord[], now: number, report: JobCheckReport): Promise<void> {
  const job = rows[0].job!;
  const describe = p.jobs?.[job.type]?.describe;
  let status: JobStatus | undefined;
  if (describe) {
    try {
      status = await describe.call(p.jobs![job.type], job);
      report.described++;
    } catch (err) {
      p.log.warn(`could not describe ${jobLabel(job)}; trying again next interval`, { job: job.id, error: (err as Error)?.message ?? String(err) });
    }
  }
  await Promise.all(rows.map(async (row) => {
    if (!status || status.state === 'running') {
      await p.store.updateTrigger(row.id, { nextPokeAt: now + (row.pokeIntervalMs ?? p.config.jobSafetyNetMs ?? 15 * 60_000) });
      return;
    }
    const ti = await p.store.getTask(row);
    if (!ti) return p.store.deleteTrigger(row.id); // its run is gone: nothing can wait under this id again
    if (ti.state !== 'deferred' || ti.tryNumber !== row.tryNumber) {
      // The task moved on without its row (a crash between its write and the row's delete).
      // Deleting could race a later try storing its row under the same id: move it on instead.
      await p.store.updateTrigger(row.id, { nextPokeAt: now + (row.pokeIntervalMs ?? p.config.jobSafetyNetMs ?? 15 * 60_000) });
      return;
    }
    const rc = await loadRunCtx(p, ti.dagId, ti.runId);
    if (!rc) return;
    p.log.warn(`no end event came for ${jobLabel(job)}: the safety net found it ${status.state}`, { dagId: ti.dagId, runId: ti.runId, taskId: ti.taskId, tryNumber: ti.tryNumber, job: job.id });
    if (await resumeWait(p, rc, ti, { jobStatus: status } satisfies JobEnd, row.eventKey)) report.resumed++;
  }));
}

/**
 * When the safety net next has a job to describe (for runtimes on a virtual clock, which
 * move time to the next thing due; the AWS poker never asks).
 *
 * @example
 * const at = await nextJobCheckAt(ports); // undefined when no job waits
 */
export async function nextJobCheckAt(p: Ports): Promise<number | undefined> {
  let at: number | undefined;
  for (let j = 0; j < JOB_PARTITIONS; j++) {
    const [first] = await p.store.listSensorTriggers(JOB_SHARD_BASE + j, Number.MAX_SAFE_INTEGER);
    if (first?.nextPokeAt !== undefined) at = Math.min(at ?? first.nextPokeAt, first.nextPokeAt);
  }
  return at;
}
