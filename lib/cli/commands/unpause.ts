import { cmdPause } from '../aws-ops.js';
import { stackCommand } from './stack.js';

export const unpause = stackCommand({
  words: ['unpause'], args: [{ name: 'dag' }], summary: 'resume scheduled runs of a DAG',
  op: (t, [dag]) => cmdPause(t.ports, dag!, false, t.out, t.schedules),
});
