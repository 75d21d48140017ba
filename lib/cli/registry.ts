/**
 * The CLI's one command registry: each command (one file under `commands/`) declares
 * its words, arguments, options and handler; dispatch, option validation, `--help`,
 * `airless help <command>` and the overview are all generated from those declarations.
 * Every option is parsed and validated before a handler runs, so a bad value is a
 * one-line usage error (exit 2) that names the option and the expected form.
 */
import { parseArgs } from 'node:util';
import type { CliIo } from './io.js';
import { UsageError } from './output.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** May be given more than once (the handler gets an array). */
  multiple?: boolean;
  short?: string;
  /** The value's form in help, e.g. `N`, `ISO`, `JSON`. */
  value?: string;
  help: string;
  /** Turns the text into the handler's value; throws `OptionError` naming the expected form. */
  parse?: (text: string) => unknown;
}

export interface ArgSpec {
  name: string;
  optional?: boolean;
}

export type Group = 'local' | 'stack';

export interface Command {
  /** The words that select it: `['run']`, `['dags', 'list']`. */
  words: string[];
  args: ArgSpec[];
  summary: string;
  group: Group;
  options: Record<string, OptionSpec>;
  /** Extra lines for `airless help <command>`. */
  details?: string;
  /** Runs with typed options; `io` says where lines go and, for `--dev` and stack commands, what they act on. */
  run(args: string[], options: Record<string, any>, io: CommandIo): Promise<number>;
}

/** What a handler gets besides its arguments: the {@link CliIo} and the command line it came from (`--dev` forwards it). */
export interface CommandIo extends CliIo {
  argv: readonly string[];
  /** The CLI itself, for a command that runs others' command lines (a dev answering `--dev`); passed in, so no module imports the entry. */
  main(argv: string[], io: CliIo): Promise<number>;
}

/** Thrown by an option's `parse`: the expected form, without the option's name. */
export class OptionError extends Error {}

const HELP: OptionSpec = { type: 'boolean', short: 'h', help: 'show this help' };

export const nameOf = (c: Command) => c.words.join(' ');

function synopsis(c: Command): string {
  const args = c.args.map((a) => (a.optional ? `[${a.name}]` : `<${a.name}>`)).join(' ');
  return `airless ${nameOf(c)}${args ? ` ${args}` : ''}${Object.keys(c.options).length ? ' [options]' : ''}`;
}

/**
 * The help of one command: synopsis, summary, every option with its form.
 *
 * @example
 * commandHelp(runCommand); // 'Usage: airless run <dir> [options]\n...'
 */
export function commandHelp(c: Command): string {
  const opts = Object.entries({ ...c.options, help: HELP }).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
    return [flag, `${o.help}${o.multiple ? ' (repeatable)' : ''}`];
  });
  const w = Math.max(...opts.map(([f]) => f.length));
  const lines = opts.map(([f, h]) => `  ${f.padEnd(w)}  ${h}`);
  return `Usage: ${synopsis(c)}\n\n${c.summary}\n${c.details ? `\n${c.details.trimEnd()}\n` : ''}\nOptions:\n${lines.join('\n')}\n`;
}

const GROUPS: Record<Group, string> = {
  local: 'On this machine (embedded runtime, no AWS):',
  stack: 'Against a deployed stack (AWS credentials and region from the environment; --stack NAME, default Airless):',
};

/** The overview: every command with its one-line summary, by group. */
export function overview(commands: readonly Command[], version: string): string {
  const w = Math.max(...commands.map((c) => nameOf(c).length)) + 2;
  const out = [`airless ${version}: Apache Airflow semantics, serverless on AWS\n`, 'Usage: airless <command> [arguments] [options]\n'];
  for (const g of Object.keys(GROUPS) as Group[]) {
    out.push(GROUPS[g]);
    for (const c of commands.filter((x) => x.group === g)) out.push(`  ${nameOf(c).padEnd(w)}${c.summary}`);
    out.push('');
  }
  out.push('`airless help <command>` or `airless <command> --help` shows a command\'s arguments and options.');
  out.push('Exit codes: 0 ok, 1 a run or task failed, 2 invalid input (usage, DAG, type error).');
  return `${out.join('\n')}\n`;
}

/** The command that `argv` selects (longest match of its leading words) and the rest. */
export function findCommand(commands: readonly Command[], argv: readonly string[]): { command?: Command; rest: string[] } {
  let best: Command | undefined;
  for (const c of commands) {
    if (c.words.every((w, i) => argv[i] === w) && (!best || c.words.length > best.words.length)) best = c;
  }
  return { command: best, rest: best ? argv.slice(best.words.length) : [...argv] };
}

/**
 * Parses and validates the arguments of `c`; throws a one-line UsageError.
 *
 * @example
 * const { args, options } = parseCommand(runCommand, ['dags', '--dag', 'etl']);
 */
export function parseCommand(c: Command, argv: string[]): { args: string[]; options: Record<string, any>; help: boolean } {
  const name = nameOf(c);
  const hint = ` (see airless help ${name})`;
  const spec: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const [k, o] of Object.entries({ ...c.options, help: HELP })) {
    spec[k] = { type: o.type, ...(o.multiple ? { multiple: true } : {}), ...(o.short ? { short: o.short } : {}) };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: spec, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`airless ${name}: ${explainParseError(e as Error, c)}${hint}`);
  }
  if (parsed.values.help) return { args: parsed.positionals, options: {}, help: true };
  const required = c.args.filter((a) => !a.optional);
  if (parsed.positionals.length < required.length) {
    const missing = required.slice(parsed.positionals.length).map((a) => `<${a.name}>`).join(' ');
    throw new UsageError(`airless ${name}: missing ${missing}; usage: ${synopsis(c)}${hint}`);
  }
  if (parsed.positionals.length > c.args.length) {
    throw new UsageError(`airless ${name}: unexpected argument ${JSON.stringify(parsed.positionals[c.args.length])}; usage: ${synopsis(c)}${hint}`);
  }
  const options: Record<string, any> = {};
  for (const [k, v] of Object.entries(parsed.values)) {
    const o = c.options[k];
    if (!o || v === undefined) continue;
    if (o.type === 'boolean' || !o.parse) { options[k] = v; continue; }
    const one = (text: string) => {
      try {
        return o.parse!(text);
      } catch (e) {
        // One line a person can read, even for a 10,000-character --conf.
        const shown = text.length > 120 ? `${text.slice(0, 100)}… (${text.length} characters)` : text;
        throw new UsageError(`airless ${name}: --${k} ${(e as Error).message}, got ${JSON.stringify(shown)}${hint}`);
      }
    };
    options[k] = Array.isArray(v) ? v.map((x) => one(String(x))) : one(String(v));
  }
  return { args: parsed.positionals, options, help: false };
}

function explainParseError(e: Error, c: Command): string {
  const code = (e as { code?: string }).code;
  const opt = /'(-[^' ]+)/.exec(e.message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const known = Object.keys(c.options).map((k) => `--${k}`).join(', ');
    return `unknown option ${opt ?? ''}${known ? ` (options: ${known})` : ' (it takes no options)'}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const key = opt?.replace(/^--?/, '').split(' ')[0] ?? '';
    const o = c.options[key];
    if (o?.type === 'string') return `--${key} needs a value (${o.value ?? 'VALUE'})`;
    return `--${key} takes no value`;
  }
  return e.message.split('\n')[0];
}
