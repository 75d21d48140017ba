import { stackCommand } from './stack.js';

export const runs = stackCommand({ words: ['runs'], args: [{ name: 'dag' }], summary: 'recent runs of a DAG' });
