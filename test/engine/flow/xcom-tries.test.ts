/**
 * XComs belong to one try, as in Airflow 3: when a try starts running, the XComs of the
 * tries before it are cleared (airflow-core/src/airflow/api_fastapi/execution_api/routes/
 * task_instances.py, `ti_run` calls `XCom.clear` unless `next_method` is set), and a
 * deferral's resume keeps them. Runs on both stores (vitest projects memory and dynamodb).
 */
import { describe, expect, it } from 'vitest';
import { clearTasks } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';

describe('XComs across tries', () => {
  it('a retry starts without the XComs its failed try pushed; the downstream sees only the last try’s', async () => {
    const seenAtStart: unknown[] = [];
    const d = dag('xr', {}, ({ task }) => {
      const a = task('a', async (ctx) => {
        seenAtStart.push(await ctx.xcom.pull('a', 'partial'));
        if (ctx.tryNumber === 1) {
          await ctx.xcom.push('partial', { rows: 10 });
          await ctx.xcom.push('cursor', 'p-2');
          throw new Error('lost the connection after pushing');
        }
        await ctx.xcom.push('cursor', 'p-9');
      }, { retries: 1, retryDelay: '1m' });
      const b = task('b', async (ctx) => [await ctx.xcom.pull('a', 'partial'), await ctx.xcom.pull('a', 'cursor'), await ctx.xcom.pull('a')]);
      a.before(b);
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'xr');
    expect(r.states).toEqual({ a: 'success', b: 'success' });
    expect(r.tasks.a.tryNumber).toBe(2);
    expect(seenAtStart).toEqual([undefined, undefined]);
    expect(await rt.ports.store.getXcom({ dagId: 'xr', runId: r.run.runId, taskId: 'b', key: 'return_value' })).toEqual([undefined, 'p-9', undefined]);
  });

  it('a deferral’s resume keeps the XComs pushed before it deferred', async () => {
    const d = dag('xd', {}, ({ task }) => {
      task('a', {
        execute: async (ctx) => {
          await ctx.xcom.push('job', 'j-42');
          return ctx.defer({ trigger: { after: '5m' }, resume: 'collect' });
        },
        collect: async (ctx) => `collected ${await ctx.xcom.pull('a', 'job')}`,
      });
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'xd');
    expect(r.states).toEqual({ a: 'success' });
    expect(await rt.ports.store.getXcom({ dagId: 'xd', runId: r.run.runId, taskId: 'a', key: 'return_value' })).toBe('collected j-42');
  });

  it('a cleared task’s next try starts without its earlier return value', async () => {
    const seen: unknown[] = [];
    const d = dag('xc', {}, ({ task }) => {
      task('a', async (ctx) => {
        seen.push(await ctx.xcom.pull('a'));
        return ctx.tryNumber;
      });
    });
    const { rt } = await makeRuntime([d]);
    const first = await runOnce(rt, 'xc');
    expect(await rt.ports.store.getXcom({ dagId: 'xc', runId: first.run.runId, taskId: 'a', key: 'return_value' })).toBe(1);
    await clearTasks(rt.ports, 'xc', first.run.runId, ['a']);
    expect(await rt.runToCompletion('xc', first.run.runId)).toBe('done');
    expect(seen).toEqual([undefined, undefined]);
    expect(await rt.ports.store.getXcom({ dagId: 'xc', runId: first.run.runId, taskId: 'a', key: 'return_value' })).toBe(2);
  });
});
