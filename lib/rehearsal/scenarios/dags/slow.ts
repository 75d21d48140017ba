/** Rehearsal scenario DAG: a task slow enough to be killed mid-batch. */
import { dag } from 'airless';

export default dag('rehearsal_slow', { schedule: null, defaultArgs: { retries: 2, retryDelay: '1m' } }, ({ task }) => {
  task('slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    return 'done';
  });
});
