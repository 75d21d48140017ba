/**
 * A DAG written against Airflow 3.4's TypeScript SDK (`apache-airflow-ts-sdk`), built and
 * run by Airless unchanged: `npx airless run examples/airflow-ts-sdk --all --time-warp`.
 * No Airflow cluster, no Python coordinator, no Node 22 worker fleet: `airless build`
 * resolves the SDK's module name to Airless's implementation of its surface
 * (docs/airflow-ts-sdk.md).
 *
 * The graph: a task group extracting two regions, a named fan-in, a condition
 * (`dag.if`), a multi-way branch (`dag.switch`), order-only edges on references and on a
 * group, and the task client (variables, XComs, connections).
 */
import { Dag, getClient, getContext } from 'apache-airflow-ts-sdk';

interface RegionOrders {
  readonly region: string;
  readonly orders: number;
  readonly revenue: number;
}

export const dag = new Dag('ts_sdk_orders', {
  schedule: '@daily',
  startDate: new Date('2026-01-01T00:00:00Z'),
  catchup: false,
  maxActiveRuns: 1,
  tags: ['airflow-ts-sdk', 'example'],
  description: 'Orders per region, summarized, loaded when there are any, published daily or weekly.',
});

// --- a task group: ids `extract.eu` and `extract.us` --------------------------------------
const extract = dag.taskGroup('extract');

const eu = extract.task('eu', async (): Promise<RegionOrders> => {
  const orders = Number((await getClient().getVariable('ts_sdk_eu_orders')) ?? 12);
  return { region: 'eu', orders, revenue: orders * 40 };
});

const us = extract.task(
  'us',
  async (): Promise<RegionOrders> => {
    const orders = Number((await getClient().getVariable('ts_sdk_us_orders')) ?? 3);
    return { region: 'us', orders, revenue: orders * 30 };
  },
  { retries: 2, retryDelay: 30 },
);

// --- a named fan-in: the values arrive under the names the handler destructures -------------
const summarize = dag.task('summarize', async ({ eu, us }: { eu: RegionOrders; us: RegionOrders }) => {
  const orders = eu.orders + us.orders;
  await getClient().setXCom({ key: 'orders_total', value: orders });
  return { orders, revenue: eu.revenue + us.revenue };
});
const summary = summarize({ eu: eu(), us: us() });

// --- a condition: the side not taken is skipped ---------------------------------------------
const hasOrders = dag.task('has_orders', async ({ summary }: { summary: { orders: number } }) => summary.orders > 0);
const gate = hasOrders({ summary });

const load = dag.task('load', async () => {
  const total = await getClient().getXCom<number>({ key: 'orders_total', taskId: 'summarize' });
  return { loaded: total ?? 0 };
});
const reportEmpty = dag.task('report_empty', async () => ({ loaded: 0 }));
const loaded = load();
const empty = reportEmpty();
dag.if(gate).then(loaded).else(empty);

// --- a multi-way branch: the decider returns the reference of the case to run ---------------
const publishDaily = dag.task('publish_daily', async () => ({ cadence: 'daily', run: getContext().runId }));
const publishWeekly = dag.task('publish_weekly', async () => ({ cadence: 'weekly', run: getContext().runId }));
const daily = publishDaily();
const weekly = publishWeekly();

const pickCadence = dag.task('pick_cadence', async () => ((await getClient().getVariable('ts_sdk_cadence')) === 'weekly' ? weekly : daily));
const picked = pickCadence();
dag.switch(picked).case(daily).case(weekly);
// Order only: the decider reads no value of the group, it just comes after it.
extract.before(picked);

// --- order-only edges and a trigger rule ------------------------------------------------------
const cleanup = dag.task(
  'cleanup',
  async () => {
    const warehouse = await getClient().getConnection('ts_sdk_warehouse');
    return { warehouse: warehouse?.host ?? 'no connection ts_sdk_warehouse' };
  },
  { triggerRule: 'all_done' },
);
cleanup().after(loaded, empty, daily, weekly);
