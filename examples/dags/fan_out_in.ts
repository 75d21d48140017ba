/**
 * Fan-out and fan-in with mixed trigger rules and a failing branch. `shard_c` fails
 * (no retries); `publish` (none_failed) is upstream-failed; `alert` (one_failed) and
 * `cleanup` (all_done) run anyway; the leaf `report` (all_done) succeeds, so the run
 * succeeds, as it would in Airflow.
 */
import { dag } from 'airless';

export default dag('fan_out_in', { schedule: null, defaultArgs: { retries: 0 } }, ({ task }) => {
  const start = task('start', async () => ['a', 'b', 'c']);
  const a = task('shard_a', async () => 10);
  const b = task('shard_b', async () => 20);
  const c = task('shard_c', async () => { throw new Error('shard c is corrupt (fails on purpose)'); });
  const merge = task('merge', async (_ctx, { a, b }: { a: number; b: number }) => a + b);
  const publish = task('publish', async () => 'published', { triggerRule: 'none_failed' });
  const alert = task('alert', async (ctx) => ctx.log.warn('a shard failed'), { triggerRule: 'one_failed' });
  const cleanup = task('cleanup', async () => 'clean', { triggerRule: 'all_done' });
  const report = task('report', async () => 'done', { triggerRule: 'all_done' });
  start.before(a, b, c);
  merge({ a: a(), b: b() });                       // wires shard_a -> merge and shard_b -> merge
  publish.after(a, b, c);
  alert.after(c);
  cleanup.after(a, b, c);
  report.after(merge, publish, alert, cleanup);
});
