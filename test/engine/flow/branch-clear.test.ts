import { describe, expect, it } from 'vitest';
import { clearTasks } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';

/** branch -> (b1 -> x1 | b2 -> x2 -> x3) -> join, and branch -> join directly (an empty branch). */
function branchDag(id: string, choose: (ctx: { params: Record<string, any> }) => any, ran: string[]) {
  return dag(id, {}, ({ task, branch }) => {
    const pick = branch('pick', (ctx) => choose(ctx));
    const body = (t: string) => () => { ran.push(t); return t; };
    const b1 = task('b1', body('b1'));
    const b2 = task('b2', body('b2'));
    const x1 = task('x1', body('x1'));
    const x2 = task('x2', body('x2'));
    const x3 = task('x3', body('x3'));
    const join = task('join', body('join'), { triggerRule: 'none_failed_min_one_success' });
    pick.before(b1, b2);
    b1.before(x1);
    b2.before(x2).before(x3);
    join.after(x1, x3, pick);
  });
}

describe('branching', () => {
  it('runs the chosen branch, skips the other with a cascade, and runs the join', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([branchDag('br', () => 'b1', ran)]);
    const r = await runOnce(rt, 'br');
    expect(r.states).toEqual({
      pick: 'success', b1: 'success', x1: 'success', b2: 'skipped', x2: 'skipped', x3: 'skipped', join: 'success',
    });
    expect(ran.sort()).toEqual(['b1', 'join', 'x1']);
    expect(r.run.state).toBe('success');
    expect(await rt.ports.store.getXcom({ dagId: 'br', runId: r.run.runId, taskId: 'pick', key: 'return_value' })).toEqual(['b1']);
  });

  it('a branch may choose several downstreams', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([branchDag('br2', () => ['b1', 'b2'], ran)]);
    const r = await runOnce(rt, 'br2');
    expect(Object.values(r.states).every((s) => s === 'success')).toBe(true);
    expect(ran.sort()).toEqual(['b1', 'b2', 'join', 'x1', 'x2', 'x3']);
  });

  it('choosing the join directly skips both branches and runs the join', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([branchDag('br3', () => 'join', ran)]);
    const r = await runOnce(rt, 'br3');
    expect(r.states).toMatchObject({ b1: 'skipped', b2: 'skipped', x1: 'skipped', x3: 'skipped', join: 'success' });
    expect(ran).toEqual(['join']);
  });

  it('choosing nothing skips every downstream, the join included', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([branchDag('br4', () => null, ran)]);
    const r = await runOnce(rt, 'br4');
    expect(r.states).toEqual({
      pick: 'success', b1: 'skipped', x1: 'skipped', b2: 'skipped', x2: 'skipped', x3: 'skipped', join: 'skipped',
    });
    expect(ran).toEqual([]);
    expect(r.run.state).toBe('success');
  });

  // Airflow 3: task-sdk/src/airflow/sdk/bases/skipmixin.py, SkipMixin.skip_all_except:
  // branch_task_ids may name any task of the DAG; ids outside the DAG raise (the try fails).
  it('choosing a task of the DAG that is not a direct downstream is no error: the direct downstreams not followed are skipped', async () => {
    const ran: string[] = [];
    const d = dag('br5', {}, ({ task, branch }) => {
      const pick = branch('pick', () => 'c');
      const a = task('a', () => { ran.push('a'); });
      const b = task('b', () => { ran.push('b'); });
      const c = task('c', () => { ran.push('c'); }, { triggerRule: 'none_failed' });
      pick.before(a, b);
      b.before(c);
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'br5');
    // c follows its own trigger rule (none_failed passes a skipped upstream), as in Airflow,
    // where NotPreviouslySkippedDep concerns only the branch's direct downstreams.
    expect(r.states).toEqual({ pick: 'success', a: 'skipped', b: 'skipped', c: 'success' });
    expect(r.tasks.pick.error).toBeUndefined();
    expect(ran).toEqual(['c']);
  });

  it('choosing an id that is not in the DAG fails the try, and retries apply', async () => {
    let calls = 0;
    const d = dag('br6', { defaultArgs: { retries: 2, retryDelay: '1m' } }, ({ task, branch }) => {
      branch('pick', () => (++calls < 3 ? 'nope' : 'a')).before(task('a', () => 1));
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'br6');
    expect(calls).toBe(3);
    expect(r.states).toEqual({ pick: 'success', a: 'success' });
    expect(r.tasks.pick.tryNumber).toBe(3);
  });

  it('a branch with no downstream tasks is a valid DAG and succeeds', async () => {
    const d = dag('br7', {}, ({ branch }) => { branch('pick', () => []); });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'br7');
    expect(r.states).toEqual({ pick: 'success' });
    expect(r.run.state).toBe('success');
  });
});

