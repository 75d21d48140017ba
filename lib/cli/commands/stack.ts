/**
 * Shared by the deployed-stack commands: they validate here and run in `../aws.ts`,
 * which reads the stack's outputs. Options stay text for it; validation happens first.
 */
import { DEV_COMMANDS, sendToDev } from '../dev-control.js';
import { COMMON, httpUrl } from '../options.js';
import type { Command, OptionSpec } from '../registry.js';

/** `--dev`: act on the `airless dev` started from this folder instead of a stack. */
export const DEV_OPTION: OptionSpec = { type: 'boolean', help: 'act on the running `airless dev` announced in .airless/dev.json, not a stack' };

/** `--endpoint`: a rehearsal (or LocalStack) instead of AWS; AIRLESS_AWS_ENDPOINT does the same. */
export const ENDPOINT: OptionSpec = { type: 'string', value: 'URL', help: 'talk to a rehearsal or LocalStack at URL instead of AWS (or set AIRLESS_AWS_ENDPOINT)', parse: httpUrl };

/** Checks the text with `parse` but hands the handler the text itself. */
export function checked(parse: (text: string) => unknown): (text: string) => string {
  return (text) => {
    parse(text);
    return text;
  };
}

/** A command that runs `runAwsCommand(words[0], args, options)`. */
export function stackCommand(c: Omit<Command, 'group' | 'run' | 'options'> & { options?: Record<string, OptionSpec> }): Command {
  return {
    ...c,
    group: 'stack',
    options: { stack: COMMON.stack, endpoint: ENDPOINT, ...(DEV_COMMANDS.includes(c.words[0]) ? { dev: DEV_OPTION } : {}), ...c.options },
    async run(args, options) {
      if (options.dev) return sendToDev({ command: c.words[0], args, options });
      const { runAwsCommand } = await import('../aws.js');
      return runAwsCommand(c.words[0], args, options);
    },
  };
}
