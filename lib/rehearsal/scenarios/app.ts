/**
 * The rehearsal's test app: what the scenarios synthesize (`cdk synth --app`, rehearsal.ts
 * `synth`). The Airless stack as bin/app.ts deploys it, with `jobs` naming the scaffold's
 * resources (lib/rehearsal/scenarios/scaffold.ts) that the `jobs` scenario runs jobs on, and
 * the scaffold in the same stack (one template, so least privilege judges every scenario's
 * calls against the same grants); and the `data` scenario's bucket, queue and asset sources
 * (data-scaffold.ts). cdk-nag is not run here: the scaffold stands for a user's
 * own resources; the Airless construct's findings are tested with and without `jobs` in
 * test/infra/nag.test.ts.
 */
import { App, Lazy } from 'aws-cdk-lib';
import type { JobsProps } from '../../infra/jobs.js';
import { AirlessStack } from '../../infra/stack.js';
import { JobsScaffold, SCAFFOLD } from './scaffold.js';
import { DataScaffold } from './data-scaffold.js';

const app = new App();
const shards = app.node.tryGetContext('shards')?.toString();
let scaffold: JobsScaffold | undefined;
/**
 * The EMR Serverless application's id, which AWS generates: known once the scaffold exists,
 * after the Airless construct (AirlessStack makes it first). The construct resolves its grants'
 * resources once while it is built (for cdk-nag's finding ids, not run here), so until then this
 * gives the application's name; the template gets the id.
 */
const applicationId = Lazy.uncachedString({ produce: () => scaffold?.emrApplication.attrApplicationId ?? SCAFFOLD.emrApplication });

/** What the scenario's DAGs may start: every scaffold resource, by name as a user would write it. */
export const REHEARSAL_JOBS: JobsProps = {
  ecs: { clusters: [SCAFFOLD.cluster], taskDefinitions: [SCAFFOLD.taskFamily], passRoles: [SCAFFOLD.taskRole, SCAFFOLD.executionRole] },
  batch: { jobQueues: [SCAFFOLD.jobQueue], jobDefinitions: [SCAFFOLD.jobDefinition] },
  // and `orders_extract`, the first job of examples/dags/nightly_jobs.ts (pushed by the readme
  // scenario, whose catch-up run starts it): allowed, it fails as AWS fails it, one line, no
  // retry (EntityNotFoundException: the job is not in this account), not with a denied call.
  glue: { jobs: [SCAFFOLD.glueJob, 'orders_extract'] },
  stepFunctions: { stateMachines: [SCAFFOLD.stateMachine] },
  athena: { workGroups: [SCAFFOLD.workgroup], resultBuckets: [SCAFFOLD.resultsBucket] },
  emrServerless: { applications: [applicationId], executionRoles: [SCAFFOLD.emrRole] },
  lambda: { functions: [SCAFFOLD.function] },
};

const stack = new AirlessStack(app, 'Airless', {
  stackName: 'Airless',
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  airless: { shards: shards === undefined ? undefined : Number(shards), jobs: REHEARSAL_JOBS },
});
scaffold = new JobsScaffold(stack, 'RehearsalJobs');
// A function `jobs` names by name: its role's right to send its results to the Airless bus is ours to give.
stack.airless.events.bus.grantPutEventsTo(scaffold.scorer);
new DataScaffold(stack, 'RehearsalData', stack.airless);
app.synth();
