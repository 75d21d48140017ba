/**
 * What a scenario gets: the running rehearsal, the real CLI (in process, against the
 * rehearsal's endpoint, on its clock), and ports on the local servers for checking state.
 * The CLI comes in as a {@link CliRunner} from whoever starts the scenarios (`airless
 * rehearse`, the tests): the rehearsal imports nothing of lib/cli; the stack's output names
 * come from lib/adapters/aws/stack-contract.ts.
 */
import { envFromOutputs } from '../../adapters/aws/stack-contract.js';
import { awsPorts, type AwsPorts } from '../../adapters/aws/wiring.js';
import { AirlessError } from '../../engine/index.js';
import type { Clock, TaskInstance } from '../../engine/index.js';
import type { Rehearsal } from '../rehearsal.js';
import { waitOnClock } from '../clock.js';

export interface CliResult {
  code: number;
  out: string[];
  error?: string;
}

/**
 * Runs one `airless` command line in process and captures its lines: `env` is its
 * environment, `clock` the clock of the ports it opens (the rehearsal's virtual one).
 * lib/cli's `runCli` is one.
 */
export type CliRunner = (
  argv: string[],
  io: { env: Record<string, string | undefined>; clock?: Clock },
) => Promise<{ code: number; stdout: string[]; stderr: string[] }>;

/** `cli('trigger', ['etl'], { conf: '{}', json: true })` as the command line `trigger etl --conf {} --json`. */
export function commandLine(cmd: string, args: readonly string[], options: Record<string, unknown>): string[] {
  const argv = [...cmd.split(' '), ...args];
  for (const [k, v] of Object.entries(options)) {
    if (v === undefined || v === false) continue;
    argv.push(`--${k}`);
    if (v !== true) argv.push(String(v));
  }
  return argv;
}

export interface ScenarioContext {
  r: Rehearsal;
  /** `airless <cmd> ...args` against the rehearsal, exactly as a user runs it (`cli('variables', ['set', k, v], { stack })` too). */
  cli(cmd: string, args: string[], options?: Record<string, unknown>): Promise<CliResult>;
  /** Ports on the local servers, unauthorized: for the scenario's own checks. */
  ports: AwsPorts;
  log(line: string): void;
  /** Fails the scenario with a message when `ok` is false. */
  check(ok: boolean, what: string): void;
  /**
   * Waits until `done()` holds, failing when `withinMs` of rehearsal (virtual) time pass
   * first (default an hour): a slow machine takes longer in real time, never in virtual.
   */
  until(done: () => Promise<boolean> | boolean, what: string, withinMs?: number): Promise<void>;
  /** Waits until a run ends (within `withinMs` of virtual time, default an hour); returns its state and tasks. */
  runEnds(dagId: string, runId: string, withinMs?: number): Promise<{ state: string; tasks: TaskInstance[] }>;
  /** Waits until a function's log (logical id containing `fn`) has a line with every one of `parts`: log lines arrive apart from the state. */
  logLine(fn: string, parts: readonly string[], what: string): Promise<string>;
}

/** What a scenario waits for, in virtual time, unless it says otherwise. */
export const DEFAULT_WAIT_MS = 60 * 60_000;

export type Scenario = (ctx: ScenarioContext) => Promise<void>;

/** A scenario's step failed. */
export class ScenarioError extends AirlessError {}

export function scenarioContext(r: Rehearsal, log: (line: string) => void, runner: CliRunner): ScenarioContext {
  const env = envFromOutputs(r.outputs, { stackName: r.template.stackName, region: 'us-east-1' });
  const clock = { now: () => r.clock.now(), sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)) };
  const silent = { info: () => {}, warn: () => {}, error: () => {} };
  const ports = awsPorts(env, { clients: r.direct, metrics: { count: () => {}, timing: () => {} }, log: silent, clock, workerId: 'scenario' });
  const ctx: ScenarioContext = {
    r,
    ports,
    log,
    async cli(cmd, args, options = {}) {
      const env = { AIRLESS_AWS_ENDPOINT: r.endpoint, AWS_ACCESS_KEY_ID: 'AKIACLIREHEARSAL0000', AWS_SECRET_ACCESS_KEY: 'x', AWS_REGION: 'us-east-1' };
      const { code, stdout, stderr } = await runner(commandLine(cmd, args, { stack: r.template.stackName, ...options }), { env, clock });
      const shown = [...stdout.map((l) => `  ${l}`), ...stderr.map((l) => `  ! ${l}`)];
      log(`$ airless ${cmd} ${args.join(' ')}${shown.length ? `\n${shown.join('\n')}` : ''}`);
      return { code, out: stdout, ...(stderr.length ? { error: stderr.join('\n') } : {}) };
    },
    check(ok, what) {
      if (!ok) throw new ScenarioError(what);
      log(`  ok: ${what}`);
    },
    until: (done, what, withinMs = DEFAULT_WAIT_MS) => waitOnClock(r.clock, done, what, { virtualMs: withinMs }),
    async runEnds(dagId, runId, withinMs = DEFAULT_WAIT_MS) {
      let state = '';
      await ctx.until(async () => {
        state = (await ports.store.getRun(dagId, runId))?.state ?? '';
        return state === 'success' || state === 'failed';
      }, `run ${dagId}/${runId} to end`, withinMs);
      return { state, tasks: await ports.store.listTasks(dagId, runId) };
    },
    async logLine(fn, parts, what) {
      const ids = [...r.functions.keys()].filter((id) => id.includes(fn));
      let found: string | undefined;
      await ctx.until(() => {
        found = ids.flatMap((id) => r.logs.lines(id)).find((l) => parts.every((p) => l.includes(p)));
        return found !== undefined;
      }, what);
      return found!;
    },
  };
  return ctx;
}
