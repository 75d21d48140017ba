/**
 * Rehearsal scenario DAG: valid here, but the faults scenario rewrites its cron in the
 * manifest to one EventBridge cannot take (both day fields restricted).
 */
import { dag } from 'airless';

export default dag('rehearsal_bad_cron', { schedule: '0 0 1 * *', startDate: '2026-01-01T00:00:00Z' }, ({ task }) => {
  task('never', async () => 'never runs');
});