describe('clear and re-run', () => {
  it('clearing a failed task and its downstream in a failed run re-runs them; try numbers keep increasing', async () => {
    let bCalls = 0;
    const ran: string[] = [];
    const d = dag('cl', {}, ({ task }) => {
      const a = task('a', () => { ran.push('a'); return 1; });
      const b = task('b', (ctx) => { ran.push(`b#${ctx.tryNumber}`); if (++bCalls === 1) throw new Error('first time'); return 2; });
      const c = task('c', async (ctx) => { ran.push('c'); return (await ctx.xcom.pull<number>('b')) + 1; });
      a.before(b).before(c);
    });
    const { rt } = await makeRuntime([d]);
    const first = await runOnce(rt, 'cl');
    expect(first.states).toEqual({ a: 'success', b: 'failed', c: 'upstream_failed' });
    expect(first.run.state).toBe('failed');

    const cleared = await clearTasks(rt.ports, 'cl', first.run.runId, ['b']);
    expect(cleared.sort()).toEqual(['b', 'c']);
    expect((await rt.ports.store.getRun('cl', first.run.runId))!.state).not.toBe('failed');
    const outcome = await rt.runToCompletion('cl', first.run.runId);
    expect(outcome).toBe('done');

    const run = (await rt.ports.store.getRun('cl', first.run.runId))!;
    const tasks = Object.fromEntries((await rt.ports.store.listTasks('cl', run.runId)).map((t) => [t.taskId, t]));
    expect(run.state).toBe('success');
    expect(ran).toEqual(['a', 'b#1', 'b#2', 'c']);
    expect(tasks.a).toMatchObject({ state: 'success', tryNumber: 1 });
    expect(tasks.b).toMatchObject({ state: 'success', tryNumber: 2 });
    expect(tasks.b.error).toBeUndefined();
    expect(tasks.c).toMatchObject({ state: 'success', tryNumber: 1 });
    expect(await rt.ports.store.getXcom({ dagId: 'cl', runId: run.runId, taskId: 'c', key: 'return_value' })).toBe(3);
  });

  it('retries count afresh after a clear (Airflow max_tries), try numbers continue', async () => {
    const tries: number[] = [];
    const d = dag('cl2', { defaultArgs: { retries: 1, retryDelay: '1m' } }, ({ task }) => {
      task('b', (ctx) => { tries.push(ctx.tryNumber); if (ctx.tryNumber < 4) throw new Error(`try ${ctx.tryNumber}`); });
    });
    const { rt } = await makeRuntime([d]);
    const first = await runOnce(rt, 'cl2');
    expect(first.tasks.b).toMatchObject({ state: 'failed', tryNumber: 2 });
    await clearTasks(rt.ports, 'cl2', first.run.runId, ['b']);
    await rt.runToCompletion('cl2', first.run.runId);
    const b = (await rt.ports.store.getTask({ dagId: 'cl2', runId: first.run.runId, taskId: 'b' }))!;
    expect(tries).toEqual([1, 2, 3, 4]);
    expect(b).toMatchObject({ state: 'success', tryNumber: 4 });
    expect((await rt.ports.store.getRun('cl2', first.run.runId))!.state).toBe('success');
  });

  it('after clearing a of a -> b, b waits for the new a (upstream outcomes of cleared tasks are forgotten)', async () => {
    const log: string[] = [];
    let aRuns = 0;
    const d = dag('cl4', {}, ({ task }) => {
      task('a', async () => { log.push(`a${++aRuns}:start`); await new Promise((r) => setImmediate(r)); log.push(`a${aRuns}:end`); })
        .before(task('b', () => { log.push('b'); }));
    });
    const { rt } = await makeRuntime([d]);
    const first = await runOnce(rt, 'cl4');
    expect(first.states).toEqual({ a: 'success', b: 'success' });
    expect(await clearTasks(rt.ports, 'cl4', first.run.runId, ['a'])).toEqual(expect.arrayContaining(['a', 'b']));
    const b = (await rt.ports.store.getTask({ dagId: 'cl4', runId: first.run.runId, taskId: 'b' }))!;
    expect(b).toMatchObject({ state: 'scheduled', upstream: {} });
    await rt.runToCompletion('cl4', first.run.runId);
    expect(log).toEqual(['a1:start', 'a1:end', 'b', 'a2:start', 'a2:end', 'b']);
  });

  it('clearing a successful task without downstream re-runs only it', async () => {
    const ran: string[] = [];
    const d = dag('cl3', {}, ({ task }) => {
      task('a', () => { ran.push('a'); }).before(task('b', () => { ran.push('b'); }));
    });
    const { rt } = await makeRuntime([d]);
    const first = await runOnce(rt, 'cl3');
    expect(await clearTasks(rt.ports, 'cl3', first.run.runId, ['a'], { downstream: false })).toEqual(['a']);
    await rt.runToCompletion('cl3', first.run.runId);
    expect(ran).toEqual(['a', 'b', 'a']);
    const a = (await rt.ports.store.getTask({ dagId: 'cl3', runId: first.run.runId, taskId: 'a' }))!;
    expect(a).toMatchObject({ state: 'success', tryNumber: 2 });
    expect((await rt.ports.store.getRun('cl3', first.run.runId))!.state).toBe('success');
  });
});
