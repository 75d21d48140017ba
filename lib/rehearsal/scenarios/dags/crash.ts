/**
 * Rehearsal scenario DAG: a try whose worker is killed; the tick's lease expiry fails it
 * and, with a 16-minute retry delay (past SQS's 15-minute delay), arms a one-time schedule.
 * The killed task is in a pool, so the lease expiry gives its pool slot back in the same
 * transaction as the task (the pool's counter lives in the kv table). Two tasks and
 * `maxActiveTasks: 1` make each move a slot transaction (the task and its run's counter in
 * one write, then the task read back).
 */
import { dag, definePool } from 'airless';

export const crashPool = definePool('rehearsal_crash', { slots: 2, description: 'the pool of the task the paths scenario kills' });

export default dag('rehearsal_crash', { schedule: null, maxActiveTasks: 1, defaultArgs: { retries: 1, retryDelay: '16m' } }, ({ task }) => {
  // The first try waits until the scenario kills its worker (ten minutes at most), so the
  // kill never depends on how fast the machine is; the retry returns at once.
  task('crash', async (ctx) => {
    if (ctx.tryNumber === 1) await new Promise((resolve) => setTimeout(resolve, 600_000));
    return 'survived';
  }, { pool: 'rehearsal_crash' });
  task('other', async () => 'ran beside it, one at a time');
});
