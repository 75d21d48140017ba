/**
 * Rehearsal scenario DAG: a deferral longer than SQS's 15-minute delay, so the worker
 * must create a one-time EventBridge Scheduler `at()` schedule to resume it.
 */
import { dag } from 'airless';

export default dag('rehearsal_long_wait', { schedule: null }, ({ task }) => {
  task('wait', {
    execute: async (ctx) => ctx.defer({ trigger: { after: '20m' }, resume: 'done', kwargs: { started: ctx.logicalDate }, timeout: '1h' }),
    done: async (ctx) => ctx.log.info('resumed by the one-time schedule'),
  });
});
