import { describe, expect, it } from 'vitest';
import { clearTasks, InvalidDagError } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime as makeRuntimeAt, runOnce } from '../../helpers/runtime.js';

// No retention TTL: items would carry a TTL computed from the virtual clock (2026-01-01),
// already past in real time, and DynamoDB Local deletes such items while the run reads them.
const makeRuntime = (dags: Parameters<typeof makeRuntimeAt>[0], opts: Parameters<typeof makeRuntimeAt>[1] = {}) =>
  makeRuntimeAt(dags, { ...opts, config: { runRetentionMs: 0, ...opts.config } });

const xcom = (rt: Awaited<ReturnType<typeof makeRuntime>>['rt'], dagId: string, runId: string, taskId: string) =>
  rt.ports.store.getXcom({ dagId, runId, taskId, key: 'return_value' });

describe('dynamic task mapping', () => {
  it('maps over an upstream XCom, gives each instance its element and mapIndex, and pulls the values in map-index order', async () => {
    const seen: string[] = [];
    const d = dag('mapped_etl', {}, ({ task }) => {
      const list = task('list_files', async () => ['a.csv', 'bb.csv', 'ccc.csv']);
      const size = task('size', async (ctx, file: string) => {
        seen.push(`${ctx.taskId}:${ctx.mapIndex}:${file}`);
        return file.length;
      }).expand(list);
      const total = task('total', async (ctx) => {
        const sizes = await ctx.xcom.pull<number[]>('size');
        return { sizes, sum: sizes.reduce((s, n) => s + n, 0) };
      });
      size.before(total);
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'mapped_etl');
    expect(r.run.state).toBe('success');
    expect(seen.sort()).toEqual(['size:0:a.csv', 'size:1:bb.csv', 'size:2:ccc.csv']);
    expect(r.states).toMatchObject({ list_files: 'success', size: 'success', 'size#0': 'success', 'size#1': 'success', 'size#2': 'success', total: 'success' });
    expect(r.tasks['size#2']!.mapIndex).toBe(2);
    expect(await xcom(rt, 'mapped_etl', r.run.runId, 'total')).toEqual({ sizes: [5, 6, 7], sum: 18 });
  });

  it('maps over the cross product of named sources in Airflow order (the last source varies fastest)', async () => {
    const d = dag('pairs', {}, ({ task }) => {
      const pairs = task('pair', async (ctx, a: { x: number; y: string }) => `${ctx.mapIndex}:${a.x}${a.y}`).expand({ x: [1, 2], y: ['p', 'q'] });
      pairs.before(task('collect', async (ctx) => ctx.xcom.pull('pair')));
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'pairs');
    expect(r.run.state).toBe('success');
    expect(await xcom(rt, 'pairs', r.run.runId, 'collect')).toEqual(['0:1p', '1:1q', '2:2p', '3:2q']);
  });

  it('keeps large or non-JSON elements and return values in XCom, and still hands them over in order', async () => {
    const big = 'x'.repeat(2000);
    const d = dag('big_items', {}, ({ task }) => {
      const list = task('list', async () => [big, new Date('2026-01-02T00:00:00Z'), 3]);
      const echo = task('echo', async (_ctx, item: unknown) => item).expand(list);
      echo.before(task('after', async (ctx) => ctx.xcom.pull('echo')));
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'big_items');
    expect(r.run.state).toBe('success');
    expect(await xcom(rt, 'big_items', r.run.runId, 'after')).toEqual([big, new Date('2026-01-02T00:00:00Z'), 3]);
  });

  it('an empty list skips the mapped task (one instance, no map index, try 0: it never ran) and its all_success downstream', async () => {
    const d = dag('empty_map', {}, ({ task }) => {
      const list = task('list', async () => []);
      const each = task('each', async (_ctx, x: number) => x).expand(list);
      each.before(task('after', async () => 1));
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'empty_map');
    expect(r.states).toEqual({ list: 'success', each: 'skipped', after: 'skipped' });
    expect(r.tasks.each!.mapIndex).toBeUndefined();
    // As Airflow: the scheduler skips it at expansion, try_number 0.
    expect(r.tasks.each!.tryNumber).toBe(0);
    expect(r.run.state).toBe('success');
  });

  it('an XCom that is not an array fails the mapped task with one line naming both tasks, without retries', async () => {
    const d = dag('not_array', {}, ({ task }) => {
      const list = task('list_files', async () => 'a.csv');
      task('size', async (_ctx, f: string) => f.length, { retries: 3 }).expand(list);
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'not_array');
    expect(r.tasks.size!.state).toBe('failed');
    expect(r.tasks.size!.tryNumber).toBe(1);
    expect(r.tasks.size!.error).toBe('task size cannot expand over the XCom of task list_files: it must be an array, got a string');
    expect(r.run.state).toBe('failed');
  });

  it('more elements than maxMapLength fail the mapped task with a message naming the cap', async () => {
    const d = dag('capped', {}, ({ task }) => {
      task('each', async (_ctx, x: number) => x).expand([1, 2, 3, 4]);
    });
    const { rt } = await makeRuntime([d], { config: { maxMapLength: 3 } });
    const r = await runOnce(rt, 'capped');
    expect(r.tasks.each!.state).toBe('failed');
    expect(r.tasks.each!.error).toMatch(/would map 4 instances, more than maxMapLength 3/);
    expect(Object.keys(r.tasks)).toEqual(['each']);
  });

  it('each instance retries on its own: one failing try is retried and the task still succeeds', async () => {
    const tries: Record<number, number> = {};
    const d = dag('retry_map', {}, ({ task }) => {
      task('each', async (ctx, x: number) => {
        tries[x] = (tries[x] ?? 0) + 1;
        if (x === 2 && ctx.tryNumber === 1) throw new Error('flaky');
        return x * 10;
      }, { retries: 1, retryDelay: '1m' }).expand([0, 1, 2, 3]);
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'retry_map');
    expect(r.run.state).toBe('success');
    expect(tries).toEqual({ 0: 1, 1: 1, 2: 2, 3: 1 });
    expect(r.tasks['each#2']!.tryNumber).toBe(2);
    expect(r.tasks['each#1']!.tryNumber).toBe(1);
    expect(r.states.each).toBe('success');
  });

  it('clearing one instance re-runs only it and the downstream, which sees the new value', async () => {
    let round = 0;
    const ran: string[] = [];
    const d = dag('clear_one', {}, ({ task }) => {
      const each = task('each', async (ctx, x: number) => { ran.push(`each#${ctx.mapIndex}`); return x + round; }).expand([10, 20, 30]);
      each.before(task('sum', async (ctx) => { ran.push('sum'); return (await ctx.xcom.pull<number[]>('each')).reduce((a, b) => a + b, 0); }));
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'clear_one');
    expect(await xcom(rt, 'clear_one', r.run.runId, 'sum')).toBe(60);
    round = 100;
    ran.length = 0;
    const cleared = await clearTasks(rt.ports, 'clear_one', r.run.runId, ['each#1']);
    expect(cleared.sort()).toEqual(['each', 'each#1', 'sum']);
    await rt.runToCompletion('clear_one', r.run.runId);
    expect(ran.sort()).toEqual(['each#1', 'sum']);
    expect(await xcom(rt, 'clear_one', r.run.runId, 'sum')).toBe(160);
    expect((await rt.ports.store.getRun('clear_one', r.run.runId))!.state).toBe('success');
  });

  it('under a binding maxActiveTasks, instances take no slot and the run ends with the counter back at zero', async () => {
    const d = dag('slots_map', { maxActiveTasks: 2 }, ({ task }) => {
      const a = task('a', async () => 1);
      const b = task('b', async () => 2);
      const c = task('c', async () => 3);
      const each = task('each', async (_ctx, x: number) => x).expand(Array.from({ length: 30 }, (_, i) => i));
      const join = task('join', async (ctx) => (await ctx.xcom.pull<number[]>('each')).length);
      join.after(a, b, c, each);
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'slots_map');
    expect(r.run.state).toBe('success');
    expect(await xcom(rt, 'slots_map', r.run.runId, 'join')).toBe(30);
    expect(r.run.activeTasks ?? 0).toBe(0);
  });

  it('refuses expand on a branch or a sensor at build, naming the DAG and the task', () => {
    expect(() => dag('bad_branch', {}, ({ branch }) => { branch('pick', () => 'x').expand([1, 2]); })).toThrow(InvalidDagError);
    expect(() => dag('bad_branch', {}, ({ branch }) => { branch('pick', () => 'x').expand([1, 2]); })).toThrow(/bad_branch.*pick.*expand is not supported on a branch/);
    expect(() => dag('bad_sensor', {}, ({ sensor }) => { sensor('wait', { type: 'time', pokeContext: { after: '1h' } }).expand([1]); })).toThrow(/expand is not supported on a sensor/);
    expect(() => dag('bad_src', {}, ({ task }) => { task('t', async () => 1).expand('abc' as never); })).toThrow(/expand\(\) takes an array, a task handle or an object of them, got the string "abc"/);
  });
});
