import { stackCommand } from './stack.js';

export const pause = stackCommand({ words: ['pause'], args: [{ name: 'dag' }], summary: 'stop creating scheduled runs of a DAG' });
