import { wholeNumber } from '../options.js';
import { checked, stackCommand } from './stack.js';

export const logs = stackCommand({
  words: ['logs'], args: [{ name: 'dag' }, { name: 'runId' }, { name: 'task' }],
  summary: 'task logs from CloudWatch Logs',
  options: { try: { type: 'string', value: 'N', help: 'only this try (default all)', parse: checked(wholeNumber(1, 100_000)) } },
});
