/**
 * Least privilege for the operators' jobs: `new Airless(…, { jobs })` names what DAGs may
 * start and which roles those jobs may be given; the worker gets exactly the submit and
 * stop calls on those resources (and `iam:PassRole` on those roles, conditioned on the
 * service they are passed to), the poker exactly the describe calls of the safety net.
 * Anything not named is refused by IAM, and the try says so in one line.
 * Calls per operator: docs/jobs.md; decisions: docs/adr/0017-events-and-jobs.md.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { InvalidInputError } from '../engine/index.js';
import { acknowledgeOnGrantee, wildcardResourceFinding } from './nag.js';

/** What DAGs may start. Names or ARNs; a name is in this stack's account and region. */
export interface JobsProps {
  /** `ecsRunTask`: clusters, task definitions (a family allows its every revision, `family:3` one), and the task and execution roles tasks may be given. */
  readonly ecs?: { readonly clusters: string[]; readonly taskDefinitions: string[]; readonly passRoles?: string[] };
  /** `batchSubmitJob`: job queues and job definitions (a name allows its every revision). */
  readonly batch?: { readonly jobQueues: string[]; readonly jobDefinitions: string[] };
  /** `glueStartJobRun`: Glue job names. */
  readonly glue?: { readonly jobs: string[] };
  /** `sfnStartExecution`: state machines. */
  readonly stepFunctions?: { readonly stateMachines: string[] };
  /**
   * `athenaQuery`: workgroups, the buckets results are written to, and what queries read
   * (buckets, Glue Data Catalog databases: Athena reads them with the caller's rights).
   */
  readonly athena?: { readonly workGroups: string[]; readonly resultBuckets: string[]; readonly dataBuckets?: string[]; readonly databases?: string[] };
  /** `emrServerlessJobRun`: application ids, and the execution roles job runs may be given. */
  readonly emrServerless?: { readonly applications: string[]; readonly executionRoles?: string[] };
  /**
   * `lambdaInvoke`: functions. Each gets asynchronous invocation destinations (success and
   * failure) on the Airless event bus, which is how its result comes back; a function given
   * as a construct also gets `events:PutEvents` on the bus for its role (give a named one's
   * role that grant yourself: docs/jobs.md).
   */
  readonly lambda?: { readonly functions: ReadonlyArray<string | lambda.IFunction>; readonly configureDestinations?: boolean };
}

/** One place that turns a name into an ARN of this stack's account and region. */
function arnOf(scope: Construct, service: string, resource: string, name: string, sep: ArnFormat = ArnFormat.SLASH_RESOURCE_NAME): string {
  if (name.startsWith('arn:')) return name;
  if (!name) throw new InvalidInputError(`jobs: an empty ${service} ${resource} name`);
  // IAM is global: its ARNs name no region.
  return Stack.of(scope).formatArn({ service, resource, resourceName: name, arnFormat: sep, ...(service === 'iam' ? { region: '' } : {}) });
}

/** The last path part of an ARN or name (a cluster's name, a state machine's name). */
function lastPart(arn: string, sep: string): string {
  return arn.slice(arn.lastIndexOf(sep) + 1);
}

const statement = (actions: string[], resources: string[], conditions?: Record<string, unknown>) =>
  new iam.PolicyStatement({ actions, resources, ...(conditions ? { conditions } : {}) });

/** A service that lets no resource be named (Batch DescribeJobs) or names jobs by generated ids: acknowledged for cdk-nag. */
function acknowledge(grantee: iam.IGrantable, scope: Construct, resources: string[], reason: string): void {
  for (const r of resources) if (r.includes('*')) acknowledgeOnGrantee(grantee, wildcardResourceFinding(scope, r), reason);
}

/**
 * The statements of `jobs`: what the worker needs (submit, stop, pass roles) and what the
 * poker needs (describe). Exposed for tests and for stacks that compose their own roles.
 *
 * @example
 * const { worker, poker } = jobStatements(stack, { glue: { jobs: ['orders_etl'] } });
 */
