/**
 * Tick (every minute): the reconcile pass, then the poker schedules' safety net. Safe to
 * overlap with itself, workers and pokers: every action it takes is a compare-and-set.
 */
import middy from '@middy/core';
import { checkPokerSchedules, reconcile } from '../lib/engine/index.js';
import { flushMetrics, lambdaPorts } from '../lib/adapters/aws/lambda.js';

export const run = async () => {
  const ports = lambdaPorts();
  const report = await reconcile(ports, { schedules: true });
  const pokers = await checkPokerSchedules(ports);
  ports.log.info('reconciled', { ...report, nextTicks: Object.keys(report.nextTicks).length, ...(pokers.enabled.length ? { pokersEnabled: pokers.enabled } : {}) });
  return report;
};

export const handler = middy(run).use(flushMetrics());
