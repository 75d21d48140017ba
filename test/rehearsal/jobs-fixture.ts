/**
 * What the job-service tests share: a worker role with the grants `new Airless(…, { jobs })`
 * writes (the named resources, PassRole per service), the resources jobs run on, a rule that
 * sends every AWS event to a sink, and a clock the test moves.
 */
import { startGateway, type BusEvent, type Gateway, type Principal } from '../../lib/rehearsal/gateway/index.js';

export const ACCOUNT = '000000000000';
export const A = `us-east-1:${ACCOUNT}`;
export const scope = { region: 'us-east-1', accountId: ACCOUNT };
export const role = (name: string) => `arn:aws:iam::${ACCOUNT}:role/${name}`;
export const cluster = `arn:aws:ecs:${A}:cluster/jobs`;
export const taskDef = `arn:aws:ecs:${A}:task-definition/etl:3`;
export const queue = `arn:aws:batch:${A}:job-queue/nightly`;
export const jobDef = `arn:aws:batch:${A}:job-definition/crunch:2`;
export const machine = `arn:aws:states:${A}:stateMachine:orders`;
export const app = `arn:aws:emr-serverless:${A}:/applications/00f1app`;
export const fn = `arn:aws:lambda:${A}:function:scorer`;

// What `new Airless(…, { jobs })` grants a worker: the named resources, and PassRole per service.
export const worker: Principal = {
  accessKeyId: 'AKIAWORKER', name: 'Worker', roleArn: role('Worker'),
  policies: [{ name: 'Jobs', document: { Version: '2012-10-17', Statement: [
    { Sid: 'EcsRun', Effect: 'Allow', Action: 'ecs:RunTask', Resource: `arn:aws:ecs:${A}:task-definition/etl:*`, Condition: { ArnEquals: { 'ecs:cluster': cluster } } },
    { Sid: 'EcsTasks', Effect: 'Allow', Action: ['ecs:DescribeTasks', 'ecs:StopTask'], Resource: `arn:aws:ecs:${A}:task/jobs/*` },
    { Sid: 'EcsPass', Effect: 'Allow', Action: 'iam:PassRole', Resource: [role('etl-task'), role('etl-exec')], Condition: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } } },
    { Sid: 'Batch', Effect: 'Allow', Action: 'batch:SubmitJob', Resource: [queue, `arn:aws:batch:${A}:job-definition/crunch:*`] },
    { Sid: 'BatchRead', Effect: 'Allow', Action: 'batch:DescribeJobs', Resource: '*' },
    { Sid: 'BatchStop', Effect: 'Allow', Action: 'batch:TerminateJob', Resource: `arn:aws:batch:${A}:job/*` },
    { Sid: 'Glue', Effect: 'Allow', Action: ['glue:StartJobRun', 'glue:GetJobRun', 'glue:BatchStopJobRun'], Resource: `arn:aws:glue:${A}:job/load` },
    { Sid: 'Sfn', Effect: 'Allow', Action: 'states:StartExecution', Resource: machine },
    { Sid: 'SfnRuns', Effect: 'Allow', Action: ['states:DescribeExecution', 'states:StopExecution'], Resource: `arn:aws:states:${A}:execution:orders:*` },
    { Sid: 'Athena', Effect: 'Allow', Action: ['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:StopQueryExecution'], Resource: [`arn:aws:athena:${A}:workgroup/reports`, `arn:aws:athena:${A}:workgroup/adhoc`] },
    { Sid: 'ResultsBucket', Effect: 'Allow', Action: ['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'], Resource: 'arn:aws:s3:::results' },
    { Sid: 'Results', Effect: 'Allow', Action: ['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'], Resource: 'arn:aws:s3:::results/athena/*' },
    { Sid: 'Emr', Effect: 'Allow', Action: 'emr-serverless:StartJobRun', Resource: app },
    { Sid: 'EmrRuns', Effect: 'Allow', Action: ['emr-serverless:GetJobRun', 'emr-serverless:CancelJobRun'], Resource: `${app}/jobruns/*` },
    { Sid: 'EmrPass', Effect: 'Allow', Action: 'iam:PassRole', Resource: role('spark'), Condition: { StringEquals: { 'iam:PassedToService': 'emr-serverless.amazonaws.com' } } },
    { Sid: 'Invoke', Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: fn },
  ] } }],
};

// The queue the test's rule sends every event to lets EventBridge send.
const sinkPolicy = { Version: '2012-10-17', Statement: [{ Effect: 'Allow' as const, Principal: { Service: 'events.amazonaws.com' }, Action: 'sqs:SendMessage', Resource: `arn:aws:sqs:${A}:sink` }] };


/** A gateway on a virtual clock with the fixture's resources; `events` collects every AWS event published. */
export async function jobsGateway(start = Date.parse('2026-01-01T00:00:00Z')) {
  let now = start;
  const events: BusEvent[] = [];
  const gw: Gateway = await startGateway({ ...scope, upstream: { dynamodb: 'http://127.0.0.1:1', sqs: 'http://127.0.0.1:1', s3: 'http://127.0.0.1:1' }, resourcePolicies: { [`arn:aws:sqs:${A}:sink`]: sinkPolicy }, principals: [worker], clock: () => now });
  const r = gw.jobs.resources;
  r.clusters.set('jobs', cluster);
  r.taskDefinitions.push({ arn: taskDef, family: 'etl', revision: 3, containers: [{ name: 'app', image: 'etl:1', essential: true }, { name: 'sidecar', image: 'log:1', essential: false }], taskRoleArn: role('etl-task'), executionRoleArn: role('etl-exec'), requiresCompatibilities: ['FARGATE'], cpu: '256', memory: '512' });
  r.jobQueues.set('nightly', queue);
  r.jobDefinitions.push({ arn: jobDef, name: 'crunch', revision: 2, type: 'container', image: 'crunch:1', command: ['run'] });
  r.glueJobs.set('load', { name: 'load', timeoutMinutes: 30, maxConcurrentRuns: 1, glueVersion: '4.0' });
  r.stateMachines.push({ arn: machine, name: 'orders', type: 'STANDARD' });
  r.workgroups.set('reports', { name: 'reports', outputLocation: 's3://results/athena/', enforce: true });
  r.workgroups.set('adhoc', { name: 'adhoc', enforce: false });
  r.emrApplications.push({ id: '00f1app', arn: app, name: 'spark', releaseLabel: 'emr-7.1.0', type: 'SPARK' });
  gw.events.putRule({ Name: 'all', EventPattern: { source: [{ prefix: 'aws.' }] }, Targets: [{ Id: 'sink', Arn: `arn:aws:sqs:${A}:sink` }] });
  gw.events.setSink({ deliver: async (d) => void events.push(d.event), deadLetter: async () => {} });
  /** Moves the clock, running every job step and delivery due on the way. */
  async function advance(ms: number): Promise<void> {
    const end = now + ms;
    for (;;) {
      await gw.jobs.runDue(now);
      await gw.events.runDue(now);
      const next = [gw.jobs.nextDue(), gw.events.nextDue()].filter((x): x is number => x !== undefined && x <= end);
      if (next.length === 0) break;
      now = Math.min(...next);
    }
    now = end;
    await gw.jobs.runDue(now);
    await gw.events.runDue(now);
  }
  return { gw, events, advance, now: () => now };
}
