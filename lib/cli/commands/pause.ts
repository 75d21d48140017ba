import { cmdPause } from '../aws-ops.js';
import { stackCommand } from './stack.js';

export const pause = stackCommand({
  words: ['pause'], args: [{ name: 'dag' }], summary: 'stop creating scheduled runs of a DAG',
  op: (t, [dag]) => cmdPause(t.ports, dag!, true, t.out, t.schedules),
});
