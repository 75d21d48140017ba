/**
 * The CLI's entry: `--version`, `help [command]`, `<command> --help`, and dispatch to
 * the registry, the one dispatch path (a dev answering `--dev` and the rehearsal's
 * runner come through here too). Exit codes: 0 ok, 1 a run or task failed, 2 invalid input.
 */
import { COMMANDS } from './commands/index.js';
import { capture, STDIO, type CliIo, type CliResult } from './io.js';
import { exitCodeFor, printError, UsageError } from './output.js';
import { packageInfo } from '../package-info.js';
import { commandHelp, findCommand, nameOf, overview, parseCommand } from './registry.js';

/**
 * Runs one command line; resolves with the exit code (errors are printed in one line).
 *
 * @example
 * process.exitCode = await main(['run', 'dags', '--dag', 'example', '--time-warp']);
 */
export async function main(argv: string[], io: CliIo = STDIO): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (err) {
    printError(err, io.err);
    return exitCodeFor(err);
  }
}

/**
 * Runs one command line with its lines captured: what the rehearsal's scenarios are given
 * to drive the CLI, exactly as a user's terminal would.
 *
 * @example
 * const { code, stdout } = await runCli(['runs', 'etl', '--stack', 'Airless'], { env: { AIRLESS_AWS_ENDPOINT: url } });
 */
export function runCli(argv: string[], io: Partial<Omit<CliIo, 'out' | 'err'>> = {}): Promise<CliResult> {
  return capture(main, argv, io);
}

/** Text `help`/`--version` write: split into lines for `io.out`. */
function write(io: CliIo, text: string): void {
  for (const line of text.replace(/\n$/, '').split('\n')) io.out(line);
}

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  const version = packageInfo().version;
  const [first] = argv;
  if (first === undefined) {
    write(io, overview(COMMANDS, version));
    return 2;
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    write(io, `airless ${version} (node ${process.versions.node})`);
    return 0;
  }
  if (first === '--help' || first === '-h') {
    write(io, overview(COMMANDS, version));
    return 0;
  }
  if (first === 'help') {
    if (argv.length === 1) {
      write(io, overview(COMMANDS, version));
      return 0;
    }
    const { command } = findCommand(COMMANDS, argv.slice(1));
    if (!command) throw new UsageError(`airless help: no command ${JSON.stringify(argv.slice(1).join(' '))} (commands: ${COMMANDS.map(nameOf).join(', ')})`);
    write(io, commandHelp(command));
    return 0;
  }
  const { command, rest } = findCommand(COMMANDS, argv);
  if (!command) {
    const group = COMMANDS.filter((c) => c.words[0] === first).map(nameOf);
    const hint = group.length ? `did you mean ${group.join(' or ')}?` : `commands: ${COMMANDS.map(nameOf).join(', ')}`;
    throw new UsageError(`airless: unknown command ${JSON.stringify(first)}; ${hint} (see airless --help)`);
  }
  // A dev answers only what a user could send it with --dev: never a push or a stack command.
  if (io.dev && !(command.options.dev && rest.includes('--dev'))) {
    throw new UsageError(`airless ${nameOf(command)} cannot run against a dev (it answers ${COMMANDS.filter((c) => c.options.dev).map(nameOf).join(', ')} with --dev)`);
  }
  const parsed = parseCommand(command, rest);
  if (parsed.help) {
    write(io, commandHelp(command));
    return 0;
  }
  return command.run(parsed.args, parsed.options, { ...io, argv, main });
}
