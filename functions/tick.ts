/**
 * Tick (every minute): the reconcile pass. Safe to overlap with itself, workers and
 * pokers: every action it takes is a compare-and-set.
 */
import middy from '@middy/core';
import { reconcile } from '../lib/engine/index.js';
import { flushMetrics, lambdaPorts } from '../lib/adapters/aws/lambda.js';

export const run = async () => {
  const ports = lambdaPorts();
  const report = await reconcile(ports, { schedules: true });
  ports.log.info('reconciled', { ...report, nextTicks: Object.keys(report.nextTicks).length });
  return report;
};

export const handler = middy(run).use(flushMetrics());
