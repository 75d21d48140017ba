import { describe, expect, it } from 'vitest';
import type { TaskContext } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { scheduleDag } from '../../../lib/engine/index.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';


describe('task context', () => {
  it('passes return values and custom XCom keys between tasks', async () => {
    let seen: unknown[] = [];
    const d = dag('xc', {}, ({ task }) => {
      const a = task('a', async (ctx) => {
        await ctx.xcom.push('rows', [1, 2, 3]);
        await ctx.xcom.push('meta', { table: 'orders' });
        return { total: 6 };
      });
      const b = task('b', async (ctx) => {
        seen = [
          await ctx.xcom.pull('a'),
          await ctx.xcom.pull('a', 'rows'),
          await ctx.xcom.pull('a', 'meta'),
          await ctx.xcom.pull('a', 'missing'),
        ];
        return ((await ctx.xcom.pull<{ total: number }>('a')).total) * 10;
      });
      const c = task('c', async (ctx) => (await ctx.xcom.pull<number>('b')) + 1);
      a.before(b).before(c);
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'xc');
    expect(r.run.state).toBe('success');
    expect(seen).toEqual([{ total: 6 }, [1, 2, 3], { table: 'orders' }, undefined]);
    const x = (taskId: string, key = 'return_value') => rt.ports.store.getXcom({ dagId: 'xc', runId: r.run.runId, taskId, key });
    expect(await x('b')).toBe(60);
    expect(await x('c')).toBe(61);
    expect(await x('a', 'rows')).toEqual([1, 2, 3]);
  });

  it('XCom is per run: a second run does not see the first run\'s values', async () => {
    const pulled: unknown[] = [];
    const d = dag('xr', { params: { n: 0 } }, ({ task }) => {
      const a = task('a', (ctx) => ctx.params.n);
      const b = task('b', async (ctx) => { pulled.push(await ctx.xcom.pull('a')); });
      a.before(b);
    });
    const { rt } = await makeRuntime([d]);
    await runOnce(rt, 'xr', { runId: 'r1', conf: { n: 1 } });
    await runOnce(rt, 'xr', { runId: 'r2', conf: { n: 2 } });
    expect(pulled).toEqual([1, 2]);
  });

  it('params are the DAG params overlaid by run conf; conf is the run conf', async () => {
    let ctxSeen: Pick<TaskContext, 'params' | 'conf'> | undefined;
    const d = dag('pc', { params: { x: 'default', keep: 1 } }, ({ task }) => {
      task('a', (ctx) => { ctxSeen = { params: ctx.params, conf: ctx.conf }; });
    });
    const { rt } = await makeRuntime([d]);
    await runOnce(rt, 'pc', { conf: { x: 'from-conf', extra: true } });
    expect(ctxSeen).toEqual({ params: { x: 'from-conf', keep: 1, extra: true }, conf: { x: 'from-conf', extra: true } });
    await runOnce(rt, 'pc', { runId: 'plain' });
    expect(ctxSeen!.params).toEqual({ x: 'default', keep: 1 });
  });

  // Airflow 3 (airflow-core/src/airflow/timetables/trigger.py, timetables/base.py): a cron
  // DAG's default CronTriggerTimetable dates the run at its tick with a zero-length data
  // interval; create_cron_data_intervals (CronDataIntervalTimetable) makes the run created
  // at a tick cover (previous tick, tick], dated at the interval's start (DagRunInfo.logical_date).
  it.each([
    { intervals: false, ds: '2026-01-05', start: '2026-01-05T00:00:00.000Z', rendered: '2026-01-05 00:00:00+00:00..2026-01-05 00:00:00+00:00' },
    { intervals: true, ds: '2026-01-04', start: '2026-01-04T00:00:00.000Z', rendered: '2026-01-04 00:00:00+00:00..2026-01-05 00:00:00+00:00' },
  ])('the run its schedule creates at a tick carries ds, logical date and data interval (createDataIntervals: $intervals)', async (c) => {
    let seen: Record<string, unknown> = {};
    const opts = { schedule: '@daily', startDate: '2026-01-01', params: { x: 'orders' }, createDataIntervals: c.intervals };
    const d = dag('dates', opts, ({ task }) => {
      task('a', (ctx) => {
        seen = {
          ds: ctx.ds,
          logicalDate: ctx.logicalDate,
          start: ctx.dataIntervalStart,
          end: ctx.dataIntervalEnd,
          rendered: ctx.render('{{ ds }} {{ params.x }} {{ ts }}'),
          interval: ctx.render('{{ data_interval_start }}..{{ data_interval_end }}'),
          ids: ctx.render('{{ dag_id }}/{{ task_id }}/{{ run_id }}'),
        };
      });
    });
    const tick = Date.parse('2026-01-05T00:00:00Z');
    const { rt } = await makeRuntime([d], { start: tick + 1000 });
    await scheduleDag(rt.ports, 'dates');
    const [run] = await rt.ports.store.listRuns('dates');
    expect(run).toMatchObject({ runType: 'scheduled', logicalDate: Date.parse(c.start), dataIntervalEnd: tick, runId: `scheduled__${c.start}` });
    expect(await rt.runToCompletion('dates', run.runId)).toBe('done');
    expect(seen).toEqual({
      ds: c.ds,
      logicalDate: c.start,
      start: c.start,
      end: '2026-01-05T00:00:00.000Z',
      rendered: `${c.ds} orders ${c.ds}T00:00:00+00:00`,
      interval: c.rendered,
      ids: `dates/a/scheduled__${c.start}`,
    });
  });

  it('render sees conf overlaid on params; a manual run has an empty data interval at its logical date', async () => {
    let out = '';
    let interval: string[] = [];
    const d = dag('manual', { params: { x: 'p' } }, ({ task }) => {
      task('a', (ctx) => { out = ctx.render('{{ ds }} {{ params.x }} {{ conf.y }}'); interval = [ctx.dataIntervalStart, ctx.dataIntervalEnd]; });
    });
    const { rt } = await makeRuntime([d]);
    const when = Date.parse('2026-03-07T12:30:00Z');
    await runOnce(rt, 'manual', { logicalDate: when, conf: { x: 'c', y: 42 } });
    expect(out).toBe('2026-03-07 c 42');
    expect(interval).toEqual([new Date(when).toISOString(), new Date(when).toISOString()]);
  });

  it('rendering an unknown variable fails the task with a clear message', async () => {
    const d = dag('badtpl', {}, ({ task }) => {
      task('a', (ctx) => ctx.render('{{ params.nope }}'));
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'badtpl');
    expect(r.states.a).toBe('failed');
    expect(r.tasks.a.error).toMatch(/unknown variable "params.nope"/);
  });
});
