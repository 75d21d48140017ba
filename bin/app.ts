import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AirlessStack } from '../lib/infra/stack.js';

// cdk-nag is a gate: an unacknowledged AwsSolutions finding fails `cdk synth`.
const app = new App();
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
new AirlessStack(app, 'Airless', {
  stackName: 'Airless',
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  airless: {
    alarmEmail: app.node.tryGetContext('alarmEmail'),
    shards: app.node.tryGetContext('shards') === undefined ? undefined : Number(app.node.tryGetContext('shards')),
  },
});
app.synth();
