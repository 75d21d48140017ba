import { describe, expect, it } from 'vitest';
import { dag } from '../../../lib/sdk/index.js';
import { makeRuntime, T0 } from '../../helpers/runtime.js';

describe('external_task sensor', () => {
  const upstream = dag('producer', {}, ({ task }) => { task('load', async () => 'loaded'); });
  const downstream = dag('consumer', {}, ({ task, sensor }) => {
    const wait = sensor('wait_load', {
      type: 'external_task',
      pokeContext: { externalDagId: 'producer', externalTaskId: 'load', logicalDate: '{{ logical_date }}' },
    }, { pokeInterval: '1m', timeout: '1h' });
    wait.before(task('report', async () => 'ok'));
  });

  it('waits until the other DAG\'s task for the same logical date succeeds', async () => {
    const { rt } = await makeRuntime([upstream, downstream], { tickMs: 60_000 });
    const consumer = await rt.trigger('consumer', { runType: 'scheduled', logicalDate: T0 });
    // Nothing for the producer yet: a few poke cycles find no run.
    await rt.runUntil(async () => rt.clock.now() >= T0 + 5 * 60_000, { maxVirtualMs: 10 * 60_000 });
    expect((await rt.ports.store.getTask({ dagId: 'consumer', runId: consumer.runId, taskId: 'wait_load' }))!.state).toBe('sensing');
    const producer = await rt.trigger('producer', { runType: 'scheduled', logicalDate: T0 });
    expect(producer.runId).toBe(consumer.runId);
    expect(await rt.runToCompletion('consumer', consumer.runId)).toBe('done');
    const tis = await rt.ports.store.listTasks('consumer', consumer.runId);
    expect(Object.fromEntries(tis.map((t) => [t.taskId, t.state]))).toEqual({ wait_load: 'success', report: 'success' });
  });

  it('times out when the other run never comes', async () => {
    const { rt } = await makeRuntime([upstream, downstream], { tickMs: 60_000 });
    const consumer = await rt.trigger('consumer', { runType: 'scheduled', logicalDate: T0 });
    expect(await rt.runToCompletion('consumer', consumer.runId)).toBe('done');
    const wait = (await rt.ports.store.getTask({ dagId: 'consumer', runId: consumer.runId, taskId: 'wait_load' }))!;
    expect(wait.state).toBe('failed');
    expect(wait.error).toContain('sensor timed out after 1h');
    expect(wait.endedAt! - wait.startedAt!).toBe(3_600_000);
  });
});
