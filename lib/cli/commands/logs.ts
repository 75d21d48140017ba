import { wholeNumber } from '../options.js';
import { stackCommand } from './stack.js';

export const logs = stackCommand({
  words: ['logs'], args: [{ name: 'dag' }, { name: 'runId' }, { name: 'task' }],
  summary: 'task logs from CloudWatch Logs',
  options: { try: { type: 'string', value: 'N', help: 'only this try (default all)', parse: wholeNumber(1, 100_000) } },
  op: (t, [dagId, runId, taskId], o) => t.printTaskLog({ dagId: dagId!, runId: runId!, taskId: taskId!, tryNumber: o.try }),
});
