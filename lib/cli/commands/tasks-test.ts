import { COMMON, wholeNumber } from '../options.js';
import type { Command } from '../registry.js';

export const tasksTest: Command = {
  words: ['tasks', 'test'], args: [{ name: 'dir' }, { name: 'dag' }, { name: 'task' }], group: 'local',
  summary: 'run one task in process, ignoring dependencies (like airflow tasks test)',
  options: {
    conf: COMMON.conf, 'logical-date': COMMON.logicalDate, 'no-typecheck': COMMON.noTypecheck,
    'map-index': { type: 'string', value: 'N', help: 'run instance N of a mapped task, with its element (as airflow tasks test --map-index)', parse: wholeNumber(0, 1_000_000) },
  },
  run: async ([dir, dag, task], o) => {
    const { cmdTasksTest } = await import('../tasks-test.js');
    return cmdTasksTest(dir, dag, task, { conf: o.conf, logicalDate: o['logical-date'], typecheck: !o['no-typecheck'], mapIndex: o['map-index'] });
  },
};
