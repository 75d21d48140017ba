/**
 * The CLI's entry: `--version`, `help [command]`, `<command> --help`, and dispatch to
 * the registry. Exit codes: 0 ok, 1 a run or task failed, 2 invalid input.
 */
import { COMMANDS } from './commands/index.js';
import { exitCodeFor, printError, UsageError } from './output.js';
import { packageInfo } from './package-info.js';
import { commandHelp, findCommand, nameOf, overview, parseCommand } from './registry.js';

const write = (s: string) => void process.stdout.write(s);

/**
 * Runs one command line; resolves with the exit code (errors are printed in one line).
 *
 * @example
 * process.exitCode = await main(['run', 'dags', '--dag', 'example', '--time-warp']);
 */
export async function main(argv: string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (err) {
    printError(err);
    return exitCodeFor(err);
  }
}

async function dispatch(argv: string[]): Promise<number> {
  const version = packageInfo().version;
  const [first] = argv;
  if (first === undefined) {
    write(overview(COMMANDS, version));
    return 2;
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    write(`airless ${version} (node ${process.versions.node})\n`);
    return 0;
  }
  if (first === '--help' || first === '-h') {
    write(overview(COMMANDS, version));
    return 0;
  }
  if (first === 'help') {
    if (argv.length === 1) {
      write(overview(COMMANDS, version));
      return 0;
    }
    const { command } = findCommand(COMMANDS, argv.slice(1));
    if (!command) throw new UsageError(`airless help: no command ${JSON.stringify(argv.slice(1).join(' '))} (commands: ${COMMANDS.map(nameOf).join(', ')})`);
    write(commandHelp(command));
    return 0;
  }
  const { command, rest } = findCommand(COMMANDS, argv);
  if (!command) {
    const group = COMMANDS.filter((c) => c.words[0] === first).map(nameOf);
    const hint = group.length ? `did you mean ${group.join(' or ')}?` : `commands: ${COMMANDS.map(nameOf).join(', ')}`;
    throw new UsageError(`airless: unknown command ${JSON.stringify(first)}; ${hint} (see airless --help)`);
  }
  const parsed = parseCommand(command, rest);
  if (parsed.help) {
    write(commandHelp(command));
    return 0;
  }
  return command.run(parsed.args, parsed.options);
}
