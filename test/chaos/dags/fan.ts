/**
 * Fan-out, fan-in and trigger rules: `shard_c` fails every try in one run of three, so
 * `merge` (all_success over a, b) runs, `alert` (one_failed) runs or is skipped,
 * `cleanup` (all_done) always runs, and `report` (none_failed_min_one_success) follows.
 */
import { dag } from 'airless';
import { h, work } from './_chaos.js';

const unlucky = (runId: string) => h(runId) % 3 === 0;

export default dag('chaos_fan', {
  maxActiveRuns: 256,
  defaultArgs: { retries: 1, retryDelay: '1s', executionTimeout: '3s' },
}, ({ task }) => {
  const start = task('start', (ctx) => work(ctx));
  const a = task('shard_a', (ctx) => work(ctx, { failFirstTryOneIn: 3 }));
  const b = task('shard_b', (ctx) => work(ctx));
  const c = task('shard_c', (ctx) => work(ctx, { alwaysFail: unlucky }));
  const merge = task('merge', (ctx) => work(ctx));
  const alert = task('alert', (ctx) => work(ctx), { triggerRule: 'one_failed' });
  const cleanup = task('cleanup', (ctx) => work(ctx), { triggerRule: 'all_done' });
  const report = task('report', (ctx) => work(ctx), { triggerRule: 'none_failed_min_one_success' });
  start.before(a, b, c);
  merge.after(a, b);
  alert.after(a, b, c);
  cleanup.after(a, b, c);
  report.after(merge, cleanup);
});
