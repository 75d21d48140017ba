import { cmdRuns } from '../aws-ops.js';
import { stackCommand } from './stack.js';

export const runs = stackCommand({ words: ['runs'], args: [{ name: 'dag' }], summary: 'recent runs of a DAG', op: (t, [dag]) => cmdRuns(t.ports, dag!, t.out) });
