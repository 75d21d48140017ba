import { App, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AirlessStack } from '../lib/infra/stack.js';

// cdk-nag is a gate: an unacknowledged AwsSolutions finding fails `cdk synth` and `cdk deploy`.
const app = new App();
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

const context = (key: string): string | undefined => app.node.tryGetContext(key)?.toString();
const shards = context('shards');
// `-c jobs='{"glue":{"jobs":["orders_etl"]}}'`: what the operators may start (JobsProps, as JSON).
const jobsContext: unknown = app.node.tryGetContext('jobs');
const jobs = typeof jobsContext === 'string' ? JSON.parse(jobsContext) : jobsContext;
new AirlessStack(app, 'Airless', {
  stackName: 'Airless',
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  airless: {
    alarmEmail: context('alarmEmail'),
    shards: shards === undefined ? undefined : Number(shards),
    removalPolicy: context('destroy') === 'true' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    jobs: jobs ?? undefined,
  },
});
app.synth();
