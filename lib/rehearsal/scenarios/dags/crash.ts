/**
 * Rehearsal scenario DAG: a try whose worker is killed; the tick's lease expiry fails it
 * and, with a 16-minute retry delay (past SQS's 15-minute delay), arms a one-time schedule. Two tasks and
 * `maxActiveTasks: 1` make each move a slot transaction (the task and its run's counter in
 * one write, then the task read back).
 */
import { dag } from 'airless';

export default dag('rehearsal_crash', { schedule: null, maxActiveTasks: 1, defaultArgs: { retries: 1, retryDelay: '16m' } }, ({ task }) => {
  task('crash', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    return 'survived';
  });
  task('other', async () => 'ran beside it, one at a time');
});