export function jobStatements(scope: Construct, jobs: JobsProps): { worker: iam.PolicyStatement[]; poker: iam.PolicyStatement[]; wildcards: { worker: string[]; poker: string[] } } {
  const worker: iam.PolicyStatement[] = [];
  const poker: iam.PolicyStatement[] = [];
  const passRole = (roles: string[] | undefined, service: string) => {
    if (!roles?.length) return;
    worker.push(statement(['iam:PassRole'], roles.map((r) => arnOf(scope, 'iam', 'role', r)), { StringEquals: { 'iam:PassedToService': service } }));
  };
  const stack = Stack.of(scope);
  const regional = (service: string, resource: string) => `arn:${stack.partition}:${service}:${stack.region}:${stack.account}:${resource}`;

  if (jobs.ecs) {
    const clusters = jobs.ecs.clusters.map((c) => arnOf(scope, 'ecs', 'cluster', c));
    const defs = jobs.ecs.taskDefinitions.map((d) => {
      const arn = arnOf(scope, 'ecs', 'task-definition', d);
      return /:\d+$/.test(arn) ? arn : `${arn}:*`;
    });
    const tasks = clusters.map((c) => regional('ecs', `task/${lastPart(c, '/')}/*`));
    worker.push(statement(['ecs:RunTask'], defs, { ArnEquals: { 'ecs:cluster': clusters } }));
    worker.push(statement(['ecs:StopTask'], tasks));
    poker.push(statement(['ecs:DescribeTasks'], tasks));
    passRole(jobs.ecs.passRoles, 'ecs-tasks.amazonaws.com');
  }
  if (jobs.batch) {
    const queues = jobs.batch.jobQueues.map((q) => arnOf(scope, 'batch', 'job-queue', q));
    const defs = jobs.batch.jobDefinitions.flatMap((d) => {
      const arn = arnOf(scope, 'batch', 'job-definition', d);
      return /:\d+$/.test(arn) ? [arn] : [arn, `${arn}:*`];
    });
    worker.push(statement(['batch:SubmitJob'], [...queues, ...defs]));
    worker.push(statement(['batch:TerminateJob'], [regional('batch', 'job/*')]));
    poker.push(statement(['batch:DescribeJobs'], ['*']));
  }
  if (jobs.glue) {
    const names = jobs.glue.jobs.map((j) => arnOf(scope, 'glue', 'job', j));
    worker.push(statement(['glue:StartJobRun', 'glue:BatchStopJobRun'], names));
    poker.push(statement(['glue:GetJobRun'], names));
  }
  if (jobs.stepFunctions) {
    const machines = jobs.stepFunctions.stateMachines.map((m) => arnOf(scope, 'states', 'stateMachine', m, ArnFormat.COLON_RESOURCE_NAME));
    const executions = machines.map((m) => regional('states', `execution:${lastPart(m, ':')}:*`));
    worker.push(statement(['states:StartExecution'], machines));
    worker.push(statement(['states:StopExecution'], executions));
    poker.push(statement(['states:DescribeExecution'], executions));
  }
  if (jobs.athena) {
    const groups = jobs.athena.workGroups.map((w) => arnOf(scope, 'athena', 'workgroup', w));
    worker.push(statement(['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:StopQueryExecution'], groups));
    poker.push(statement(['athena:GetQueryExecution'], groups));
    const bucket = (b: string) => (b.startsWith('arn:') ? b : `arn:${stack.partition}:s3:::${b}`);
    const results = jobs.athena.resultBuckets.map(bucket);
    worker.push(statement(['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'], results));
    worker.push(statement(['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'], results.map((b) => `${b}/*`)));
    const data = (jobs.athena.dataBuckets ?? []).map(bucket);
    if (data.length) {
      worker.push(statement(['s3:GetBucketLocation', 's3:ListBucket'], data));
      worker.push(statement(['s3:GetObject'], data.map((b) => `${b}/*`)));
    }
    const dbs = jobs.athena.databases ?? [];
    if (dbs.length) {
      worker.push(statement(['glue:GetDatabase', 'glue:GetTable', 'glue:GetTables', 'glue:GetPartition', 'glue:GetPartitions', 'glue:BatchGetPartition'], [
        regional('glue', 'catalog'), ...dbs.map((d) => regional('glue', `database/${d}`)), ...dbs.map((d) => regional('glue', `table/${d}/*`)),
      ]));
    }
  }
  if (jobs.emrServerless) {
    const apps = jobs.emrServerless.applications.map((a) => (a.startsWith('arn:') ? a : regional('emr-serverless', `/applications/${a}`)));
    const runs = apps.map((a) => `${a}/jobruns/*`);
    worker.push(statement(['emr-serverless:StartJobRun'], apps));
    worker.push(statement(['emr-serverless:CancelJobRun'], runs));
    poker.push(statement(['emr-serverless:GetJobRun'], runs));
    passRole(jobs.emrServerless.executionRoles, 'emr-serverless.amazonaws.com');
  }
  if (jobs.lambda) {
    const fns = jobs.lambda.functions.map((f) => (typeof f === 'string' ? arnOf(scope, 'lambda', 'function', f, ArnFormat.COLON_RESOURCE_NAME) : f.functionArn));
    worker.push(statement(['lambda:InvokeFunction'], [...fns, ...fns.map((f) => `${f}:*`)]));
  }
  const wildcards = (list: iam.PolicyStatement[]) => list.flatMap((s) => s.resources).filter((r) => r.includes('*'));
  return { worker, poker, wildcards: { worker: wildcards(worker), poker: wildcards(poker) } };
}

/**
 * Adds the statements of `jobs` to the worker's and the poker's roles, with the cdk-nag
 * acknowledgements of the wildcards AWS leaves no way around (job ids generated at submit,
 * Batch's DescribeJobs that names no resource, a task definition's every revision).
 *
 * @example
 * grantJobs(this, props.jobs, { worker: fns.worker, poker: fns.poker });
 */
export function grantJobs(scope: Construct, jobs: JobsProps | undefined, fns: { worker: iam.IGrantable; poker: iam.IGrantable }): void {
  if (!jobs) return;
  const s = jobStatements(scope, jobs);
  for (const st of s.worker) fns.worker.grantPrincipal.addToPrincipalPolicy(st);
  for (const st of s.poker) fns.poker.grantPrincipal.addToPrincipalPolicy(st);
  const why = 'Jobs are named by ids AWS generates at submit (tasks, job runs, executions) or revisions (task and job definitions), '
    + 'each under a resource the jobs props name; Batch DescribeJobs supports no resource-level permission.';
  acknowledge(fns.worker, scope, s.wildcards.worker, why);
  acknowledge(fns.poker, scope, s.wildcards.poker, why);
}
