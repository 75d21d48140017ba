/**
 * Authoring of task groups, setup/teardown, shortCircuit, dagrunTimeout and dependsOnPast,
 * as the example writes them, and the build-time refusals.
 */
import { describe, expect, it } from 'vitest';
import { chain, dag } from 'airless';
import { validateDagSpec } from '../../lib/engine/index.js';
import { dagError, edges } from '../helpers/dag-spec.js';

const spec = (d: ReturnType<typeof dag>, id: string) => d.spec.tasks.find((t) => t.taskId === id)!;

describe('task groups', () => {
  it('prefixes ids, links into the roots and out of the leaves, and records the group', () => {
    const d = dag('groups', {}, ({ task, group }) => {
      const total = task('total', () => 1);
      const load = group('load', ({ task }) => {
        const stage = task('stage', async () => 1);
        const publish = task('publish', async () => 2);
        stage.before(publish);
      });
      total.before(load);
      load.before(task('report', () => 3));
    });
    expect(d.spec.tasks.map((t) => t.taskId).sort()).toEqual(['load.publish', 'load.stage', 'report', 'total']);
    expect(edges(d)).toEqual(['load.publish>report', 'load.stage>load.publish', 'total>load.stage']);
    expect(spec(d, 'load.stage').group).toBe('load');
    expect(spec(d, 'total').group).toBeUndefined();
  });

  it('nests groups, chains through them, and takes group defaultArgs', () => {
    let handle: { groupId: string; taskIds: readonly string[] } | undefined;
    const d = dag('nested', { defaultArgs: { retries: 1 } }, ({ task, group }) => {
      const a = task('a', () => 1);
      const outer = group('outer', { defaultArgs: { retries: 3 } }, ({ task, group }) => {
        const x = task('x', () => 1);
        const inner = group('inner', ({ task }) => {
          task('p', () => 1);
          task('q', () => 1, { retries: 0 });
        });
        x.before(inner);
        handle = inner;
      });
      chain(a, outer, task('z', () => 1));
    });
    expect(handle!.groupId).toBe('outer.inner');
    expect([...handle!.taskIds].sort()).toEqual(['outer.inner.p', 'outer.inner.q']);
    expect(edges(d)).toEqual(['a>outer.x', 'outer.inner.p>z', 'outer.inner.q>z', 'outer.x>outer.inner.p', 'outer.x>outer.inner.q']);
    expect(spec(d, 'outer.inner.p')).toMatchObject({ group: 'outer.inner', retries: 3 });
    expect(spec(d, 'outer.inner.q').retries).toBe(0);
    expect(spec(d, 'a').retries).toBe(1);
  });

  it('linking out of a group ending in a teardown starts from the work, not the teardown', () => {
    const d = dag('group_td', {}, ({ task, group }) => {
      const g = group('g', ({ task }) => {
        const create = task('create', () => 1);
        const work = task('work', () => 1);
        const drop = task('drop', () => 1).asTeardown({ setups: create });
        create.before(work).before(drop);
      });
      g.before(task('after', () => 1));
    });
    expect(edges(d)).toContain('g.work>after');
    expect(edges(d)).not.toContain('g.drop>after');
  });

  it('prefixGroupId false keeps task ids unprefixed', () => {
    const d = dag('noprefix', {}, ({ group }) => {
      group('g', { prefixGroupId: false }, ({ task }) => { task('t', () => 1); });
    });
    expect(spec(d, 't').group).toBe('g');
  });

  it('refuses duplicate ids, a duplicate group and a bad group id, naming the DAG', () => {
    const dup = dagError(() => dag('dup', {}, ({ task, group }) => {
      task('load.stage', () => 1);
      group('load', ({ task }) => { task('stage', () => 1); });
    }));
    expect(dup.message).toMatch(/dup.*duplicate task id "load\.stage"/s);
    expect(dagError(() => dag('dupg', {}, ({ group }) => {
      group('g', () => {});
      group('g', () => {});
    })).message).toMatch(/duplicate group id "g"/);
    expect(dagError(() => dag('badg', {}, ({ group }) => { group('a b', () => {}); })).message).toMatch(/invalid group id "a b"/);
  });
});

