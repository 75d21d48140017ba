import { describe, expect, it } from 'vitest';
import { InvalidDagError, priorityWeights, type WeightRule } from '../../../lib/engine/index.js';
import { waitRank } from '../../../lib/engine/pool-limits.js';
import { dag, definePool } from '../../../lib/sdk/index.js';

/** Edges as `a>b`; every task weight 1 unless given. */
function graph(edges: string[], ids: string[]) {
  const tasks = ids.map((taskId) => ({ taskId, upstream: [] as string[], downstream: [] as string[] }));
  const byId = new Map(tasks.map((t) => [t.taskId, t]));
  for (const e of edges) {
    const [a, b] = e.split('>');
    byId.get(a)!.downstream.push(b);
    byId.get(b)!.upstream.push(a);
  }
  return tasks;
}

const own = (rule: WeightRule, weights: Record<string, number> = {}, ids: string[] = []) =>
  new Map(ids.map((id) => [id, { weight: weights[id] ?? 1, rule }]));

describe('priority weight rules, as Airflow computes priority_weight_total', () => {
  // Airflow's documented rules (docs: "Priority Weights"; priority_weight_total adds the
  // own priority_weight of each flat relative once). The docs give no figures, so this is
  // the smallest DAG that shows them: t1 >> [t2, t3] >> t4, every weight 1. `downstream`
  // weighs the root most (t1: 1 + 3), so upstream tasks of all runs go first; `upstream`
  // weighs the leaf most (t4: 1 + 3), so started runs finish first; `absolute` keeps 1.
  const ids = ['t1', 't2', 't3', 't4'];
  const tasks = graph(['t1>t2', 't1>t3', 't2>t4', 't3>t4'], ids);

  it('downstream: own weight plus every downstream task once (the diamond counts t4 once)', () => {
    expect(Object.fromEntries(priorityWeights(tasks, own('downstream', {}, ids)))).toEqual({ t1: 4, t2: 2, t3: 2, t4: 1 });
  });

  it('upstream: own weight plus every upstream task once', () => {
    expect(Object.fromEntries(priorityWeights(tasks, own('upstream', {}, ids)))).toEqual({ t1: 1, t2: 2, t3: 2, t4: 4 });
  });

  it('absolute: the own weight only', () => {
    expect(Object.fromEntries(priorityWeights(tasks, own('absolute', { t1: 7, t4: 3 }, ids)))).toEqual({ t1: 7, t2: 1, t3: 1, t4: 3 });
  });

  it('relatives count with their own weights, not their totals; rules mix per task as in Airflow', () => {
    const w = new Map([
      ['t1', { weight: 2, rule: 'downstream' as const }],
      ['t2', { weight: 10, rule: 'absolute' as const }],
      ['t3', { weight: 5, rule: 'upstream' as const }],
      ['t4', { weight: 100, rule: 'downstream' as const }],
    ]);
    expect(Object.fromEntries(priorityWeights(tasks, w))).toEqual({ t1: 2 + 10 + 5 + 100, t2: 10, t3: 5 + 2, t4: 100 });
  });

  it('weights are clamped to 32 bits (Airflow db_safe_priority)', () => {
    const big = own('downstream', { t1: 2 ** 31 - 1, t2: 5 }, ids);
    expect(priorityWeights(tasks, big).get('t1')).toBe(2 ** 31 - 1);
  });

  it('the waiting order is weight first (high first), then the time waited, then the key', () => {
    const ranks = [waitRank(1, 200, 'd/r/a'), waitRank(5, 300, 'd/r/b'), waitRank(1, 100, 'd/r/c'), waitRank(-3, 0, 'd/r/d'), waitRank(5, 300, 'd/r/a')];
    expect(ranks.map((r, i) => [r, i] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, i]) => i)).toEqual([4, 1, 2, 0, 3]);
  });
});

describe('the authoring API', () => {
  it('the issue example: definePool, pool options and the computed weight land in the spec', () => {
    const warehouse = definePool('warehouse', { slots: 4, description: 'the shared warehouse' });
    expect(warehouse).toEqual({ __airless: 'pool', name: 'warehouse', slots: 4, description: 'the shared warehouse' });
    const d = dag('pooled', {}, ({ task }) => {
      const list = task('list_files', async () => ['a.csv']);
      const size = task('size', async () => 1, { pool: 'warehouse', poolSlots: 1, priorityWeight: 5, maxActiveTisPerDagrun: 2 });
      const total = task('total', async () => 2, { pool: warehouse, maxActiveTisPerDag: 3 });
      list.before(size).before(total);
    });
    const byId = Object.fromEntries(d.spec.tasks.map((t) => [t.taskId, t]));
    expect(byId.size).toMatchObject({ pool: 'warehouse', poolSlots: 1, priorityWeight: 6, maxActiveTisPerDagrun: 2 });
    expect(byId.total).toMatchObject({ pool: 'warehouse', priorityWeight: 1, maxActiveTisPerDag: 3 });
    // A task without limits keeps the spec it always had.
    expect(Object.keys(byId.list_files)).not.toContain('priorityWeight');
    expect(d.pools).toEqual([warehouse]);
  });

  it('defaultArgs carry pool options to every task', () => {
    definePool('shared', { slots: 2 });
    const d = dag('defaults', { defaultArgs: { pool: 'shared', weightRule: 'upstream' } }, ({ task }) => {
      task('a', () => 1).before(task('b', () => 2));
    });
    expect(d.spec.tasks.map((t) => [t.taskId, t.pool, t.priorityWeight])).toEqual([['a', 'shared', 1], ['b', 'shared', 2]]);
  });

  it.each([
    [() => definePool('bad name', { slots: 1 }), 'invalid pool name "bad name"'],
    [() => definePool('p', { slots: 0 }), 'pool "p": slots must be an integer >= 1, got 0'],
    [() => dag('x', {}, ({ task }) => { task('a', () => 1, { pool: 'p', poolSlots: 0 }); }), 'dag x: task a: poolSlots must be an integer >= 1, got 0'],
    [() => dag('x', {}, ({ task }) => { task('a', () => 1, { poolSlots: 2 }); }), 'dag x: task a: poolSlots is set but pool is not'],
    [() => dag('x', {}, ({ task }) => { task('a', () => 1, { priorityWeight: 1.5 }); }), 'dag x: task a: priorityWeight must be an integer, got 1.5'],
    [() => dag('x', {}, ({ task }) => { task('a', () => 1, { maxActiveTisPerDag: -1 }); }), 'dag x: task a: maxActiveTisPerDag must be an integer >= 1, got -1'],
  ])('bad input is refused with one clear line (%#)', (f, message) => {
    expect(f).toThrow(InvalidDagError);
    expect(f).toThrow(message);
  });
});
