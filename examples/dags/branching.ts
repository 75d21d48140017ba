/**
 * Branching: `choose` follows `weekday` or `weekend` by the logical date; the other is
 * skipped; `join` (none_failed_min_one_success) runs after whichever ran. The edges out of
 * `choose` carry labels (Airflow's `Label`), drawn in the graph view.
 */
import { dag } from 'airless';

export default dag('branching', { schedule: '@daily', startDate: '2026-01-01T00:00:00Z', doc: 'Loads fully on weekdays, lightly at weekends.\n<b>not bold</b>' }, ({ task, branch }) => {
  const choose = branch('choose', async (ctx) => {
    const day = new Date(ctx.logicalDate).getUTCDay();
    return day === 0 || day === 6 ? 'weekend' : 'weekday';
  });
  const weekday = task('weekday', async () => 'full load');
  const weekend = task('weekend', async () => 'light load');
  const join = task('join', async () => 'joined', { triggerRule: 'none_failed_min_one_success' });
  choose.before(weekday, { label: 'Mon-Fri' });
  choose.before(weekend, { label: 'Sat, Sun' });
  join.after(weekday, weekend);
});
