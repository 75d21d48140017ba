/**
 * Deleting finished runs and task instances (RunDeleteStore): the same tests on the
 * memory store and DynamoDB Local. Only a finished run or task instance goes, with its
 * task instances and XComs; anything unfinished or absent stays and answers false.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../lib/engine/index.js';
import { dag, run, task } from './fixtures.js';

export function runDeleteContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`RunDeleteStore contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
      await store.putDag(dag('d'));
    });

    it('deletes a finished run with its task instances and XComs; other runs keep theirs', async () => {
      for (const id of ['r1', 'r2']) {
        await store.createRun(run('d', id, { state: 'success' }));
        for (const t of ['a', 'b']) {
          await store.putTask(task('d', id, t, { state: 'success' }));
          await store.putXcom({ dagId: 'd', runId: id, taskId: t, key: 'return_value' }, { t });
          await store.putXcom({ dagId: 'd', runId: id, taskId: t, key: 'extra' }, 1);
        }
      }
      expect(await store.deleteRun('d', 'r1')).toBe(true);
      expect(await store.getRun('d', 'r1')).toBeUndefined();
      expect(await store.listTasks('d', 'r1')).toEqual([]);
      expect(await store.getXcom({ dagId: 'd', runId: 'r1', taskId: 'a', key: 'return_value' })).toBeUndefined();
      expect(await store.getXcom({ dagId: 'd', runId: 'r1', taskId: 'b', key: 'extra' })).toBeUndefined();
      expect((await store.listTasks('d', 'r2')).map((t) => t.taskId)).toEqual(['a', 'b']);
      expect(await store.getXcom({ dagId: 'd', runId: 'r2', taskId: 'a', key: 'return_value' })).toEqual({ t: 'a' });
      expect(await store.deleteRun('d', 'r1')).toBe(false);
    });

    it('keeps a queued or running run, and an unfinished task instance', async () => {
      await store.createRun(run('d', 'q', { state: 'queued' }));
      await store.createRun(run('d', 'r', { state: 'running' }));
      await store.putTask(task('d', 'r', 'a', { state: 'running' }));
      expect(await store.deleteRun('d', 'q')).toBe(false);
      expect(await store.deleteRun('d', 'r')).toBe(false);
      expect(await store.deleteTask({ dagId: 'd', runId: 'r', taskId: 'a' })).toBe(false);
      expect((await store.getRun('d', 'r'))?.state).toBe('running');
      expect((await store.getTask({ dagId: 'd', runId: 'r', taskId: 'a' }))?.state).toBe('running');
    });

    it('deletes a finished task instance and its XComs, not its neighbours', async () => {
      await store.createRun(run('d', 'r', { state: 'running' }));
      await store.putTask(task('d', 'r', 'a', { state: 'failed' }));
      await store.putTask(task('d', 'r', 'b', { state: 'success' }));
      await store.putXcom({ dagId: 'd', runId: 'r', taskId: 'a', key: 'note' }, 'x');
      await store.putXcom({ dagId: 'd', runId: 'r', taskId: 'b', key: 'return_value' }, 2);
      expect(await store.deleteTask({ dagId: 'd', runId: 'r', taskId: 'a' })).toBe(true);
      expect(await store.getTask({ dagId: 'd', runId: 'r', taskId: 'a' })).toBeUndefined();
      expect(await store.getXcom({ dagId: 'd', runId: 'r', taskId: 'a', key: 'note' })).toBeUndefined();
      expect(await store.getXcom({ dagId: 'd', runId: 'r', taskId: 'b', key: 'return_value' })).toBe(2);
      expect(await store.deleteTask({ dagId: 'd', runId: 'r', taskId: 'a' })).toBe(false);
      expect(await store.deleteTask({ dagId: 'd', runId: 'r', taskId: 'nope' })).toBe(false);
    });

    it('deletes one XCom entry, not the task\'s others', async () => {
      const k = { dagId: 'd', runId: 'r', taskId: 'a' };
      await store.putXcom({ ...k, key: 'one' }, 1);
      await store.putXcom({ ...k, key: 'two' }, 2);
      expect(await store.deleteXcom({ ...k, key: 'one' })).toBe(true);
      expect(await store.getXcom({ ...k, key: 'one' })).toBeUndefined();
      expect(await store.getXcom({ ...k, key: 'two' })).toBe(2);
      expect(await store.deleteXcom({ ...k, key: 'one' })).toBe(false);
    });
  });
}
