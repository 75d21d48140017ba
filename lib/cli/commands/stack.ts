/**
 * Shared by the deployed-stack commands: they validate here and run in `../aws.ts`,
 * which reads the stack's outputs. Options stay text for it; validation happens first.
 */
import { COMMON } from '../options.js';
import type { Command, OptionSpec } from '../registry.js';

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
    options: { stack: COMMON.stack, ...c.options },
    async run(args, options) {
      const { runAwsCommand } = await import('../aws.js');
      return runAwsCommand(c.words[0], args, options);
    },
  };
}
