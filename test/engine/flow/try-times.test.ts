/**
 * A try's start and end belong to that try: a new try (a retry, a cleared task, a sensor
 * registered again) starts with no end time, so `startedAt <= endedAt` always holds and
 * `airless tasks` never shows a negative duration. Both stores, virtual clock.
 */
import { describe, expect, it } from 'vitest';
import type { TaskInstance } from '../../../lib/engine/index.js';
import { dag } from '../../../lib/sdk/index.js';
import { taskTable } from '../../../lib/cli/output.js';
import { makeRuntime, runOnce } from '../../helpers/runtime.js';
import { countingSensor, lateClock } from '../../helpers/waiting.js';

const consistent = (ti: TaskInstance) => ti.endedAt === undefined || ti.startedAt === undefined || ti.startedAt <= ti.endedAt;

describe('try start and end times', () => {
  it('a retry running after a failed try has no end time yet, and the table shows no negative duration', async () => {
    const seen: TaskInstance[] = [];
    let rt!: Awaited<ReturnType<typeof makeRuntime>>['rt'];
    const d = dag('times', {}, ({ task }) => {
      task('flaky', async (ctx) => {
        seen.push((await rt.ports.store.getTask({ dagId: ctx.dagId, runId: ctx.runId, taskId: 'flaky' }))!);
        if (ctx.tryNumber === 1) throw new Error('first try fails');
        return 'ok';
      }, { retries: 1, retryDelay: '5m' });
    });
    ({ rt } = await makeRuntime([d]));
    const r = await runOnce(rt, 'times');
    expect(r.states.flaky).toBe('success');
    expect(seen.map((t) => [t.tryNumber, t.state, t.endedAt])).toEqual([[1, 'running', undefined], [2, 'running', undefined]]);
    expect(seen.every(consistent)).toBe(true);
    expect(consistent(r.tasks.flaky)).toBe(true);
    // What `airless tasks` printed for the running retry: its duration column was negative.
    expect(taskTable([seen[1]!], ['flaky'])).not.toMatch(/-\d/);
  });

  it('a sensor registered again for its retry starts without the end of its failed try', async () => {
    const clock = lateClock();
    const probe = countingSensor('probe', clock);
    probe.errors.set('x', 'offline');
    const d = dag('sense_times', {}, ({ sensor }) => {
      sensor('wait', { type: probe.def, pokeContext: { target: 'x' } }, { retries: 1, retryDelay: '5m', timeout: '1h' });
    });
    const made = await makeRuntime([d], { sensorDefs: [probe.def] });
    clock.set(made.clock);
    const run = await made.rt.trigger('sense_times');
    const key = { dagId: 'sense_times', runId: run.runId, taskId: 'wait' };
    await made.rt.runUntil(async () => (await made.rt.ports.store.getTask(key))?.tryNumber === 2);
    const second = (await made.rt.ports.store.getTask(key))!;
    expect(second.state).toBe('sensing');
    expect(second.endedAt).toBeUndefined();
    expect(consistent(second)).toBe(true);
  });
});
