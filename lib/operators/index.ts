/**
 * The job drivers: one per operator type, each the AWS SDK calls of its service (submit,
 * describe, stop) and the reading of its end event. Runtimes pass them to the engine in
 * `Ports.jobs`; tests pass mocks (mock.ts) instead.
 */
import type { JobDrivers } from '../engine/index.js';
import { athena } from './athena.js';
import { batch } from './batch.js';
import { ecs } from './ecs.js';
import { emrServerless } from './emr-serverless.js';
import { glue } from './glue.js';
import { lambda } from './lambda.js';
import { sfn } from './sfn.js';
import type { JobClientOptions, JobService } from './shared.js';

export { awsFailure, type JobClientOptions, type JobService, type SimulatedEnd } from './shared.js';
export { MockJobs, type MockJobCall, type MockJobResult, type OperatorMock } from './mock.js';

/** Every service, by operator type. */
export const JOB_SERVICES: Readonly<Record<string, JobService>> = Object.fromEntries(
  [ecs, batch, glue, sfn, athena, emrServerless, lambda].map((s) => [s.type, s]),
);

/**
 * The AWS drivers of every operator; each makes its SDK client on first use.
 *
 * @example
 * const ports = { ...base, jobs: awsJobDrivers() };                         // Lambda: role and region from the environment
 * const local = awsJobDrivers({ endpoint: 'http://127.0.0.1:4566' });         // a rehearsal or LocalStack
 */
export function awsJobDrivers(opts: JobClientOptions = {}): JobDrivers {
  return Object.fromEntries(Object.values(JOB_SERVICES).map((s) => [s.type, s.driver(opts)]));
}
