/** A DAG whose first task waits for a signal that never comes, for the mark tests. */
import { dag } from '../../lib/sdk/index.js';

export function defineDag() {
  return dag('wait_then_report', { schedule: null }, ({ task }) => {
    const wait = task('wait', {
      execute: async (ctx) => ctx.defer({ trigger: { event: 'never-{{ ds }}' }, resume: 'done', timeout: '1d' }),
      done: async () => 'ok',
    });
    const report = task('report', async () => 'reported');
    wait.before(report);
  });
}
