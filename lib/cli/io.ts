/**
 * Where a command's lines go and what it reads from its surroundings. `main` gets one:
 * the terminal's by default, a capturing one in the rehearsal's runner and in a dev
 * answering `--dev` requests, so each command is written once and runs in all three.
 */
import type { Clock, Ports } from '../engine/index.js';
import type { MemoryLog } from '../adapters/memory/observe.js';
import type { CliClients } from './aws-stack.js';

export type Out = (line: string) => void;

/** The ports of a running `airless dev`, set while it answers a `--dev` request. */
export interface DevSide {
  ports: Ports;
  /** Its log lines, which `logs --dev` reads. */
  log: MemoryLog;
}

export interface CliIo {
  env: Record<string, string | undefined>;
  out: Out;
  /** One line of an error (printError writes here). */
  err: Out;
  /** The clock of the ports a stack command opens (a rehearsal's virtual one); default the system's. */
  clock?: Clock;
  /** AWS clients for a stack command (tests bring mocked ones); default from `env`. */
  clients?: CliClients;
  /** Inside a dev answering a `--dev` request: act on its ports instead of sending the request on. */
  dev?: DevSide;
}

/** The terminal: stdout, stderr and the process's environment. */
export const STDIO: CliIo = {
  env: process.env,
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
};

/** What a captured command line produced. */
export interface CliResult {
  code: number;
  stdout: string[];
  stderr: string[];
}

/**
 * Runs a command line through `main` with its lines captured (the rehearsal's runner, a
 * dev answering `--dev`). `main` is passed in: no module but the entry imports the entry.
 *
 * @example
 * const { code, stdout } = await capture(io.main, ['runs', 'etl', '--dev'], { env: process.env, dev });
 */
export async function capture(
  main: (argv: string[], io: CliIo) => Promise<number>, argv: string[], io: Partial<Omit<CliIo, 'out' | 'err'>> = {},
): Promise<CliResult> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(argv, { env: process.env, ...io, out: (l) => void stdout.push(l), err: (l) => void stderr.push(l) });
  return { code, stdout, stderr };
}
