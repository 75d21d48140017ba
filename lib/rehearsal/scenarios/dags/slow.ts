/**
 * Rehearsal scenario DAG: a task slow enough to be killed mid-batch. Its first try waits
 * until the scenario kills its worker (ten minutes at most), so the kill never depends on
 * how fast the machine is; the retry returns at once.
 */
import { dag } from 'airless';

export default dag('rehearsal_slow', { schedule: null, defaultArgs: { retries: 2, retryDelay: '1m' } }, ({ task }) => {
  task('slow', async (ctx) => {
    if (ctx.tryNumber === 1) await new Promise((resolve) => setTimeout(resolve, 600_000));
    return 'done';
  });
});
