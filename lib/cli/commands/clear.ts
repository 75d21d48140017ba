import { stackCommand } from './stack.js';

export const clear = stackCommand({
  words: ['clear'], args: [{ name: 'dag' }, { name: 'runId' }, { name: 'task' }],
  summary: 'clear a task (and its downstream) so it runs again',
  options: { 'no-downstream': { type: 'boolean', help: 'clear only this task' } },
});
