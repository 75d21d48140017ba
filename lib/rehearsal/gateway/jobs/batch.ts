/**
 * AWS Batch jobs (REST-JSON, `POST /v1/submitjob`, `/v1/describejobs`, `/v1/terminatejob`). A job
 * goes SUBMITTED → PENDING → RUNNABLE → STARTING → RUNNING → SUCCEEDED | FAILED; every change but
 * the first is published as "Batch Job State Change" with the JobDetail as detail (epoch
 * milliseconds), as https://docs.aws.amazon.com/batch/latest/userguide/batch_job_events.html shows.
 * IAM: `batch:SubmitJob` on both the job definition and the job queue, `batch:TagResource` when
 * tags are given, `batch:DescribeJobs` on `*`, `batch:TerminateJob` on the job
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsbatch.html).
 */
import type { Check } from '../checks.js';
import { answering, compact, jsonBody, JobApiError, ok, required, type JobModule } from './api.js';
import { jobDefinition } from './resources.js';
import { DEFAULT_DURATION_MS, outcomeOf, type JobRunner, type SimJob } from './sim.js';
import { STOP_EXIT_CODE } from './ecs.js';
import { randomUUID } from 'node:crypto';

interface JobDetail {
  jobArn: string; jobName: string; jobId: string; jobQueue: string; status: string; statusReason?: string;
  attempts: { container: { exitCode?: number; logStreamName?: string; reason?: string }; startedAt?: number; stoppedAt?: number; statusReason?: string }[];
  createdAt: number; startedAt?: number; stoppedAt?: number; dependsOn: unknown[]; jobDefinition: string; parameters: Record<string, string>;
  container: { image?: string; command?: string[]; environment: unknown[]; exitCode?: number; reason?: string; logStreamName?: string };
  tags?: Record<string, string>; platformCapabilities: string[]; isCancelled: boolean; isTerminated: boolean; retryStrategy?: unknown; timeout?: unknown;
}

export const batch: JobModule = (r, runner, scope) => {
  const body = jsonBody(r);
  const base = `arn:aws:batch:${scope.region}:${scope.accountId}`;
  const res = runner.resources;
  const op = r.path.replace(/\/+$/, '').split('/').pop();
  switch (op) {
    case 'submitjob': {
      const queueRef = required(body, 'jobQueue', 'ClientException');
      const defRef = required(body, 'jobDefinition', 'ClientException');
      const queueName = queueRef.replace(/^.*job-queue\//, '');
      const def = jobDefinition(res, defRef);
      const checks: Check[] = [
        { action: 'batch:SubmitJob', resource: def?.arn ?? `${base}:job-definition/${defRef.replace(/^.*job-definition\//, '')}` },
        { action: 'batch:SubmitJob', resource: res.jobQueues.get(queueName) ?? `${base}:job-queue/${queueName}` },
      ];
      if (body.tags && Object.keys(body.tags).length) checks.push({ action: 'batch:TagResource', resource: `${base}:job/*` });
      return {
        checks,
        serve: answering('batch', async () => {
          const name = required(body, 'jobName', 'ClientException');
          if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(name)) throw new JobApiError('ClientException', `Job name ${name} is not valid: up to 128 letters, numbers, hyphens and underscores, starting with a letter or number.`);
          const queueArn = res.jobQueues.get(queueName);
          if (!queueArn) throw new JobApiError('ClientException', `JobQueue ${queueRef} not found.`);
          if (!def) throw new JobApiError('ClientException', `JobDefinition ${defRef} not found.`);
          const job = submit(runner, r.caller, `${base}:job`, queueArn, def.arn, def.name, name, def.image, def.command, body);
          if (job.behaviour.answerAfterEvents) await runner.settled(job);
          return ok('batch', { jobArn: job.arn, jobName: name, jobId: job.id });
        }),
      };
    }
    case 'describejobs': {
      const ids = (Array.isArray(body.jobs) ? body.jobs : []) as string[];
      return {
        checks: [{ action: 'batch:DescribeJobs', resource: '*' }],
        serve: answering('batch', () => {
          if (ids.length === 0 || ids.length > 100) throw new JobApiError('ClientException', 'jobs must hold between 1 and 100 job ids.');
          const jobs = ids.map((id) => runner.find('batch', id)).filter((j): j is SimJob => !!j);
          return ok('batch', { jobs: jobs.map((j) => compact({ ...(j.record as unknown as JobDetail) })) });
        }),
      };
    }
    case 'terminatejob': {
      const id = required(body, 'jobId', 'ClientException');
      return {
        checks: [{ action: 'batch:TerminateJob', resource: id.startsWith('arn:') ? id : `${base}:job/${id}` }],
        serve: answering('batch', () => {
          const reason = required(body, 'reason', 'ClientException');
          const job = runner.find('batch', id);
          if (!job) throw new JobApiError('ClientException', `Job ${id} not found.`);
          terminate(runner, job, reason);
          return ok('batch', {});
        }),
      };
    }
    default:
      throw new JobApiError('ClientException', `the rehearsal's Batch serves SubmitJob, DescribeJobs and TerminateJob, not ${r.method} ${r.path}`);
  }
};

