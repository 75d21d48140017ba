import { OptionError, type Command, type OptionSpec } from '../registry.js';
import { wholeNumber } from '../options.js';
import type { UiFlags } from '../ui.js';

/** Where the UI and REST API listen; shared by `dev` and `ui`. */
export const UI_OPTIONS: Record<string, OptionSpec> = {
  port: { type: 'string', value: 'N', help: 'port of the web UI and REST API (default 8080; 0 picks a free one)', parse: checked(wholeNumber(0, 65535)) },
  host: { type: 'string', value: 'HOST', help: 'address to bind (default 127.0.0.1; anything else exposes the API beyond this machine)' },
  token: { type: 'string', value: 'T', help: 'API token (default AIRLESS_API_TOKEN, else a random one printed at start)', parse: checked(tokenText) },
};

/** Checks the text with `parse` but hands the handler the text itself (the server options take text). */
function checked(parse: (text: string) => unknown): (text: string) => string {
  return (text) => {
    parse(text);
    return text;
  };
}

function tokenText(text: string): string {
  if (text.length < 8) throw new OptionError('must be at least 8 characters');
  return text;
}

export function uiFlags(o: Record<string, unknown>): UiFlags {
  return { port: o.port as string | undefined, host: o.host as string | undefined, token: o.token as string | undefined };
}

export const ui: Command = {
  words: ['ui'], args: [], group: 'stack',
  summary: 'the web UI and REST API for a deployed stack (or a rehearsal), served on this machine',
  details: 'Reads DynamoDB and CloudWatch Logs with your own AWS credentials; nothing is deployed and nothing public is opened.',
  options: { stack: { type: 'string', value: 'NAME', help: 'CloudFormation stack to use (default Airless)' }, ...UI_OPTIONS },
  async run(_args, o) {
    const { cmdUi } = await import('../ui.js');
    return cmdUi({ ...uiFlags(o), stack: o.stack as string | undefined });
  },
};
