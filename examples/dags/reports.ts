/**
 * Waiting without holding a slot: a batched file sensor, a reschedule-mode custom
 * sensor, a deferrable task resumed by a timer, and one resumed by an external signal
 * (`airless signal approve-<ds>`). Nothing occupies a worker while it waits.
 */
import { dag, defineSensor } from 'airless';

export const partitionReady = defineSensor('partition_ready',
  async (pc: { table: string; ds: string }) => pc.table.length > 0 /* ask a catalog */);

export default dag('reports', {
  schedule: '@daily', startDate: '2026-01-01T00:00:00Z',
  params: { inbox: 'examples/data' },
}, ({ task, sensor }) => {
  const landed = sensor('landed', { type: 'file', pokeContext: { path: '{{ params.inbox }}/{{ ds }}.csv' } },
                        { pokeInterval: '3m', timeout: '6h', softFail: false });
  const ready = sensor('ready', { type: 'partition_ready', pokeContext: { table: 'sales', ds: '{{ ds }}' } },
                       { mode: 'reschedule', pokeInterval: '5m', exponentialBackoff: true });
  const job = task('job', {
    execute: async (ctx) => ctx.defer({ trigger: { after: '10m' }, resume: 'check', kwargs: { jobId: 'j-1' }, timeout: '2h' }),
    check: async (ctx, { kwargs }) => (kwargs.jobId === 'j-1' ? 'done' : ctx.defer({ trigger: { after: '10m' }, resume: 'check', kwargs })),
  });
  const approve = task('approve', {
    execute: async (ctx) => ctx.defer({ trigger: { event: 'approve-{{ ds }}' }, resume: 'done', timeout: '1d' }),
    done: async (ctx, { event }) => event.payload,
  });
  job.after(landed, ready);
  job.before(approve);
});
