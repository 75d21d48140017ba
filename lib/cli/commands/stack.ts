/**
 * Shared by the commands that act on a deployed stack or, with `--dev`, on the running
 * `airless dev`: their options arrive typed from the registry, and their operation runs
 * on a {@link Target}, the stack's (opened from its outputs, ../aws.ts) or the dev's.
 */
import { onDev } from '../dev-control.js';
import type { StackContext } from '../aws.js';
import { COMMON, httpUrl } from '../options.js';
import type { Command, CommandIo, OptionSpec } from '../registry.js';
import type { Target } from '../target.js';

/** `--dev`: act on the `airless dev` started from this folder instead of a stack. */
export const DEV_OPTION: OptionSpec = { type: 'boolean', help: 'act on the running `airless dev` announced in .airless/dev.json, not a stack' };

/** `--endpoint`: a rehearsal (or LocalStack) instead of AWS; AIRLESS_AWS_ENDPOINT does the same. */
export const ENDPOINT: OptionSpec = { type: 'string', value: 'URL', help: 'talk to a rehearsal or LocalStack at URL instead of AWS (or set AIRLESS_AWS_ENDPOINT)', parse: httpUrl };

/**
 * Opens the stack the options name and runs `op` on it. The AWS parts load only here:
 * most commands never need them.
 *
 * @example
 * return onStack(o, io, (ctx) => pushBundle(dir, { s3: ctx.clients.s3, ... }));
 */
export async function onStack(o: { stack?: string; endpoint?: string }, io: CommandIo, op: (ctx: StackContext) => Promise<number>): Promise<number> {
  const { withStack } = await import('../aws.js');
  return withStack(o, io, op);
}

/** Runs `op` on the dev with `--dev`, else on the stack. */
export function onTarget(o: { dev?: boolean; stack?: string; endpoint?: string }, io: CommandIo, op: (t: Target) => Promise<number>): Promise<number> {
  return o.dev ? onDev(io, op) : onStack(o, io, op);
}

type Options = Record<string, any>;

/**
 * A command that runs `op` on a stack (`--stack`, `--endpoint`) or a dev (`--dev`).
 *
 * @example
 * export const runs = stackCommand({ words: ['runs'], args: [{ name: 'dag' }], summary: 'recent runs', op: (t, [dag]) => cmdRuns(t.ports, dag!, t.out) });
 */
export function stackCommand(c: Omit<Command, 'group' | 'run' | 'options'> & {
  options?: Record<string, OptionSpec>;
  op: (t: Target, args: string[], o: Options) => Promise<number>;
}): Command {
  const { op, ...rest } = c;
  return {
    ...rest,
    group: 'stack',
    options: { stack: COMMON.stack, endpoint: ENDPOINT, dev: DEV_OPTION, ...c.options },
    run: (args, o, io) => onTarget(o, io, (t) => op(t, args, o)),
  };
}
