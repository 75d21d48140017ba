/**
 * `airless/infra`: the CDK constructs. `AirlessStack` is the default deployment with the
 * outputs the CLI reads; `Airless` is the construct to put in a stack of your own.
 *
 * @example
 * import { App } from 'aws-cdk-lib';
 * import { AirlessStack } from 'airless/infra';
 * new AirlessStack(new App(), 'Airless', { airless: { alarmEmail: 'ops@example.com' } });
 */
export { Airless, type AirlessProps } from '../infra/airless.js';
export { AirlessStack, type AirlessStackProps } from '../infra/stack.js';
export { AssetSources, type AssetSourcesProps, type AssetBucketSource, type AssetEventPatternSource } from '../infra/asset-sources.js';
export { Events, type EventsProps } from '../infra/events.js';
export { grantJobs, jobStatements, type JobsProps } from '../infra/jobs.js';