describe('setup and teardown', () => {
  it('asTeardown marks the setups, links them and sets the teardown rule', () => {
    const d = dag('st', {}, ({ task }) => {
      const create = task('create_cluster', async () => 'c-1');
      const work = task('work', async () => 42);
      const drop = task('drop_cluster', async () => 'dropped').asTeardown({ setups: create });
      create.before(work).before(drop);
    });
    expect(spec(d, 'create_cluster').setup).toBe(true);
    expect(spec(d, 'drop_cluster')).toMatchObject({
      triggerRule: 'all_done_setup_success', teardown: { setups: ['create_cluster'], onFailureFailDagrun: false },
    });
    expect(edges(d)).toEqual(['create_cluster>drop_cluster', 'create_cluster>work', 'work>drop_cluster']);
  });

  it('refuses a teardown without a setup, naming the DAG and the task', () => {
    const e = dagError(() => dag('nosetup', {}, ({ task }) => { task('drop', () => 1).asTeardown({ setups: [] }); }));
    expect(e.message).toMatch(/nosetup/);
    expect(e.message).toMatch(/drop/);
    expect(e.message).toMatch(/teardown needs at least one setup/);
  });

  it('refuses a task that is both a setup and a teardown, and the teardown rule on a plain task', () => {
    expect(dagError(() => dag('both', {}, ({ task }) => {
      const a = task('a', () => 1);
      const b = task('b', () => 1).asTeardown({ setups: a });
      a.asTeardown({ setups: task('c', () => 1) });
      void b;
    })).message).toMatch(/both a setup and a teardown/);
    expect(dagError(() => dag('rule', {}, ({ task }) => { task('a', () => 1, { triggerRule: 'all_done_setup_success' }); })).message)
      .toMatch(/all_done_setup_success is for teardown tasks only/);
  });

  it('a manifest whose teardown names a setup that is not upstream is refused where it is read', () => {
    const d = dag('ok', {}, ({ task }) => {
      const c = task('c', () => 1);
      task('d', () => 1).asTeardown({ setups: c });
    });
    const bad = structuredClone(d.spec);
    const td = bad.tasks.find((t) => t.taskId === 'd')!;
    td.upstream = [];
    bad.tasks.find((t) => t.taskId === 'c')!.downstream = [];
    expect(() => validateDagSpec(bad)).toThrow(/teardown setup "c" must be a direct upstream/);
  });
});

describe('shortCircuit, dagrunTimeout, dependsOnPast', () => {
  it('the issue example builds', () => {
    const d = dag('mapped_etl', { schedule: null, dagrunTimeout: '2h' }, ({ task, shortCircuit }) => {
      const gate = shortCircuit('gate', async (ctx) => ctx.conf.go !== false);
      gate.before(task('after_gate', async () => 'ran', { dependsOnPast: true }));
      shortCircuit('soft', () => false, { ignoreDownstreamTriggerRules: false });
    });
    expect(d.spec.dagrunTimeoutMs).toBe(7_200_000);
    expect(spec(d, 'gate')).toMatchObject({ kind: 'task', shortCircuit: { ignoreDownstreamTriggerRules: true } });
    expect(spec(d, 'soft').shortCircuit).toEqual({ ignoreDownstreamTriggerRules: false });
    expect(spec(d, 'after_gate').dependsOnPast).toBe(true);
    expect(spec(d, 'gate').dependsOnPast).toBeUndefined();
  });

  it('dependsOnPast comes from defaultArgs too; bad values are refused', () => {
    const d = dag('dop', { defaultArgs: { dependsOnPast: true } }, ({ task }) => { task('a', () => 1); });
    expect(spec(d, 'a').dependsOnPast).toBe(true);
    expect(dagError(() => dag('dop2', {}, ({ task }) => { task('a', () => 1, { dependsOnPast: 'yes' as any }); })).message).toMatch(/dependsOnPast must be a boolean/);
    expect(dagError(() => dag('to', { dagrunTimeout: 'soon' }, () => {})).message).toMatch(/invalid dagrunTimeout/);
  });
});
