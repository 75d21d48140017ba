import { cmdTasks } from '../aws-ops.js';
import { stackCommand } from './stack.js';

export const tasks = stackCommand({
  words: ['tasks'], args: [{ name: 'dag' }, { name: 'runId' }], summary: 'task states and tries of a run',
  op: (t, [dag, runId]) => cmdTasks(t.ports, dag!, runId!, t.out),
});
