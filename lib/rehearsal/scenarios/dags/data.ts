/**
 * Rehearsal scenario DAGs for assets fed from outside and by tasks (scenario `data`):
 * - `rehearsal_on_landing` runs on an S3 object under landing/ of the scaffold's bucket, and
 *   its task's outlet `rehearsal.clean` carries the files it saw;
 * - `rehearsal_both` waits for both the clean data and an invoice (an EventBridge event,
 *   deduplicated by its invoice id);
 * - `rehearsal_either` runs on an invoice or an order (an SQS message, deduplicated by its
 *   order id).
 */
import { allOf, anyOf, asset, dag, watch } from 'airless';

export const landing = asset('s3://rehearsal-lake/landing', { watchers: [watch.s3({ bucket: 'rehearsal-lake', prefix: 'landing/' })] });
export const invoices = asset('rehearsal.invoices', {
  watchers: [watch.eventBridge({ pattern: { source: ['rehearsal.billing'], 'detail-type': ['Invoice Closed'] }, dedupField: 'detail.invoiceId' })],
});
export const orders = asset('rehearsal.orders', { watchers: [watch.sqs({ queue: 'rehearsal-orders', dedupField: 'orderId' })] });
export const clean = asset('rehearsal.clean');

export const onLanding = dag('rehearsal_on_landing', { schedule: landing }, ({ task }) => {
  task('load', async (ctx) => {
    const keys = (ctx.triggeringAssetEvents[landing.uri] ?? []).map((e) => String(e.extra.key));
    ctx.outletEvents(clean).extra = { keys };
    return keys;
  }, { outlets: [clean], inlets: [landing] });
});

export const both = dag('rehearsal_both', { schedule: allOf(clean, invoices) }, ({ task }) => {
  task('join', async (ctx) => Object.fromEntries(Object.entries(ctx.triggeringAssetEvents).map(([uri, events]) => [uri, events.length])));
});

export const either = dag('rehearsal_either', { schedule: anyOf(invoices, orders) }, ({ task }) => {
  task('react', async (ctx) => Object.keys(ctx.triggeringAssetEvents));
});
