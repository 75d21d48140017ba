/**
 * AWS Glue job runs (JSON 1.1, `AWSGlue.Op`): StartJobRun, GetJobRun, BatchStopJobRun. A run goes
 * STARTING → RUNNING → SUCCEEDED | FAILED | TIMEOUT (the job's or the run's `Timeout`, minutes), or
 * STOPPING → STOPPED when stopped; Glue publishes "Glue Job State Change" for the four end states
 * only, detail `{ jobName, severity, state, jobRunId, message }`
 * (https://docs.aws.amazon.com/glue/latest/dg/automating-awsglue-with-cloudwatch-events.html).
 * A job runs at most `MaxConcurrentRuns` at once (default 1): ConcurrentRunsExceededException.
 * IAM: each operation on the job's ARN (`arn:aws:glue:REGION:ACCOUNT:job/NAME`).
 */
import { randomBytes } from 'node:crypto';
import { answering, compact, jsonBody, JobApiError, ok, required, seconds, type JobModule } from './api.js';
import { DEFAULT_DURATION_MS, outcomeOf, type JobRunner, type SimJob } from './sim.js';
import type { GlueJobSpec } from './resources.js';

interface JobRun {
  Id: string; Attempt: number; JobName: string; StartedOn: number; LastModifiedOn: number; CompletedOn?: number; JobRunState: string;
  Arguments: Record<string, string>; ErrorMessage?: string; ExecutionTime: number; Timeout: number; GlueVersion?: string;
  WorkerType?: string; NumberOfWorkers?: number; LogGroupName: string;
}

const END = new Set(['SUCCEEDED', 'FAILED', 'TIMEOUT', 'STOPPED', 'ERROR']);

export const glue: JobModule = (r, runner, scope) => {
  const body = jsonBody(r);
  const jobArn = (name: string) => `arn:aws:glue:${scope.region}:${scope.accountId}:job/${name}`;
  const name = required(body, 'JobName', 'InvalidInputException');
  const spec = () => {
    const s = runner.resources.glueJobs.get(name);
    if (!s) throw new JobApiError('EntityNotFoundException', `Job with name: ${name} not found`);
    return s;
  };
  switch (r.target) {
    case 'StartJobRun':
      return {
        checks: [{ action: 'glue:StartJobRun', resource: jobArn(name) }],
        serve: answering('glue', async () => {
          const s = spec();
          const active = runner.jobs.filter((j) => j.service === 'glue' && (j.record as unknown as JobRun).JobName === name && !j.done).length;
          if (active >= s.maxConcurrentRuns) throw new JobApiError('ConcurrentRunsExceededException', `Concurrent runs exceeded for ${name}`);
          const job = start(runner, r.caller, s, body);
          if (job.behaviour.answerAfterEvents) await runner.settled(job);
          return ok('glue', { JobRunId: job.id });
        }),
      };
    case 'GetJobRun': {
      const runId = required(body, 'RunId', 'InvalidInputException');
      return {
        checks: [{ action: 'glue:GetJobRun', resource: jobArn(name) }],
        serve: answering('glue', () => {
          spec();
          const job = runner.find('glue', runId);
          if (!job || (job.record as unknown as JobRun).JobName !== name) throw new JobApiError('EntityNotFoundException', `Job Run with id: ${runId} not found`);
          return ok('glue', { JobRun: describe(job.record as unknown as JobRun) });
        }),
      };
    }
    case 'BatchStopJobRun': {
      const ids = (Array.isArray(body.JobRunIds) ? body.JobRunIds : []) as string[];
      return {
        checks: [{ action: 'glue:BatchStopJobRun', resource: jobArn(name) }],
        serve: answering('glue', () => {
          spec();
          if (ids.length === 0 || ids.length > 25) throw new JobApiError('InvalidInputException', 'JobRunIds must hold between 1 and 25 ids.');
          const ok_: { JobName: string; JobRunId: string }[] = [];
          const errors: unknown[] = [];
          for (const id of ids) {
            const job = runner.find('glue', id);
            if (!job || job.done || (job.record as unknown as JobRun).JobName !== name) {
              errors.push({ JobName: name, JobRunId: id, ErrorDetail: { ErrorCode: job ? 'InvalidInputException' : 'EntityNotFoundException', ErrorMessage: job ? 'Job Run cannot be stopped in its current state.' : `Job Run with id: ${id} not found` } });
            } else {
              stop(runner, job);
              ok_.push({ JobName: name, JobRunId: id });
            }
          }
          return ok('glue', { SuccessfulSubmissions: ok_, Errors: errors });
        }),
      };
    }
    default:
      throw new JobApiError('InvalidInputException', `the rehearsal's Glue serves StartJobRun, GetJobRun and BatchStopJobRun, not ${r.target}`);
  }
};

