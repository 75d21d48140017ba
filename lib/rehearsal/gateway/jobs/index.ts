/**
 * The job services the gateway serves in process, after IAM like every other call: ECS, Batch,
 * Glue, Step Functions, Athena and EMR Serverless run simulated jobs (sim.ts) whose state
 * changes go to the default event bus; Lambda's Invoke hands the call to the rehearsal.
 */
import type { Scope } from '../checks.js';
import { GatewayError, type Service } from '../errors.js';
import type { JobHandling, JobModule, JobRequest } from './api.js';
import { athena, type ObjectWriter } from './athena.js';
import { batch } from './batch.js';
import { ecs } from './ecs.js';
import { emrServerless } from './emr.js';
import { glue } from './glue.js';
import { lambdaInvoke, type LambdaInvoker } from './lambda.js';
import { sfn } from './sfn.js';
import type { JobRunner } from './sim.js';

export { JobRunner, type JobBehaviour, type JobSelector, type JobService, type SimJob } from './sim.js';
export type { LambdaInvoker } from './lambda.js';
export type { ObjectWriter } from './athena.js';
export type { JobResources } from './resources.js';

/** X-Amz-Target prefixes of the JSON protocols. */
const TARGETS: Partial<Record<Service, string>> = {
  ecs: 'AmazonEC2ContainerServiceV20141113.', glue: 'AWSGlue.', athena: 'AmazonAthena.', states: 'AWSStepFunctions.',
};

export const JOB_SERVICES = new Set<Service>(['ecs', 'batch', 'glue', 'states', 'athena', 'emr-serverless', 'lambda']);

/** The hooks a rehearsal gives the job services: where Athena writes results, how a function is invoked. */
export interface JobHooks {
  writeObject?: ObjectWriter;
  lambda?: LambdaInvoker;
}

/**
 * @example
 * const { checks, serve } = jobsRequest(request, runner, scope, hooks);
 */
export function jobsRequest(r: JobRequest, runner: JobRunner, scope: Scope, hooks: JobHooks): JobHandling {
  const prefix = TARGETS[r.service];
  if (prefix !== undefined && !r.target.startsWith(prefix)) throw new GatewayError(`${r.service} request without an operation in X-Amz-Target: '${r.target}'`);
  const routed: JobRequest = prefix === undefined ? r : { ...r, target: r.target.slice(prefix.length) };
  const modules: Partial<Record<Service, JobModule>> = {
    ecs, batch, glue, states: sfn, 'emr-serverless': emrServerless,
    athena: athena(async (bucket, key, body) => {
      if (!hooks.writeObject) throw new GatewayError('the rehearsal gave Athena nowhere to write results');
      await hooks.writeObject(bucket, key, body);
    }),
    lambda: lambdaInvoke(() => hooks.lambda),
  };
  const module = modules[r.service];
  if (!module) throw new GatewayError(`the gateway does not serve the '${r.service}' service`);
  return module(routed, runner, scope);
}
