/**
 * The operators' job drivers of a local runtime (`airless run`, `airless dev`): the AWS
 * SDK's with your credentials (AIRLESS_AWS_ENDPOINT points them at a rehearsal or
 * LocalStack), or, with `--mock-operators`, simulated jobs that succeed a minute after they
 * start. No end event reaches a laptop: locally the safety net's describe finds each real
 * job's end, every minute instead of every 15.
 */
import type { EmbeddedRuntime } from '../runtime/embedded.js';
import type { EngineConfig, JobDrivers } from '../engine/index.js';
import { awsJobDrivers, JOB_SERVICES, MockJobs } from '../operators/index.js';

/** How often a local runtime describes a job (no end event comes to it). */
export const LOCAL_SAFETY_NET_MS = 60_000;

/**
 * @example
 * let rt: EmbeddedRuntime;
 * const jobs = localJobs(() => rt, { mock: true });
 * rt = new EmbeddedRuntime({ bundles, jobs: jobs.drivers, config: jobs.config });
 */
export function localJobs(runtime: () => EmbeddedRuntime, o: { mock?: boolean; env?: NodeJS.ProcessEnv } = {}): { drivers: JobDrivers; config: Partial<EngineConfig> } {
  if (o.mock) {
    const mocks = Object.fromEntries(Object.keys(JOB_SERVICES).map((type) => [type, () => ({ after: '1m' })]));
    const jobs = new MockJobs(mocks, JOB_SERVICES, { now: () => runtime().clock.now(), deliver: (event, at) => runtime().scheduleEvent(event, at) });
    return { drivers: jobs.drivers(), config: {} };
  }
  const endpoint = (o.env ?? process.env).AIRLESS_AWS_ENDPOINT;
  return { drivers: awsJobDrivers(endpoint ? { endpoint } : {}), config: { jobSafetyNetMs: LOCAL_SAFETY_NET_MS } };
}