function start(runner: JobRunner, caller: { name: string; arn: string }, s: GlueJobSpec, body: Record<string, any>): SimJob {
  const now = runner.deps.clock();
  const id = `jr_${randomBytes(32).toString('hex')}`;
  const timeout = Number(body.Timeout ?? s.timeoutMinutes);
  const run: JobRun = compact({
    Id: id, Attempt: 0, JobName: s.name, StartedOn: now, LastModifiedOn: now, JobRunState: 'STARTING', Arguments: body.Arguments ?? {}, ExecutionTime: 0,
    Timeout: timeout, GlueVersion: s.glueVersion, WorkerType: body.WorkerType ?? s.workerType, NumberOfWorkers: body.NumberOfWorkers ?? s.numberOfWorkers, LogGroupName: '/aws-glue/jobs',
  }) as JobRun;
  const job = runner.add<JobRun>({ service: 'glue', id, arn: `arn:aws:glue:${runner.deps.region}:${runner.deps.accountId}:job/${s.name}`, names: [s.name], record: run, caller: caller.arn, callerName: caller.name, state: 'STARTING' });
  const b = job.behaviour;
  const duration = Math.max(b.durationMs ?? DEFAULT_DURATION_MS, 2_000);
  const { failed } = outcomeOf(b);
  change(runner, job, now + 1_000, 'RUNNING');
  if (duration > timeout * 60_000) change(runner, job, now + timeout * 60_000, 'TIMEOUT', `Job run timed out after ${timeout} minutes`);
  else change(runner, job, now + duration, failed ? 'FAILED' : 'SUCCEEDED', failed ? b.reason ?? 'An error occurred while calling o85.getDynamicFrame.' : undefined);
  return job;
}

function stop(runner: JobRunner, job: SimJob): void {
  runner.cancel(job);
  const now = runner.deps.clock();
  applyChange(runner, job, now, 'STOPPING');
  change(runner, job, now + 2_000, 'STOPPED');
}

function change(runner: JobRunner, job: SimJob, at: number, state: string, error?: string): void {
  runner.at(job, at, () => applyChange(runner, job, at, state, error));
}

function applyChange(runner: JobRunner, job: SimJob, at: number, state: string, error?: string): void {
  const run = job.record as unknown as JobRun;
  Object.assign(run, { JobRunState: state, LastModifiedOn: at, ExecutionTime: Math.round((at - run.StartedOn) / 1000) }, error ? { ErrorMessage: error } : {});
  job.states.push(state);
  if (!END.has(state)) return;
  run.CompletedOn = at;
  job.done = true;
  const severity = state === 'SUCCEEDED' || state === 'STOPPED' ? 'INFO' : state === 'TIMEOUT' ? 'WARN' : 'ERROR';
  const message = state === 'SUCCEEDED' ? 'Job run succeeded' : state === 'STOPPED' ? 'Job run stopped' : run.ErrorMessage ?? `Job run ${state.toLowerCase()}`;
  runner.publish(job, 'aws.glue', 'Glue Job State Change', { jobName: run.JobName, severity, state, jobRunId: run.Id, message }, []);
}

function describe(run: JobRun): Record<string, unknown> {
  return compact({ ...run, StartedOn: seconds(run.StartedOn), LastModifiedOn: seconds(run.LastModifiedOn), CompletedOn: seconds(run.CompletedOn) });
}
