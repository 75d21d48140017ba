import { stackCommand } from './stack.js';

export const unpause = stackCommand({ words: ['unpause'], args: [{ name: 'dag' }], summary: 'resume scheduled runs of a DAG' });
