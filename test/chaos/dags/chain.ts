/** A six-task chain; about one task in four fails its first try and is retried. */
import { chain, dag } from 'airless';
import { work } from './_chaos.js';

export default dag('chaos_chain', {
  maxActiveRuns: 256,
  defaultArgs: { retries: 2, retryDelay: '1s', executionTimeout: '3s' },
}, ({ task }) => {
  chain(...['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((id) => task(id, (ctx) => work(ctx, { failFirstTryOneIn: 4 }))));
});
