/**
 * Amazon EMR Serverless job runs (REST-JSON): StartJobRun (`POST /applications/{id}/jobruns`),
 * GetJobRun (`GET …/jobruns/{runId}`), CancelJobRun (`DELETE …/jobruns/{runId}`). A run goes
 * SUBMITTED → PENDING → SCHEDULED → RUNNING → SUCCESS | FAILED, or CANCELLING → CANCELLED, each
 * change published as "EMR Serverless Job Run State Change", detail `{ jobRunId, jobRunName,
 * applicationId, arn, releaseLabel, state, previousState, createdBy, updatedAt, createdAt }`
 * (https://docs.aws.amazon.com/emr/latest/EMR-Serverless-UserGuide/using-eventbridge.html).
 * IAM: `emr-serverless:StartJobRun` on the application with `iam:PassRole` of the execution role
 * (`iam:PassedToService` emr-serverless.amazonaws.com), `emr-serverless:TagResource` when tagged,
 * GetJobRun and CancelJobRun on the job run
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonemrserverless.html).
 */
import { randomBytes } from 'node:crypto';
import type { Check } from '../checks.js';
import { answering, compact, iso, jsonBody, JobApiError, ok, required, seconds, type JobModule } from './api.js';
import { DEFAULT_DURATION_MS, outcomeOf, type JobRunner, type SimJob } from './sim.js';
import type { EmrApplicationSpec } from './resources.js';

interface JobRun {
  applicationId: string; jobRunId: string; name?: string; arn: string; createdBy: string; createdAt: number; updatedAt: number;
  executionRole: string; state: string; stateDetails: string; releaseLabel: string; jobDriver: unknown; configurationOverrides?: unknown;
  tags?: Record<string, string>; executionTimeoutMinutes: number; totalExecutionDurationSeconds: number;
}

const END = new Set(['SUCCESS', 'FAILED', 'CANCELLED']);

export const emrServerless: JobModule = (r, runner, scope) => {
  const m = /^\/applications\/([^/]+)\/jobruns(?:\/([^/]+))?\/?$/.exec(r.path);
  if (!m) throw new JobApiError('ValidationException', `the rehearsal's EMR Serverless serves StartJobRun, GetJobRun and CancelJobRun, not ${r.method} ${r.path}`);
  const [, appId, runId] = m.map((x) => (x === undefined ? x : decodeURIComponent(x)));
  const appArn = `arn:aws:emr-serverless:${scope.region}:${scope.accountId}:/applications/${appId}`;
  const app = () => {
    const a = runner.resources.emrApplications.find((x) => x.id === appId);
    if (!a) throw new JobApiError('ResourceNotFoundException', `Application ${appId} does not exist`, 404);
    return a;
  };
  if (r.method === 'POST' && !runId) {
    const body = jsonBody(r);
    const role = required(body, 'executionRoleArn', 'ValidationException');
    const checks: Check[] = [
      { action: 'emr-serverless:StartJobRun', resource: appArn },
      { action: 'iam:PassRole', resource: role, context: { 'iam:PassedToService': 'emr-serverless.amazonaws.com' } },
    ];
    if (body.tags && Object.keys(body.tags).length) checks.push({ action: 'emr-serverless:TagResource', resource: `${appArn}/jobruns/*` });
    return {
      checks,
      serve: answering('emr-serverless', async () => {
        const a = app();
        const token = required(body, 'clientToken', 'ValidationException');
        if (!body.jobDriver) throw new JobApiError('ValidationException', 'jobDriver must not be null');
        const again = runner.jobs.find((j) => j.service === 'emr-serverless' && (j.record as { token?: string }).token === token);
        const job = again ?? start(runner, r.caller, a, role, token, body);
        if (!again && job.behaviour.answerAfterEvents) await runner.settled(job);
        return ok('emr-serverless', { applicationId: a.id, jobRunId: job.id, arn: job.arn });
      }),
    };
  }
  const op = r.method === 'GET' ? 'GetJobRun' : r.method === 'DELETE' ? 'CancelJobRun' : undefined;
  if (!op || !runId) throw new JobApiError('ValidationException', `the rehearsal's EMR Serverless does not serve ${r.method} ${r.path}`);
  return {
    checks: [{ action: `emr-serverless:${op}`, resource: `${appArn}/jobruns/${runId}` }],
    serve: answering('emr-serverless', () => {
      app();
      const job = runner.find('emr-serverless', runId);
      if (!job || (job.record as unknown as JobRun).applicationId !== appId) throw new JobApiError('ResourceNotFoundException', `Job run ${runId} does not exist`, 404);
      const run = job.record as unknown as JobRun;
      if (op === 'GetJobRun') return ok('emr-serverless', { jobRun: describe(run) });
      if (job.done) throw new JobApiError('ValidationException', `Job run ${runId} is in a terminal state ${run.state} and cannot be cancelled`);
      runner.cancel(job);
      const now = runner.deps.clock();
      applyChange(runner, job, now, 'CANCELLING', 'Job run cancellation requested');
      change(runner, job, now + 2_000, 'CANCELLED', 'Job run cancelled by user');
      return ok('emr-serverless', { applicationId: appId, jobRunId: runId });
    }),
  };
};

