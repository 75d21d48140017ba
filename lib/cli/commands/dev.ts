import { cmdDev } from '../dev.js';
import { COMMON, httpUrl } from '../options.js';
import type { Command } from '../registry.js';
import { UI_OPTIONS, uiFlags } from './ui.js';

export const dev: Command = {
  words: ['dev'], args: [{ name: 'dir' }], group: 'local',
  summary: 'a long-running local scheduler on real time (Ctrl-C stops)',
  details: 'State is in memory, or in the DynamoDB at --dynamodb-endpoint (tables airless-dev-<hash of the folder>), which survives a restart.',
  options: {
    'dynamodb-endpoint': { type: 'string', value: 'URL', help: 'keep state in the DynamoDB at URL', parse: httpUrl },
    concurrency: COMMON.concurrency,
    'no-typecheck': COMMON.noTypecheck,
    ...UI_OPTIONS,
  },
  run: ([dir], o, io) => cmdDev(dir, { dynamodbEndpoint: o['dynamodb-endpoint'], concurrency: o.concurrency, typecheck: !o['no-typecheck'], ui: uiFlags(o) }, io.main),
};
