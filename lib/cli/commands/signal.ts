import { cmdSignal } from '../aws-ops.js';
import { devTablePrefix } from '../dev.js';
import { DEV_OPTION, onTarget } from './stack.js';
import { cmdLocalSignal } from '../local.js';
import { COMMON, httpUrl, jsonOrString } from '../options.js';
import type { Command } from '../registry.js';
import { ENDPOINT } from './stack.js';

export const signal: Command = {
  words: ['signal'], args: [{ name: 'key' }], group: 'stack',
  summary: 'resume tasks waiting on an event key (a deployed stack, or a local dev)',
  details: 'With --dynamodb-endpoint URL --dir DIR it signals the `airless dev DIR` keeping its state there.',
  options: {
    stack: COMMON.stack,
    endpoint: ENDPOINT,
    payload: { type: 'string', value: 'JSON', help: 'the event payload (JSON; other text is sent as a string)', parse: jsonOrString },
    'dynamodb-endpoint': { type: 'string', value: 'URL', help: 'signal a local `airless dev` using this DynamoDB', parse: httpUrl },
    dir: { type: 'string', value: 'DIR', help: 'with --dynamodb-endpoint: the DAG folder of that dev (default .)' },
    dev: DEV_OPTION,
  },
  async run([key], o, io) {
    if (o['dynamodb-endpoint'] && !o.dev) return cmdLocalSignal(o['dynamodb-endpoint'], key!, o.payload, devTablePrefix(o.dir ?? '.'));
    return onTarget(o, io, (t) => cmdSignal(t.ports, key!, o.payload, t.out));
  },
};
