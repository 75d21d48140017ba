/**
 * Amazon Athena queries (JSON 1.1, `AmazonAthena.Op`): StartQueryExecution, GetQueryExecution,
 * StopQueryExecution. A query goes QUEUED → RUNNING → SUCCEEDED | FAILED | CANCELLED, each change
 * published as "Athena Query State Change", detail `{ currentState, previousState,
 * queryExecutionId, sequenceNumber, statementType, versionId, workgroupName }` and `athenaError`
 * when it failed (https://docs.aws.amazon.com/athena/latest/ug/athena-events.html). Its results
 * go where the workgroup says (when it enforces its configuration) or the request says, as
 * `<OutputLocation>/<QueryExecutionId>.csv` and `.csv.metadata`, written with the caller's
 * credentials as Athena does. When the query starts, the caller must have what AWS documents
 * for a result location (https://docs.aws.amazon.com/athena/latest/ug/security-iam-athena.html:
 * `s3:GetBucketLocation`, `s3:ListBucket`, `s3:ListBucketMultipartUploads` on the bucket,
 * `s3:PutObject`, `s3:GetObject`, `s3:AbortMultipartUpload`, `s3:ListMultipartUploadParts` on
 * the results), and `s3:PutObject` when the results are written; a denial fails the query,
 * not the call. IAM: each operation on the workgroup's ARN
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonathena.html).
 */
import { randomUUID } from 'node:crypto';
import { answering, compact, jsonBody, JobApiError, ok, required, seconds, type JobModule } from './api.js';
import { DEFAULT_DURATION_MS, outcomeOf, type JobRunner, type SimJob } from './sim.js';
import type { WorkgroupSpec } from './resources.js';

interface Query {
  QueryExecutionId: string; Query: string; StatementType: string; WorkGroup: string; OutputLocation: string;
  QueryExecutionContext?: Record<string, unknown>; State: string; StateChangeReason?: string; SubmissionDateTime: number; CompletionDateTime?: number;
  AthenaError?: { ErrorCategory: number; ErrorType: number; Retryable: boolean; ErrorMessage: string }; sequence: number;
}

const BUCKET_ACTIONS = ['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'];
const OBJECT_ACTIONS = ['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'];

/** Writes an object to the rehearsal's S3 (Athena's results); set by the rehearsal. */
export type ObjectWriter = (bucket: string, key: string, body: string) => Promise<void>;

export function athena(write: ObjectWriter): JobModule {
  const module: JobModule = (r, runner, scope) => {
    const body = jsonBody(r);
    const wgArn = (name: string) => `arn:aws:athena:${scope.region}:${scope.accountId}:workgroup/${name}`;
    switch (r.target) {
      case 'StartQueryExecution': {
        const wg = String(body.WorkGroup ?? 'primary');
        return {
          checks: [{ action: 'athena:StartQueryExecution', resource: wgArn(wg) }],
          serve: answering('athena', async () => {
            const text = required(body, 'QueryString', 'InvalidRequestException');
            const spec = runner.resources.workgroups.get(wg);
            if (!spec) throw new JobApiError('InvalidRequestException', `WorkGroup ${wg} is not found.`);
            const token = typeof body.ClientRequestToken === 'string' ? body.ClientRequestToken : undefined;
            const again = token && runner.jobs.find((j) => j.service === 'athena' && (j.record as { token?: string }).token === token);
            if (again) return ok('athena', { QueryExecutionId: again.id });
            const location = outputLocation(spec, body);
            const job = start(runner, r.caller, wg, text, location, body, token, write);
            if (job.behaviour.answerAfterEvents) await runner.settled(job);
            return ok('athena', { QueryExecutionId: job.id });
          }),
        };
      }
      case 'GetQueryExecution':
      case 'StopQueryExecution': {
        const id = required(body, 'QueryExecutionId', 'InvalidRequestException');
        const job = runner.find('athena', id);
        return {
          checks: [{ action: `athena:${r.target}`, resource: wgArn(job ? (job.record as unknown as Query).WorkGroup : 'primary') }],
          serve: answering('athena', () => {
            if (!job) throw new JobApiError('InvalidRequestException', `QueryExecution ${id} was not found`);
            const q = job.record as unknown as Query;
            if (r.target === 'StopQueryExecution') {
              if (!job.done) {
                runner.cancel(job);
                change(runner, job, runner.deps.clock(), 'CANCELLED', write, { reason: 'Query cancelled by user' });
              }
              return ok('athena', {});
            }
            return ok('athena', { QueryExecution: describe(q) });
          }),
        };
      }
      default:
        throw new JobApiError('InvalidRequestException', `the rehearsal's Athena serves StartQueryExecution, GetQueryExecution and StopQueryExecution, not ${r.target}`);
    }
  };
  return module;
}

function outputLocation(wg: WorkgroupSpec, body: Record<string, any>): string {
  const given = body.ResultConfiguration?.OutputLocation as string | undefined;
  const base = wg.enforce ? wg.outputLocation ?? given : given ?? wg.outputLocation;
  if (!base) throw new JobApiError('InvalidRequestException', 'No output location provided. An output location is required either through the Workgroup result configuration setting or as an API input.');
  if (!/^s3:\/\/[^/]+/.test(base)) throw new JobApiError('InvalidRequestException', `outputLocation is not a valid S3 path: ${base}`);
  return base.replace(/\/?$/, '/');
}

