/**
 * The DAG the chaos run backfills: a three-task chain, so that each run writes evidence
 * lines from its start to its end (checks.ts measures how many of the backfill's runs
 * overlap); one task in five fails its first try.
 */
import { chain, dag } from 'airless';
import { work } from './_chaos.js';

export default dag('chaos_backfill', {
  schedule: '@daily',
  maxActiveRuns: 1,
  defaultArgs: { retries: 2, retryDelay: '1s', executionTimeout: '3s' },
}, ({ task }) => {
  chain(...['b1', 'b2', 'b3'].map((id) => task(id, (ctx) => work(ctx, { failFirstTryOneIn: 5 }))));
});
