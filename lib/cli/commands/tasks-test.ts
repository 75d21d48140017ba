import { cmdTasksTest } from '../local.js';
import { COMMON } from '../options.js';
import type { Command } from '../registry.js';

export const tasksTest: Command = {
  words: ['tasks', 'test'], args: [{ name: 'dir' }, { name: 'dag' }, { name: 'task' }], group: 'local',
  summary: 'run one task in process, ignoring dependencies (like airflow tasks test)',
  options: { conf: COMMON.conf, 'logical-date': COMMON.logicalDate, 'no-typecheck': COMMON.noTypecheck },
  run: ([dir, dag, task], o) => cmdTasksTest(dir, dag, task, { conf: o.conf, logicalDate: o['logical-date'], typecheck: !o['no-typecheck'] }),
};
