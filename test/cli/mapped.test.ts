import { describe, expect, it } from 'vitest';
import type { DagSpec, TaskInstance } from '../../lib/engine/index.js';
import { runTaskTable, taskRows, taskTable, type RunResult } from '../../lib/cli/output.js';
import { cmdClear } from '../../lib/cli/aws-ops.js';
import { dag } from '../../lib/sdk/index.js';
import { makeRuntime, runOnce } from '../helpers/runtime.js';

const ti = (taskId: string, state: TaskInstance['state'], extra: Partial<TaskInstance> = {}): TaskInstance =>
  ({ dagId: 'd', runId: 'r', taskId, state, tryNumber: 1, upstream: {}, startedAt: 0, endedAt: 5, ...extra });

const spec = { dagId: 'd', tasks: [{ taskId: 'list' }, { taskId: 'size', expand: { source: { task: 'list' } } }] } as unknown as DagSpec;
const tasks = [
  ti('list', 'success'), ti('size', 'failed', { error: '1 of 3 mapped instances failed' }),
  ti('size#2', 'success', { mapIndex: 2, mapValue: '7' }), ti('size#0', 'success', { mapIndex: 0, mapValue: '5' }),
  ti('size#1', 'failed', { mapIndex: 1, error: 'boom', tryNumber: 3 }),
];
const result: RunResult = { run: { dagId: 'd', runId: 'r', state: 'failed' } as RunResult['run'], tasks, spec, outcome: 'done', xcoms: {} };

describe('mapped tasks in the CLI', () => {
  it('--json lists each instance as its own entry with mapIndex, in map-index order, after its task', () => {
    const rows = taskRows(result);
    expect(rows.map((r) => [r.taskId, r.mapIndex])).toEqual([['list', undefined], ['size', undefined], ['size', 0], ['size', 1], ['size', 2]]);
    expect(rows[3]).toMatchObject({ taskId: 'size', mapIndex: 1, state: 'failed', tryNumber: 3, error: 'boom' });
    expect(rows[4]).toMatchObject({ mapIndex: 2, xcom: 7 });
  });

  it('the tables show a mapped task on one line with counts per state', () => {
    const lines = runTaskTable(result, { virtual: false }).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines.find((l) => l.startsWith('size'))).toContain('failed [3 mapped: 2 success, 1 failed]');
    expect(taskTable(tasks, ['list', 'size']).split('\n').filter((l) => l.includes('#'))).toEqual([]);
    expect(taskTable(tasks, ['list', 'size'])).toContain('[3 mapped: 2 success, 1 failed]');
  });

  it('airless clear accepts an instance id of a mapped task and refuses one of a task that is not mapped', async () => {
    const d = dag('clear_cli', {}, ({ task }) => {
      task('each', async (_ctx, x: number) => x).expand([1, 2, 3]);
      task('plain', async () => 1);
    });
    const { rt } = await makeRuntime([d]);
    const r = await runOnce(rt, 'clear_cli');
    const out: string[] = [];
    const ports = rt.ports as unknown as Parameters<typeof cmdClear>[0];
    expect(await cmdClear(ports, 'clear_cli', r.run.runId, 'each#1', true, (l) => out.push(l))).toBe(0);
    expect(out[0]).toMatch(/^cleared .*each#1/);
    await expect(cmdClear(ports, 'clear_cli', r.run.runId, 'plain#1', true, () => {})).rejects.toThrow('unknown task plain#1 in dag clear_cli');
  });
});
