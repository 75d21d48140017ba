/**
 * A cron DAG with a timezone and catch-up: every 6 hours, New York time, from
 * 2026-03-07. Under `airless dev` every missed tick since startDate gets a run, with
 * logical date = the tick and data interval = (previous tick, tick] (Airflow 3's
 * trigger timetable), across the 2026-03-08 DST change.
 */
import { dag } from 'airless';

export default dag('hourly_catchup', {
  schedule: '0 */6 * * *',
  timezone: 'America/New_York',
  startDate: '2026-03-07T00:00:00-05:00',
  endDate: '2026-03-10T00:00:00-04:00',
  catchup: true,
  maxActiveRuns: 4,
}, ({ task }) => {
  task('window', async (ctx) => `${ctx.dataIntervalStart} .. ${ctx.dataIntervalEnd}`);
});
