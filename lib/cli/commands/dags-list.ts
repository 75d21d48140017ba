import { cmdDagsList } from '../local.js';
import { COMMON } from '../options.js';
import type { Command } from '../registry.js';

export const dagsList: Command = {
  words: ['dags', 'list'], args: [{ name: 'dir' }], group: 'local',
  summary: 'the DAGs in a folder: schedule, next run, paused state, tasks',
  options: { json: COMMON.json, 'no-typecheck': COMMON.noTypecheck },
  run: ([dir], o) => cmdDagsList(dir, { json: o.json ?? false, typecheck: !o['no-typecheck'] }),
};
