/**
 * What every Lambda handler shares: ports built once per container (on first use, so a
 * test can set the environment first) and a middy middleware that publishes the EMF
 * metrics at the end of each invocation.
 */
import type middy from '@middy/core';
import { EmfMetrics } from './metrics.js';
import { PowertoolsLog } from './log.js';
import { awsPorts, readAwsEnv, type AwsPorts } from './wiring.js';
import type { AwsClients } from './clients.js';

let cached: AwsPorts | undefined;

/** The container's ports; `clients` replaces the SDK clients (tests, LocalStack). */
export function lambdaPorts(opts: { clients?: AwsClients; reset?: boolean } = {}): AwsPorts {
  if (!cached || opts.reset) {
    cached = awsPorts(readAwsEnv(process.env), {
      clients: opts.clients,
      metrics: new EmfMetrics(),
      log: new PowertoolsLog(),
      cacheDir: process.env.AIRLESS_BUNDLE_CACHE ?? '/tmp/airless-bundles',
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
