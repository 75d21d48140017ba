/**
 * Setup/teardown with Airflow 3's semantics, and task groups end to end: a teardown runs
 * once its setups and the work between are done whatever their outcome (when a setup
 * succeeded), does not decide the run's state unless onFailureFailDagrun, and clearing a
 * task clears its setups and teardowns. Runs on both stores.
 */
import { describe, expect, it } from 'vitest';
import { clearTasks, evaluateTriggerRule, type TriggerRule, type UpstreamOutcome } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { airflowTeardownDecision, type RefOutcome } from '../../helpers/airflow-reference.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';

type Body = 'ok' | 'fail' | 'skip';

function clusterDag(id: string, bodies: { create?: Body; work?: Body; drop?: Body }, ran: string[], failRun = false) {
  const body = (name: string, how: Body = 'ok') => (ctx: any) => {
    ran.push(name);
    if (how === 'fail') throw new Error(`${name} broke`);
    if (how === 'skip') return ctx.skip('not today');
    return name;
  };
  return dag(id, {}, ({ task }) => {
    const create = task('create_cluster', body('create', bodies.create));
    const work = task('work', body('work', bodies.work));
    const drop = task('drop_cluster', body('drop', bodies.drop)).asTeardown({ setups: create, onFailureFailDagrun: failRun });
    create.before(work).before(drop);
  });
}

describe('setup and teardown', () => {
  it('work fails: the teardown still runs, and the run fails (the work is the leaf that counts)', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([clusterDag('st1', { work: 'fail' }, ran)]);
    const r = await runOnce(rt, 'st1');
    expect(r.states).toEqual({ create_cluster: 'success', work: 'failed', drop_cluster: 'success' });
    expect(ran).toEqual(['create', 'work', 'drop']);
    expect(r.run.state).toBe('failed');
  });

  it('the teardown fails: the run succeeds, unless onFailureFailDagrun', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([clusterDag('st2', { drop: 'fail' }, ran), clusterDag('st3', { drop: 'fail' }, ran, true)]);
    const quiet = await runOnce(rt, 'st2');
    expect(quiet.states.drop_cluster).toBe('failed');
    expect(quiet.run.state).toBe('success');
    const loud = await runOnce(rt, 'st3');
    expect(loud.states.drop_cluster).toBe('failed');
    expect(loud.run.state).toBe('failed');
  });

  it('the setup fails: the work and the teardown are upstream-failed, nothing runs after it', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([clusterDag('st4', { create: 'fail' }, ran)]);
    const r = await runOnce(rt, 'st4');
    expect(r.states).toEqual({ create_cluster: 'failed', work: 'upstream_failed', drop_cluster: 'upstream_failed' });
    expect(ran).toEqual(['create']);
    expect(r.run.state).toBe('failed');
  });

  it('the setup is skipped: the teardown is skipped too', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([clusterDag('st5', { create: 'skip' }, ran)]);
    const r = await runOnce(rt, 'st5');
    expect(r.states).toEqual({ create_cluster: 'skipped', work: 'skipped', drop_cluster: 'skipped' });
    expect(r.run.state).toBe('success');
  });

  it('clearing the work clears its setup and teardown, which run again', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([clusterDag('st6', { work: 'fail' }, ran)]);
    const first = await runOnce(rt, 'st6');
    const cleared = await clearTasks(rt.ports, 'st6', first.run.runId, ['work']);
    expect(cleared.sort()).toEqual(['create_cluster', 'drop_cluster', 'work']);
    await rt.runToCompletion('st6', first.run.runId);
    expect(ran).toEqual(['create', 'work', 'drop', 'create', 'work', 'drop']);
    expect((await rt.ports.store.getRun('st6', first.run.runId))!.state).toBe('failed');
  });
});

describe('the setup constraint', () => {
  it('an all_done task in the scope of a failed setup is upstream-failed, not run', async () => {
    const ran: string[] = [];
    const d = dag('scope', {}, ({ task }) => {
      const body = (n: string, fail = false) => () => { ran.push(n); if (fail) throw new Error(n); };
      const create = task('create', body('create', true));
      const w1 = task('w1', body('w1'));
      const w2 = task('w2', body('w2'), { triggerRule: 'all_done' });
      const drop = task('drop', body('drop')).asTeardown({ setups: create });
      create.before(w1).before(w2).before(drop);
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'scope');
    expect(r.states).toEqual({ create: 'failed', w1: 'upstream_failed', w2: 'upstream_failed', drop: 'upstream_failed' });
    expect(ran).toEqual(['create']);
  });
});

describe('all_done_setup_success against Airflow TriggerRuleDep', () => {
  const OUTCOMES: readonly (RefOutcome | undefined)[] = ['success', 'failed', 'skipped', 'upstream_failed', undefined];
  const combos = (n: number): (RefOutcome | undefined)[][] =>
    n === 0 ? [[]] : combos(n - 1).flatMap((rest) => OUTCOMES.map((o) => [o, ...rest]));

  it('every combination of 1 to 3 upstreams and of which of them are setups', () => {
    const mismatches: string[] = [];
    let checked = 0;
    for (const n of [1, 2, 3]) {
      for (let mask = 1; mask < 1 << n; mask++) {
        const isSetup = Array.from({ length: n }, (_, i) => (mask & (1 << i)) !== 0);
        for (const c of combos(n)) {
          checked++;
          const ids = c.map((_, i) => `u${i}`);
          const recorded: Record<string, UpstreamOutcome> = {};
          c.forEach((o, i) => { if (o) recorded[ids[i]] = o; });
          const got = evaluateTriggerRule('all_done_setup_success' as TriggerRule, ids, recorded, ids.filter((_, i) => isSetup[i]));
          const want = airflowTeardownDecision(c, isSetup);
          if (got !== want) mismatches.push(`${JSON.stringify(c)} setups ${JSON.stringify(isSetup)}: engine ${got}, airflow ${want}`);
        }
      }
    }
    expect(checked).toBe(5 * 1 + 25 * 3 + 125 * 7);
    expect(mismatches).toEqual([]);
  });
});

describe('task groups at run time', () => {
  it('the issue example: upstream of the group runs first, the group in order, its leaves before what follows', async () => {
    const order: string[] = [];
    const d = dag('grouped', {}, ({ task, group }) => {
      const total = task('total', () => { order.push('total'); });
      const load = group('load', ({ task }) => {
        const stage = task('stage', () => { order.push('load.stage'); });
        const publish = task('publish', () => { order.push('load.publish'); });
        stage.before(publish);
      });
      total.before(load);
      load.before(task('report', () => { order.push('report'); }));
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'grouped');
    expect(r.run.state).toBe('success');
    expect(order).toEqual(['total', 'load.stage', 'load.publish', 'report']);
    expect(Object.keys(r.states).sort()).toEqual(['load.publish', 'load.stage', 'report', 'total']);
  });
});
