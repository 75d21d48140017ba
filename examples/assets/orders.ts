/**
 * Data-aware scheduling (docs/assets.md): a daily ingest writes raw orders and customers;
 * cleaning runs when raw orders land, the report when both clean orders and customers
 * are new, and the dashboard on either. Raw orders can also land from outside: an S3
 * object under raw/orders/ in the `lake` bucket is an event of the same asset.
 *
 *   npx airless run examples/assets --dag ingest_orders --time-warp --json
 */
import { allOf, anyOf, asset, dag, watch } from 'airless';

export const rawOrders = asset('s3://lake/raw/orders', {
  name: 'raw_orders',
  group: 'lake',
  watchers: [watch.s3({ bucket: 'lake', prefix: 'raw/orders/' })],
});
export const customers = asset('s3://lake/raw/customers', { name: 'customers', group: 'lake' });
export const cleanOrders = asset('s3://lake/clean/orders', { name: 'clean_orders', group: 'lake' });

export const ingest = dag('ingest_orders', { schedule: '@daily', startDate: '2026-01-01T00:00:00Z' }, ({ task }) => {
  const orders = task('orders', async (ctx) => {
    ctx.outletEvents(rawOrders).extra = { file: `raw/orders/${ctx.ds}.csv`, rows: 120 };
    return 120;
  }, { outlets: [rawOrders] });
  task('customers', async (ctx) => {
    ctx.outletEvents(customers).extra = { rows: 8 };
  }, { outlets: [customers] }).after(orders);
});

export const clean = dag('clean_orders', { schedule: rawOrders }, ({ task }) => {
  task('clean', async (ctx) => {
    const landed = ctx.triggeringAssetEvents[rawOrders.uri] ?? [];
    const rows = landed.reduce((n, e) => n + Number(e.extra.rows ?? 0), 0);
    ctx.log.info(`cleaning ${landed.length} batch(es) of raw orders`, { files: landed.map((e) => e.extra.file ?? e.extra.key).filter(Boolean) });
    ctx.outletEvents(cleanOrders).extra = { rows };
    return rows;
  }, { inlets: [rawOrders], outlets: [cleanOrders] });
});

export const report = dag('orders_report', { schedule: allOf(cleanOrders, customers) }, ({ task }) => {
  task('report', async (ctx) => Object.fromEntries(Object.entries(ctx.triggeringAssetEvents).map(([uri, events]) => [uri, events.length])),
    { inlets: [cleanOrders, customers] });
});

export const dashboard = dag('dashboard_refresh', { schedule: anyOf(cleanOrders, customers) }, ({ task }) => {
  task('refresh', async (ctx) => Object.keys(ctx.triggeringAssetEvents));
});
