/**
 * dependsOnPast as Airflow's PrevDagrunDep: the first run proceeds; a later run's instance
 * waits `scheduled` until the previous run's instance (by logical date) has succeeded or
 * been skipped, and is woken by that instance ending, not by a later reconcile pass.
 * Runs on both stores, virtual clock.
 */
import { describe, expect, it } from 'vitest';
import { markTask } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, T0 } from '../../helpers/runtime.js';

const DAY = 86_400_000;

function pastDag(ran: string[]) {
  return dag('dop', {}, ({ task }) => {
    task('a', (ctx) => {
      ran.push(`a@${ctx.ds}`);
      if (ctx.conf.fail) throw new Error('bad day');
      if (ctx.conf.skip) return ctx.skip('nothing to do');
      return 1;
    }, { dependsOnPast: true });
    task('b', (ctx) => { ran.push(`b@${ctx.ds}`); });
  });
}

describe('dependsOnPast', () => {
  it('waits for the previous run\'s instance and is woken the moment it is marked success', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([pastDag(ran)]);
    const first = await rt.trigger('dop', { logicalDate: T0, conf: { fail: true } });
    await rt.runToCompletion('dop', first.runId);
    expect((await rt.ports.store.getRun('dop', first.runId))!.state).toBe('failed');

    const second = await rt.trigger('dop', { logicalDate: T0 + DAY });
    await rt.runUntil(async () => false, { maxVirtualMs: 10 * 60_000 });
    const waiting = await rt.ports.store.getTask({ dagId: 'dop', runId: second.runId, taskId: 'a' });
    expect(waiting?.state).toBe('scheduled');
    expect([...ran].sort()).toEqual(['a@2026-01-01', 'b@2026-01-01', 'b@2026-01-02']);

    await markTask(rt.ports, 'dop', first.runId, 'a', 'success');
    // Woken by the mark itself: queued before any reconcile pass.
    expect((await rt.ports.store.getTask({ dagId: 'dop', runId: second.runId, taskId: 'a' }))?.state).toBe('queued');
    await rt.runToCompletion('dop', second.runId);
    expect((await rt.ports.store.getRun('dop', second.runId))!.state).toBe('success');
    expect(ran).toContain('a@2026-01-02');
  });

  it('a skipped previous instance lets the next run proceed; the first run never waits', async () => {
    const ran: string[] = [];
    const { rt } = await makeRuntime([pastDag(ran)]);
    const first = await rt.trigger('dop', { logicalDate: T0, conf: { skip: true } });
    await rt.runToCompletion('dop', first.runId);
    const second = await rt.trigger('dop', { logicalDate: T0 + DAY });
    await rt.runToCompletion('dop', second.runId);
    expect((await rt.ports.store.getTask({ dagId: 'dop', runId: first.runId, taskId: 'a' }))?.state).toBe('skipped');
    expect((await rt.ports.store.getRun('dop', second.runId))!.state).toBe('success');
    expect(ran.filter((x) => x.startsWith('a@'))).toEqual(['a@2026-01-01', 'a@2026-01-02']);
  });

  it('runs in flight together run the task one at a time, in logical-date order', async () => {
    const order: string[] = [];
    let active = 0;
    let most = 0;
    const d = dag('dop2', {}, ({ task }) => {
      task('a', async (ctx) => {
        most = Math.max(most, ++active);
        for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
        order.push(ctx.ds);
        active--;
      }, { dependsOnPast: true, isolation: 'none' });
    });
    const { rt } = await makeRuntime([d]);
    const runs = [];
    for (const day of [1, 2, 3]) runs.push(await rt.trigger('dop2', { logicalDate: T0 + day * DAY }));
    for (const r of runs) await rt.runToCompletion('dop2', r.runId);
    expect(order).toEqual(['2026-01-02', '2026-01-03', '2026-01-04']);
    expect(most).toBe(1);
  });

  it('a mapped task waits for every instance of the previous run, as Airflow counts all map indexes', async () => {
    const ran: string[] = [];
    const d = dag('dop_mapped', {}, ({ task }) => {
      const files = task('files', async () => ['a', 'b', 'c']);
      task('size', async (ctx, f: string) => {
        ran.push(`${f}@${ctx.ds}`);
        if (ctx.conf.fail === f) throw new Error(`bad ${f}`);
        return f.length;
      }, { dependsOnPast: true }).expand(files);
    });
    const { rt } = await makeRuntime([d]);
    const first = await rt.trigger('dop_mapped', { logicalDate: T0, conf: { fail: 'b' } });
    await rt.runToCompletion('dop_mapped', first.runId);
    const second = await rt.trigger('dop_mapped', { logicalDate: T0 + DAY });
    await rt.runUntil(async () => false, { maxVirtualMs: 10 * 60_000 });
    // Instances 0 and 2 succeeded last time, but one failed instance holds the whole task
    // (PrevDagrunDep._count_unsuccessful_tis counts every map index of the task).
    expect((await rt.ports.store.getTask({ dagId: 'dop_mapped', runId: second.runId, taskId: 'size' }))?.state).toBe('scheduled');
    expect(ran.filter((x) => x.endsWith('01-02'))).toEqual([]);
    // A finished instance cannot be marked alone (its outcome is counted); its task can.
    expect(await markTask(rt.ports, 'dop_mapped', first.runId, 'size#1', 'success')).toMatchObject({ ok: false, reason: 'finished_instance' });
    expect((await markTask(rt.ports, 'dop_mapped', first.runId, 'size', 'success')).ok).toBe(true);
    await rt.runToCompletion('dop_mapped', second.runId);
    expect((await rt.ports.store.getRun('dop_mapped', second.runId))!.state).toBe('success');
    expect(ran.filter((x) => x.endsWith('01-02')).sort()).toEqual(['a@2026-01-02', 'b@2026-01-02', 'c@2026-01-02']);
  });
});
