import { describe, expect, it } from 'vitest';
import { dag } from '../../lib/sdk/index.js';
import { makeRuntime, runOnce } from '../helpers/runtime.js';

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
    expect(await rt.ports.store.getXcom({ dagId: 'mapped_etl', runId: r.run.runId, taskId: 'total', key: 'return_value' })).toEqual({ sizes: [5, 6, 7], sum: 18 });
  });

  it('maps over the cross product of named sources in Airflow order (the last source varies fastest)', async () => {
    const d = dag('pairs', {}, ({ task }) => {
      const pairs = task('pair', async (ctx, a: { x: number; y: string }) => `${ctx.mapIndex}:${a.x}${a.y}`).expand({ x: [1, 2], y: ['p', 'q'] });
      pairs.before(task('collect', async (ctx) => ctx.xcom.pull('pair')));
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'pairs');
    expect(r.run.state).toBe('success');
    expect(await rt.ports.store.getXcom({ dagId: 'pairs', runId: r.run.runId, taskId: 'collect', key: 'return_value' })).toEqual(['0:1p', '1:1q', '2:2p', '3:2q']);
  });
});
