/**
 * An ETL chain with retries, typed inputs, params, run conf and a branch: the authoring
 * example from the README. `extract` fails its first try on purpose, to show a retry
 * with exponential backoff (instant under --time-warp). `transform({ rows: e.rows })`
 * wires extract -> transform and delivers the number, typed, as `transform`'s input.
 */
import { dag } from 'airless';

export default dag('etl_daily', {
  schedule: '0 2 * * *',
  timezone: 'Europe/Berlin',
  startDate: '2026-01-01T00:00:00Z',
  endDate: undefined, catchup: false, maxActiveRuns: 1, maxActiveTasks: 16,
  params: { region: 'eu' },
  defaultArgs: { retries: 2, retryDelay: '30s', retryExponentialBackoff: true, maxRetryDelay: '10m', executionTimeout: '5m' },
}, ({ task, branch }) => {
  const extract = task('extract', async (ctx) => {
    if (ctx.tryNumber === 1) throw new Error('source not ready yet (this first try fails on purpose)');
    return { rows: 42 };
  });
  const transform = task('transform', async (_ctx, { rows }: { rows: number }) => rows * 2);
  const audit = task('audit', async (ctx) => ctx.log.info(`for ${ctx.ds} in ${ctx.params.region}`), { retries: 0 });
  const load = task('load', async () => 'ok', { triggerRule: 'none_failed' });
  const pick = branch('pick', async (ctx) => (ctx.conf.full ? ['full'] : ['delta']));
  const full = task('full', async () => 1);
  const delta = task('delta', async () => 2);
  const e = extract();
  transform({ rows: e.rows });
  e.before(audit);
  load.after(transform, audit);
  load.before(pick).before(full, delta);
});
