import { cmdClear } from '../aws-ops.js';
import { stackCommand } from './stack.js';

export const clear = stackCommand({
  words: ['clear'], args: [{ name: 'dag' }, { name: 'runId' }, { name: 'task' }],
  summary: 'clear a task (and its downstream) so it runs again',
  options: { 'no-downstream': { type: 'boolean', help: 'clear only this task' } },
  op: (t, [dag, runId, task], o) => cmdClear(t.ports, dag!, runId!, task!, !o['no-downstream'], t.out),
});
