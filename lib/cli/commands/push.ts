import { COMMON } from '../options.js';
import { stackCommand } from './stack.js';

export const push = stackCommand({
  words: ['push'], args: [{ name: 'dir' }],
  summary: 'type-check, build and upload DAG files, wait until the stack registered them',
  options: { 'no-typecheck': COMMON.noTypecheck },
});
