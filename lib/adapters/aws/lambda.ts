/**
 * What every Lambda handler shares: ports built once per container (on first use, so a
 * test can set the environment first) and a middy middleware that publishes the EMF
 * metrics at the end of each invocation.
 */
import type middy from '@middy/core';
import { EmfMetrics } from './metrics.js';
import { PowertoolsLog } from './log.js';
import { awsPorts, type AwsPorts } from './wiring.js';
import { readAwsEnv } from './stack-contract.js';
import { makeClients, type AwsClients } from './clients.js';
import { awsJobDrivers } from '../../operators/index.js';

let cached: AwsPorts | undefined;

/** The container's ports; `clients` replaces the SDK clients (tests, LocalStack). */
export function lambdaPorts(opts: { clients?: AwsClients; reset?: boolean } = {}): AwsPorts {
  if (!cached || opts.reset) {
    cached = awsPorts(readAwsEnv(process.env), {
      clients: opts.clients ?? endpointClients(process.env),
      metrics: new EmfMetrics(),
      log: new PowertoolsLog(),
      cacheDir: process.env.AIRLESS_BUNDLE_CACHE ?? '/tmp/airless-bundles',
      jobs: awsJobDrivers(endpointOptions(process.env)),
    });
  }
  return cached;
}

/** Publishes the invocation's metrics, whatever the outcome. */
export function flushMetrics(): middy.MiddlewareObj {
  const flush = async () => {
    const m = cached?.metrics;
    if (m instanceof EmfMetrics) m.flush();
  };
  return { after: flush, onError: flush };
}

/**
 * LocalStack sets AWS_ENDPOINT_URL in its Lambda containers (real Lambda never does).
 * The SDK would honour it by itself, but S3 would then address buckets as virtual hosts
 * of that endpoint; makeClients uses path-style S3 for explicit endpoints.
 */
function endpointClients(env: NodeJS.ProcessEnv): AwsClients | undefined {
  const o = endpointOptions(env);
  if (!o.endpoint) return undefined;
  const endpoint = o.endpoint;
  return makeClients({
    region: o.region, credentials: o.credentials,
    endpoints: { dynamodb: endpoint, sqs: endpoint, s3: endpoint, scheduler: endpoint, ssm: endpoint, secretsmanager: endpoint },
  });
}

/** The endpoint, region and credentials of AWS_ENDPOINT_URL's environment (none without it). */
function endpointOptions(env: NodeJS.ProcessEnv) {
  const endpoint = env.AWS_ENDPOINT_URL;
  if (!endpoint) return {};
  const credentials = env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
    ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN }
    : { accessKeyId: 'test', secretAccessKey: 'test' };
  return { endpoint, region: env.AWS_REGION, credentials };
}
