/**
 * Declaring assets in DAG files: asset(), allOf/anyOf, schedules on assets, outlets and
 * inlets, watchers; invalid ones refused with the DAG and task named.
 */
import { describe, expect, it } from 'vitest';
import { allOf, anyOf, asset, dag, watch } from 'airless';
import { evaluateCondition } from '../../lib/engine/index.js';
import { dagError } from '../helpers/dag-spec.js';

const orders = asset('s3://lake/raw/orders/', { group: 'lake', extra: { owner: 'sales' } });
const customers = asset('s3://lake/raw/customers', { name: 'customers' });
const regions = asset('regions');

describe('asset()', () => {
  it('normalises the URI and defaults name and group as Airflow does', () => {
    expect(orders).toMatchObject({ uri: 's3://lake/raw/orders', name: 's3://lake/raw/orders', group: 'lake', extra: { owner: 'sales' } });
    expect(customers).toMatchObject({ uri: 's3://lake/raw/customers', name: 'customers', group: 'asset' });
    expect(regions.uri).toBe('regions');
    expect(orders.problem).toBeUndefined();
  });

  it('a list schedule means all of them; allOf/anyOf nest', () => {
    const list = dag('join', { schedule: [orders, customers] }, ({ task }) => { task('t', () => 1); });
    expect(list.spec).toMatchObject({ schedule: null, assetSchedule: { all: [{ asset: orders.uri }, { asset: customers.uri }] } });
    const nested = dag('refresh', { schedule: anyOf(orders, allOf(customers, regions)) }, ({ task }) => { task('t', () => 1); });
    const c = nested.spec.assetSchedule!;
    expect(c).toEqual({ any: [{ asset: orders.uri }, { all: [{ asset: customers.uri }, { asset: 'regions' }] }] });
    expect(evaluateCondition(c, new Set([customers.uri]))).toBe(false);
    expect(evaluateCondition(c, new Set([customers.uri, 'regions']))).toBe(true);
    expect(evaluateCondition(c, new Set([orders.uri]))).toBe(true);
    expect(nested.spec.assets!.map((a) => a.uri).sort()).toEqual([orders.uri, customers.uri, 'regions'].sort());
  });

  it('outlets and inlets are recorded on the task, and their assets on the DAG', () => {
    const d = dag('produce', { schedule: '@daily' }, ({ task }) => {
      task('write', () => 1, { outlets: [orders, customers], inlets: [regions] });
    });
    expect(d.spec.tasks[0]).toMatchObject({ outlets: [orders.uri, customers.uri], inlets: ['regions'] });
    expect(d.spec.assets).toEqual([
      { uri: orders.uri, name: orders.uri, group: 'lake', extra: { owner: 'sales' } },
      { uri: customers.uri, name: 'customers', group: 'asset' },
      { uri: 'regions', name: 'regions', group: 'asset' },
    ]);
  });

  it('watchers serialise into the asset', () => {
    const landed = asset('s3://lake/landing', {
      watchers: [
        watch.s3({ bucket: 'lake', prefix: 'landing/' }),
        watch.eventBridge({ pattern: { source: ['billing'] }, dedupField: 'detail.invoiceId', bus: 'airless' }),
        watch.sqs({ queue: 'arn:aws:sqs:eu-west-1:123456789012:orders-landed' }),
      ],
    });
    expect(landed.problem).toBeUndefined();
    const d = dag('on_landing', { schedule: landed }, ({ task }) => { task('t', () => 1); });
    expect(d.spec.assets![0]!.watchers).toEqual([
      { kind: 's3', name: 's3:lake/landing/', bucket: 'lake', prefix: 'landing/' },
      { kind: 'eventbridge', name: 'eventbridge:{"source":["billing"]}', bus: 'airless', pattern: { source: ['billing'] }, dedupField: 'detail.invoiceId' },
      { kind: 'sqs', name: 'sqs:orders-landed', queue: 'orders-landed' },
    ]);
  });
});

describe('invalid assets are refused where a DAG uses them, naming the DAG and task', () => {
  it.each([
    [() => dag('d', { schedule: asset('airflow://x') }, ({ task }) => { task('t', () => 1); }), /dag d: asset uri "airflow:\/\/x": the scheme "airflow" is reserved/],
    [() => dag('d', {}, ({ task }) => { task('t', () => 1, { outlets: [asset('s3://u:p@b/k')] }); }), /dag d: task t: .*must not contain credentials/],
    [() => dag('d', {}, ({ task }) => { task('t', () => 1, { outlets: ['s3://b/k' as never] }); }), /task t: outlets must list assets from asset\(\)/],
    [() => dag('d', {}, ({ sensor }) => { sensor('s', { type: 'file', pokeContext: { path: '/x' } }, { outlets: [orders] } as never); }), /task s: a sensor cannot have outlets/],
    [() => dag('d', { schedule: allOf() }, ({ task }) => { task('t', () => 1); }), /allOf\(\) needs at least one asset/],
    [() => dag('d', { schedule: asset('x', { name: 'self' }) }, ({ task }) => { task('t', () => 1); }), /prohibited name for asset: "self"/],
    [() => dag('d', { schedule: asset('x', { watchers: [watch.s3({ bucket: 'Bad_Bucket' })] }) }, ({ task }) => { task('t', () => 1); }), /watch.s3: bucket must be an S3 bucket name/],
    [() => dag('d', { schedule: asset('x', { watchers: [watch.eventBridge({ pattern: { source: 'billing' } })] }) }, ({ task }) => { task('t', () => 1); }), /watch.eventBridge: invalid pattern: source/],
    [() => dag('d', { schedule: [asset('x', { group: 'a' }), asset('x', { group: 'b' })] }, ({ task }) => { task('t', () => 1); }), /asset x is declared twice with different settings/],
  ])('%#', (f, msg) => {
    expect(dagError(f).message).toMatch(msg);
  });
});
