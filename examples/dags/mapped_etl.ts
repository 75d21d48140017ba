/**
 * Dynamic task mapping in the typed style (docs/mapping.md): `size.expand(list())` maps over
 * a task's output, `total({ sizes })` receives the mapped results in map-index order; then
 * a task group, setup/teardown and a short-circuit gate, with a pool and callbacks.
 */
import { dag, definePool } from 'airless';

export const warehouse = definePool('warehouse', { slots: 4, description: 'the shared warehouse' });

export default dag('mapped_etl', {
  schedule: null, dagrunTimeout: '2h',
  onFailure: async (ctx) => { /* run-level callback: ctx.dagId, ctx.runId, ctx.state, ctx.failedTasks */ },
}, ({ task, group, shortCircuit }) => {
  const list = task('list_files', async () => ['a.csv', 'b.csv', 'c.csv']);
  const sizes = task('size', async (ctx, file: string) => file.length, {
    pool: 'warehouse', poolSlots: 1, priorityWeight: 5, maxActiveTisPerDagrun: 2,
    onRetry: async (ctx) => {}, onFailure: async (ctx) => {}, onSuccess: async (ctx) => {},
  }).expand(list());                                // one task instance per element of list's output; ctx.mapIndex is 0, 1, 2; adds the dependency list -> size
  task('pair', async (ctx, a: { x: number; y: string }) => `${a.x}${a.y}`)
    .expand({ x: [1, 2], y: ['p', 'q'] });          // several keys: the cross product (4 instances), as Airflow
  const total = task('total', async (_ctx, { sizes }: { sizes: number[] }) => sizes.reduce((s, n) => s + n, 0));
  const t = total({ sizes });                       // a mapped task's output: its values in map-index order

  const load = group('load', ({ task }) => {       // task ids 'load.stage' and 'load.publish'
    const stage = task('stage', async () => 1);
    const publish = task('publish', async () => 2);
    stage.before(publish);
  });
  t.before(load);                              // into a group: to its root tasks; out of a group: from its leaf tasks

  const create = task('create_cluster', async () => 'c-1');
  const work = task('work', async () => 42);
  const drop = task('drop_cluster', async () => 'dropped').asTeardown({ setups: create });
  create.before(work).before(drop);

  const gate = shortCircuit('gate', async (ctx) => ctx.conf.go !== false);   // falsy: skip everything downstream
  gate.before(task('after_gate', async () => 'ran'));
});