function start(runner: JobRunner, caller: { name: string; arn: string }, wg: string, text: string, location: string, body: Record<string, any>, token: string | undefined, write: ObjectWriter): SimJob {
  const now = runner.deps.clock();
  const id = randomUUID();
  const statement = /^\s*(select|with|insert|unload)/i.test(text) ? 'DML' : /^\s*(create|drop|alter|msck|show|describe)/i.test(text) ? 'DDL' : 'UTILITY';
  const q = compact({
    QueryExecutionId: id, Query: text, StatementType: statement, WorkGroup: wg, OutputLocation: `${location}${id}.csv`, QueryExecutionContext: body.QueryExecutionContext,
    State: 'QUEUED', SubmissionDateTime: now, sequence: 1, token,
  }) as Query;
  // A query has no ARN: its id stands for one.
  const job = runner.add<Query>({ service: 'athena', id, arn: id, names: [wg, text], record: q, caller: caller.arn, callerName: caller.name, state: 'QUEUED' });
  event(runner, job, undefined);
  const b = job.behaviour;
  const { failed } = outcomeOf(b);
  const bucket = /^s3:\/\/([^/]+)/.exec(location)![1]!;
  change(runner, job, now + 1_000, 'RUNNING', write, {});
  runner.at(job, now + 1_000, async () => {
    // Athena uses the result location with the caller's credentials: all it documents, checked as it starts.
    const object = `arn:aws:s3:::${q.OutputLocation.replace(/^s3:\/\//, '')}`;
    for (const [action, resource] of [...BUCKET_ACTIONS.map((a) => [a, `arn:aws:s3:::${bucket}`]), ...OBJECT_ACTIONS.map((a) => [a, object])]) {
      if (await runner.deps.authorizeAs(job.callerName, { action: action!, resource: resource! })) continue;
      runner.cancel(job);
      change(runner, job, runner.deps.clock(), 'FAILED', write, { reason: `Access denied when writing output to url: ${q.OutputLocation} (${action})`, error: { ErrorCategory: 2, ErrorType: 1002, Retryable: false } });
      return;
    }
  });
  const endAt = now + Math.max(b.durationMs ?? DEFAULT_DURATION_MS, 2_000);
  if (failed) change(runner, job, endAt, 'FAILED', write, { reason: b.reason ?? 'SYNTAX_ERROR: line 1:8: Column \'x\' cannot be resolved', error: { ErrorCategory: 2, ErrorType: Number(b.error ?? 1006), Retryable: false } });
  else change(runner, job, endAt, 'SUCCEEDED', write, { rows: typeof b.output === 'string' ? b.output : '"_col0"\n"1"\n' });
  return job;
}

function change(runner: JobRunner, job: SimJob, at: number, state: string, write: ObjectWriter, o: { reason?: string; error?: Omit<NonNullable<Query['AthenaError']>, 'ErrorMessage'>; rows?: string }): void {
  runner.at(job, at, async () => {
    const q = job.record as unknown as Query;
    if (state === 'SUCCEEDED' && o.rows !== undefined) {
      // The results are written with the caller's credentials: a denial fails the query.
      const [, bucket, key] = /^s3:\/\/([^/]+)\/(.+)$/.exec(q.OutputLocation)!;
      if (!(await runner.deps.authorizeAs(job.callerName, { action: 's3:PutObject', resource: `arn:aws:s3:::${bucket}/${key}` }))) {
        return change(runner, job, at, 'FAILED', write, { reason: `Access denied when writing output to url: ${q.OutputLocation}`, error: { ErrorCategory: 2, ErrorType: 1002, Retryable: false } });
      }
      await write(bucket!, key!, o.rows);
      await write(bucket!, `${key}.metadata`, JSON.stringify({ columns: o.rows.split('\n')[0] }));
    }
    const previous = q.State;
    Object.assign(q, { State: state, sequence: q.sequence + 1 }, o.reason ? { StateChangeReason: o.reason } : {});
    if (o.error) q.AthenaError = { ...o.error, ErrorMessage: o.reason ?? state };
    job.states.push(state);
    if (state === 'SUCCEEDED' || state === 'FAILED' || state === 'CANCELLED') {
      q.CompletionDateTime = at;
      job.done = true;
    }
    event(runner, job, previous);
  });
}

function event(runner: JobRunner, job: SimJob, previous: string | undefined): void {
  const q = job.record as unknown as Query;
  runner.publish(job, 'aws.athena', 'Athena Query State Change', compact({
    currentState: q.State, previousState: previous, queryExecutionId: q.QueryExecutionId, sequenceNumber: String(q.sequence),
    statementType: q.StatementType, versionId: '0', workgroupName: q.WorkGroup,
    athenaError: q.State === 'FAILED' && q.AthenaError ? { errorCategory: q.AthenaError.ErrorCategory, errorType: q.AthenaError.ErrorType, errorMessage: q.AthenaError.ErrorMessage, retryable: q.AthenaError.Retryable } : undefined,
  }), [`arn:aws:athena:${runner.deps.region}:${runner.deps.accountId}:workgroup/${q.WorkGroup}`]);
}

function describe(q: Query): Record<string, unknown> {
  const end = q.CompletionDateTime;
  return compact({
    QueryExecutionId: q.QueryExecutionId, Query: q.Query, StatementType: q.StatementType, WorkGroup: q.WorkGroup,
    ResultConfiguration: { OutputLocation: q.OutputLocation }, QueryExecutionContext: q.QueryExecutionContext,
    Status: compact({ State: q.State, StateChangeReason: q.StateChangeReason, SubmissionDateTime: seconds(q.SubmissionDateTime), CompletionDateTime: seconds(end), AthenaError: q.AthenaError }),
    Statistics: { EngineExecutionTimeInMillis: end ? Math.max(0, end - q.SubmissionDateTime - 1_000) : 0, DataScannedInBytes: 0, TotalExecutionTimeInMillis: end ? end - q.SubmissionDateTime : 0, QueryQueueTimeInMillis: 1_000 },
    EngineVersion: { SelectedEngineVersion: 'AUTO', EffectiveEngineVersion: 'Athena engine version 3' },
  });
}