function start(runner: JobRunner, caller: { name: string; arn: string }, a: EmrApplicationSpec, role: string, token: string, body: Record<string, any>): SimJob {
  const now = runner.deps.clock();
  const id = randomBytes(8).toString('hex');
  const run = compact({
    applicationId: a.id, jobRunId: id, name: body.name, arn: `${a.arn}/jobruns/${id}`, createdBy: caller.arn, createdAt: now, updatedAt: now, executionRole: role,
    state: 'SUBMITTED', stateDetails: '', releaseLabel: a.releaseLabel, jobDriver: body.jobDriver, configurationOverrides: body.configurationOverrides, tags: body.tags,
    executionTimeoutMinutes: Number(body.executionTimeoutMinutes ?? 720), totalExecutionDurationSeconds: 0, token,
  }) as JobRun;
  const job = runner.add<JobRun>({ service: 'emr-serverless', id, arn: run.arn, names: [a.id, a.name, ...(body.name ? [String(body.name)] : [])], record: run, caller: caller.arn, callerName: caller.name, state: 'SUBMITTED' });
  event(runner, job, undefined);
  const b = job.behaviour;
  const { failed } = outcomeOf(b);
  const end = now + Math.max(b.durationMs ?? DEFAULT_DURATION_MS, 4_000);
  change(runner, job, now + 1_000, 'PENDING');
  change(runner, job, now + 2_000, 'SCHEDULED');
  change(runner, job, now + 3_000, 'RUNNING');
  change(runner, job, end, failed ? 'FAILED' : 'SUCCESS', failed ? b.reason ?? 'Job failed, please check complete logs in configured logging destination. ExitCode: 1.' : '');
  return job;
}

function change(runner: JobRunner, job: SimJob, at: number, state: string, details?: string): void {
  runner.at(job, at, () => applyChange(runner, job, at, state, details));
}

function applyChange(runner: JobRunner, job: SimJob, at: number, state: string, details?: string): void {
  const run = job.record as unknown as JobRun;
  const previous = run.state;
  Object.assign(run, { state, updatedAt: at }, details !== undefined ? { stateDetails: details } : {});
  if (state === 'RUNNING' || END.has(state)) run.totalExecutionDurationSeconds = Math.round((at - run.createdAt) / 1000);
  job.states.push(state);
  if (END.has(state)) job.done = true;
  event(runner, job, previous);
}

function event(runner: JobRunner, job: SimJob, previous: string | undefined): void {
  const run = job.record as unknown as JobRun;
  runner.publish(job, 'aws.emr-serverless', 'EMR Serverless Job Run State Change', compact({
    jobRunId: run.jobRunId, jobRunName: run.name, applicationId: run.applicationId, arn: run.arn, releaseLabel: run.releaseLabel, state: run.state,
    previousState: previous, createdBy: run.createdBy, updatedAt: iso(run.updatedAt), createdAt: iso(run.createdAt),
  }), []);
}

function describe(run: JobRun): Record<string, unknown> {
  const { token: _t, ...rest } = run as JobRun & { token?: string };
  return compact({ ...rest, createdAt: seconds(run.createdAt), updatedAt: seconds(run.updatedAt) });
}