function submit(runner: JobRunner, caller: { name: string; arn: string }, jobBase: string, queueArn: string, defArn: string, defName: string, name: string, image: string | undefined, command: string[] | undefined, body: Record<string, any>): SimJob {
  const now = runner.deps.clock();
  const id = randomUUID();
  const overrides = body.containerOverrides ?? {};
  const detail: JobDetail = compact({
    jobArn: `${jobBase}/${id}`, jobName: name, jobId: id, jobQueue: queueArn, status: 'SUBMITTED', attempts: [], createdAt: now, dependsOn: body.dependsOn ?? [],
    jobDefinition: defArn, parameters: body.parameters ?? {}, container: compact({ image, command: overrides.command ?? command, environment: overrides.environment ?? [] }),
    tags: body.tags, platformCapabilities: ['FARGATE'], isCancelled: false, isTerminated: false, retryStrategy: body.retryStrategy, timeout: body.timeout,
  }) as JobDetail;
  const queueName = queueArn.replace(/^.*job-queue\//, '');
  const job = runner.add<JobDetail>({ service: 'batch', id, arn: detail.jobArn, names: [name, defName, queueName], record: detail, caller: caller.arn, callerName: caller.name, state: 'SUBMITTED' });
  const b = job.behaviour;
  const duration = Math.max(b.durationMs ?? DEFAULT_DURATION_MS, 5_000);
  const { failed, exitCode } = outcomeOf(b);
  const logStreamName = `${defName}/default/${id.replace(/-/g, '')}`;
  change(runner, job, now + 1_000, 'PENDING');
  change(runner, job, now + 2_000, 'RUNNABLE');
  change(runner, job, now + 3_000, 'STARTING', (d) => Object.assign(d.container, { logStreamName }));
  change(runner, job, now + 4_000, 'RUNNING', (d) => Object.assign(d, { startedAt: now + 4_000 }));
  change(runner, job, now + duration, failed ? 'FAILED' : 'SUCCEEDED', (d) => {
    const reason = failed ? b.reason ?? 'Essential container in task exited' : 'Essential container in task exited';
    Object.assign(d, { stoppedAt: now + duration, statusReason: reason });
    Object.assign(d.container, { exitCode, ...(failed && b.reason ? { reason: b.reason } : {}) });
    d.attempts.push({ container: { exitCode, logStreamName }, startedAt: d.startedAt, stoppedAt: now + duration, statusReason: reason });
  }, true);
  return job;
}

/** TerminateJob: a job not yet started fails at once; a running one once its container has stopped. */
function terminate(runner: JobRunner, job: SimJob, reason: string): void {
  const d = job.record as unknown as JobDetail;
  if (job.done) return;
  runner.cancel(job);
  d.isTerminated = true;
  const now = runner.deps.clock();
  const started = d.status === 'STARTING' || d.status === 'RUNNING';
  (started ? change : applyChange)(runner, job, started ? now + 1_000 : now, 'FAILED', (x) => {
    Object.assign(x, { statusReason: reason, stoppedAt: started ? now + 1_000 : undefined });
    if (started) {
      Object.assign(x.container, { exitCode: STOP_EXIT_CODE });
      x.attempts.push({ container: { exitCode: STOP_EXIT_CODE, logStreamName: x.container.logStreamName }, startedAt: x.startedAt, stoppedAt: now + 1_000, statusReason: reason });
    }
  }, true);
}

function change(runner: JobRunner, job: SimJob, at: number, status: string, apply?: (d: JobDetail) => void, last = false): void {
  runner.at(job, at, () => applyChange(runner, job, at, status, apply, last));
}

function applyChange(runner: JobRunner, job: SimJob, _at: number, status: string, apply?: (d: JobDetail) => void, last = false): void {
  const d = job.record as unknown as JobDetail;
  d.status = status;
  apply?.(d);
  job.states.push(status);
  if (last) job.done = true;
  const { tags: _t, ...detail } = d;
  runner.publish(job, 'aws.batch', 'Batch Job State Change', compact(detail));
}
