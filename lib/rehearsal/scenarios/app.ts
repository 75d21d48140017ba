/**
 * The CDK app the rehearsal scenarios synthesize (`cdk synth --app`): the default Airless
 * stack as bin/app.ts makes it, plus the stand-ins for what a user's account has that some
 * scenarios need (data-scaffold.ts). `airless rehearse` without a scenario uses bin/app.ts.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AirlessStack } from '../../infra/stack.js';
import { DataScaffold } from './data-scaffold.js';

const app = new App();
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
const shards = app.node.tryGetContext('shards')?.toString();
const stack = new AirlessStack(app, 'Airless', {
  stackName: 'Airless',
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  airless: { shards: shards === undefined ? undefined : Number(shards) },
});
new DataScaffold(stack, 'RehearsalData', stack.airless);
app.synth();
