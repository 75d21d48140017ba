/** A deferrable task resumed by a short `after` trigger, between two plain tasks. */
import { chain, dag } from 'airless';
import { logLine, work } from './_chaos.js';

export default dag('chaos_defer', {
  maxActiveRuns: 256,
  defaultArgs: { retries: 2, retryDelay: '1s', executionTimeout: '3s' },
}, ({ task }) => {
  const prep = task('prep', (ctx) => work(ctx));
  const wait = task('wait', {
    execute: (ctx) => {
      logLine({ kind: 'task', run: `${ctx.dagId}/${ctx.runId}`, task: ctx.taskId, try: ctx.tryNumber, method: 'execute' });
      return ctx.defer({ trigger: { after: '2s' }, resume: 'done', kwargs: { n: 1 }, timeout: '90s' });
    },
    done: async (ctx, input) => `${await work(ctx, { method: 'done' })}:${input.kwargs.n}`,
  });
  const after = task('after', (ctx) => work(ctx));
  chain(prep, wait, after);
});
