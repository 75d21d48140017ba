import { sendToDev } from '../dev-control.js';
import { devTablePrefix } from '../dev.js';
import { DEV_OPTION } from './stack.js';
import { cmdLocalSignal } from '../local.js';
import { COMMON, httpUrl, jsonOrString } from '../options.js';
import type { Command } from '../registry.js';

export const signal: Command = {
  words: ['signal'], args: [{ name: 'key' }], group: 'stack',
  summary: 'resume tasks waiting on an event key (a deployed stack, or a local dev)',
  details: 'With --dynamodb-endpoint URL --dir DIR it signals the `airless dev DIR` keeping its state there.',
  options: {
    stack: COMMON.stack,
    payload: { type: 'string', value: 'JSON', help: 'the event payload (JSON; other text is sent as a string)' },
    'dynamodb-endpoint': { type: 'string', value: 'URL', help: 'signal a local `airless dev` using this DynamoDB', parse: httpUrl },
    dir: { type: 'string', value: 'DIR', help: 'with --dynamodb-endpoint: the DAG folder of that dev (default .)' },
    dev: DEV_OPTION,
  },
  async run([key], o) {
    if (o.dev) return sendToDev({ command: 'signal', args: [key], options: o });
    if (o['dynamodb-endpoint']) {
      const payload = o.payload === undefined ? undefined : jsonOrString(o.payload);
      return cmdLocalSignal(o['dynamodb-endpoint'], key, payload, devTablePrefix(o.dir ?? '.'));
    }
    const { runAwsCommand } = await import('../aws.js');
    return runAwsCommand('signal', [key], o);
  },
};
