/**
 * `prev_data_interval_start_success` and kin (issue 23 §2): the DAG's latest successful
 * run before this one by logical date, as Airflow's get_previous_successful_dagrun; read
 * from the DAG's latest-success mark, or from the history when the mark cannot answer.
 * Seen through a templated triggerDagRun conf (rendered with a store read, as operator
 * arguments and sensor contexts). Runs on both stores.
 */
import { describe, expect, it } from 'vitest';
import { markRun } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';

const TEMPLATE = '{{ prev_data_interval_start_success }}|{{ prev_data_interval_end_success }}|{{ prev_start_date_success }}|{{ prev_end_date_success }}';
const sink = dag('prev_sink', {}, ({ task }) => {
  task('noop', () => 1);
});
const d = dag('prev_dag', { startDate: '2026-01-01' }, ({ task, triggerDagRun }) => {
  task('gate', (ctx) => (ctx.params.fail ? ctx.fail('asked to') : 1)).before(triggerDagRun('show', { dagId: 'prev_sink', conf: { window: TEMPLATE } }));
});
const day = (n: number) => Date.parse(`2026-01-${String(n).padStart(2, '0')}T00:00:00Z`);
const shown = (prev: { dataIntervalStart: number; dataIntervalEnd: number; startedAt?: number; endedAt?: number } | undefined) => {
  const at = (t?: number) => (t === undefined ? '' : new Date(t).toISOString().replace('T', ' ').replace(/\.000Z$/, '+00:00').replace(/\.(\d{3})Z$/, '.$1000+00:00'));
  return prev ? [prev.dataIntervalStart, prev.dataIntervalEnd, prev.startedAt, prev.endedAt].map(at).join('|') : '|||';
};

describe('prev_*_success in templates', () => {
  it('name the latest success before the run by logical date, skip failed runs, and answer older runs from the history', async () => {
    const { rt, clock } = await makeRuntime([d, sink]);
    const store = rt.ports.store;
    const value = async (runId: string) => {
      const triggered = (await store.getXcom({ dagId: 'prev_dag', runId, taskId: 'show', key: 'return_value' })) as string;
      return (await store.getRun('prev_sink', triggered))!.conf['window'];
    };
    const step = () => clock.advanceTo(clock.now() + 60_000);

    const first = await runOnce(rt, 'prev_dag', { logicalDate: day(10) });
    expect(await value(first.run.runId)).toBe(shown(undefined));
    expect((await store.getLastSuccess('prev_dag'))?.runId).toBe(first.run.runId);

    step();
    const second = await runOnce(rt, 'prev_dag', { logicalDate: day(11) });
    expect(first.run.endedAt).toBeDefined();
    expect(await value(second.run.runId)).toBe(shown(first.run));

    step();
    const failed = await runOnce(rt, 'prev_dag', { logicalDate: day(12), conf: { fail: true } });
    expect(failed.run.state).toBe('failed');
    expect((await store.getLastSuccess('prev_dag'))?.runId).toBe(second.run.runId);

    step();
    const third = await runOnce(rt, 'prev_dag', { logicalDate: day(13) });
    expect(await value(third.run.runId)).toBe(shown(second.run));

    // An older date (a backfill): the mark (the 13th) is not before it, the history answers.
    step();
    const older = await runOnce(rt, 'prev_dag', { logicalDate: day(5) });
    expect(await value(older.run.runId)).toBe(shown(undefined));
    step();
    const between = await runOnce(rt, 'prev_dag', { logicalDate: day(12) + 3_600_000 });
    expect(await value(between.run.runId)).toBe(shown(second.run));
    expect((await store.getLastSuccess('prev_dag'))?.runId).toBe(third.run.runId);

    // The marked run marked failed: the mark names a run that is no longer a success.
    await markRun(rt.ports, 'prev_dag', third.run.runId, 'failed');
    step();
    const after = await runOnce(rt, 'prev_dag', { logicalDate: day(20) });
    expect(await value(after.run.runId)).toBe(shown(between.run));
    expect((await store.getLastSuccess('prev_dag'))?.runId).toBe(after.run.runId);
  });

  it('date arithmetic works on them; ctx.render (no store read) refuses them in one line', async () => {
    const d2 = dag('prev_math', { startDate: '2026-01-01' }, ({ task, triggerDagRun }) => {
      task('gate', (ctx) => (ctx.params.sync ? ctx.render('{{ prev_data_interval_end_success }}') : 1))
        .before(triggerDagRun('show', { dagId: 'prev_sink', conf: { day: "{{ (prev_data_interval_end_success + macros.timedelta(days=1)).strftime('%Y%m%d') }}" } }));
    });
    const { rt, clock } = await makeRuntime([d2, sink]);
    const none = await runOnce(rt, 'prev_math', { logicalDate: day(2) });
    expect(none.run.state).toBe('failed');
    expect(none.tasks.show.error).toMatch(/"prev_data_interval_end_success" has no value in this run/);
    const sync = await runOnce(rt, 'prev_math', { logicalDate: day(3), conf: { sync: true } });
    expect(sync.tasks.gate.error).toMatch(/is read from the store, so it is known in task arguments, sensor contexts/);
    await markRun(rt.ports, 'prev_math', none.run.runId, 'success');
    clock.advanceTo(clock.now() + 60_000);
    const next = await runOnce(rt, 'prev_math', { logicalDate: day(4) });
    const triggered = (await rt.ports.store.getXcom({ dagId: 'prev_math', runId: next.run.runId, taskId: 'show', key: 'return_value' })) as string;
    expect((await rt.ports.store.getRun('prev_sink', triggered))!.conf['day']).toBe(new Date(none.run.dataIntervalEnd + 86_400_000).toISOString().slice(0, 10).replaceAll('-', ''));
  });
});
