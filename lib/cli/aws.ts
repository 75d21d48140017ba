/**
 * CLI commands against a deployed stack. Resources come from the stack's outputs
 * (`--stack`, default `Airless`), region and credentials from the usual AWS
 * environment; `AIRLESS_AWS_ENDPOINT` points every client at LocalStack. AWS errors are
 * explained in one line: exit 2 for setup and input problems, 1 otherwise.
 */
import { SystemClock } from '../adapters/clock.js';
import { awsPorts, type AwsEnv, type AwsPorts } from '../adapters/aws/wiring.js';
import { AirlessError } from '../engine/index.js';
import type { Clock, Log, Metrics } from '../engine/index.js';
import { TimerPump } from '../adapters/aws/eventbridge/timer-pump.js';
import { cmdClear, cmdLogs, cmdPause, cmdRuns, cmdSignal, cmdTasks, cmdTrigger } from './aws-ops.js';
import { defaultCacheDir } from '../build/index.js';
import { pushBundle } from './aws-push.js';
import { cmdBackfillOn } from './backfill.js';
import { AwsConfigError, cliClients, DEFAULT_STACK, envFromOutputs, explainAwsError, stackOutputs, functionLogGroups, type CliClients } from './aws-stack.js';
import { parseJsonOption, UsageError } from './output.js';
import { isoDate } from './options.js';
import { runAssetsVerb } from './assets.js';

export interface AwsCommandOptions {
  stack?: string;
  /** An AWS-compatible endpoint for every client (a rehearsal, LocalStack); overrides AIRLESS_AWS_ENDPOINT. */
  endpoint?: string;
  'logical-date'?: string;
  'run-id'?: string;
  conf?: string;
  payload?: string;
  try?: string;
  'no-downstream'?: boolean;
  [k: string]: unknown;
}

/** Everything a command needs, built once from the stack's outputs. */
export interface StackContext {
  stackName: string;
  clients: CliClients;
  outputs: Record<string, string>;
  env: AwsEnv;
  ports: AwsPorts;
  out: (line: string) => void;
}

const QUIET_LOG: Log = { info: () => {}, warn: () => {}, error: () => {} };
const NO_METRICS: Metrics = { count: () => {}, timing: () => {} };

const USAGE: Record<string, [number, string]> = {
  push: [1, '<dir>'], trigger: [1, '<dag>'], runs: [1, '<dag>'], tasks: [2, '<dag> <runId>'],
  logs: [3, '<dag> <runId> <task>'], signal: [1, '<key>'], pause: [1, '<dag>'], unpause: [1, '<dag>'],
  clear: [3, '<dag> <runId> <task>'], 'timer-pump': [0, ''], backfill: [0, ''], assets: [1, 'list|events|emit'],
};

/**
 * Opens a stack: reads its outputs and builds AWS ports on them.
 *
 * @example
 * const ctx = await openStack('Airless', process.env);
 * await ctx.ports.store.listDags();
 */
export async function openStack(
  stackName: string,
  environment: Record<string, string | undefined>,
  opts: { clients?: CliClients; out?: (line: string) => void; clock?: Clock } = {},
): Promise<StackContext> {
  const clients = opts.clients ?? cliClients(environment);
  const outputs = await stackOutputs(clients.cloudformation, stackName);
  const env = envFromOutputs(outputs, { stackName, region: clients.region });
  const ports = awsPorts(env, { clients, metrics: NO_METRICS, log: QUIET_LOG, clock: opts.clock ?? new SystemClock(), workerId: 'cli' });
  return { stackName, clients, outputs, env, ports, out: opts.out ?? ((line) => void process.stdout.write(`${line}\n`)) };
}

/**
 * Runs one deployed-stack command; resolves with the exit code.
 *
 * @example
 * process.exitCode = await runAwsCommand('runs', ['etl_daily'], { stack: 'Airless' });
 */
export async function runAwsCommand(
  cmd: string,
  args: string[],
  o: AwsCommandOptions,
  deps: { environment?: Record<string, string | undefined>; clients?: CliClients; out?: (line: string) => void; clock?: Clock } = {},
): Promise<number> {
  const usage = USAGE[cmd];
  if (!usage) throw new UsageError(`unknown command ${cmd}; see airless --help`);
  if (args.length < usage[0]) throw new UsageError(`airless ${cmd} needs ${usage[1]}`);
  const base = deps.environment ?? process.env;
  if (o.endpoint !== undefined && !/^https?:\/\/[^\s/]+/.test(o.endpoint)) throw new UsageError(`--endpoint must be an http(s) URL, got ${o.endpoint}`);
  const environment = o.endpoint ? { ...base, AIRLESS_AWS_ENDPOINT: o.endpoint } : base;
  try {
    const ctx = await openStack(o.stack ?? DEFAULT_STACK, environment, deps);
    return await dispatch(ctx, cmd, args, o, environment);
  } catch (e) {
    throw explain(e);
  }
}

async function dispatch(ctx: StackContext, cmd: string, a: string[], o: AwsCommandOptions, environment: Record<string, string | undefined>): Promise<number> {
  const { ports: p, out } = ctx;
  switch (cmd) {
    case 'push':
      await pushBundle(a[0], { s3: ctx.clients.s3, bucket: ctx.env.bucket, out, typecheck: !o['no-typecheck'], cacheDir: defaultCacheDir() });
      return 0;
    case 'trigger':
      return cmdTrigger(p, a[0], parseJsonOption('conf', o.conf), out, parseLogicalDate(o['logical-date']), o['run-id']);
    case 'runs':
      return cmdRuns(p, a[0], out);
    case 'tasks':
      return cmdTasks(p, a[0], a[1], out);
    case 'logs': {
      const groups = await functionLogGroups(ctx.clients.cloudformation, ctx.stackName, ctx.outputs);
      const tryNumber = o.try === undefined ? undefined : Number(o.try);
      return cmdLogs(p, ctx.clients.logs, { dagId: a[0], runId: a[1], taskId: a[2], tryNumber, groups }, out);
    }
    case 'signal':
      return cmdSignal(p, a[0], o.payload === undefined ? undefined : parsePayload(o.payload), out);
    case 'pause':
    case 'unpause':
      return cmdPause(p, a[0], cmd === 'pause', out);
    case 'clear':
      return cmdClear(p, a[0], a[1], a[2], !o['no-downstream'], out);
    case 'timer-pump':
      return runTimerPump(ctx, environment);
    case 'backfill':
      // Its options arrive parsed (commands/backfill.ts validates and converts them first).
      return cmdBackfillOn(p, o as Parameters<typeof cmdBackfillOn>[1], out);
    case 'assets':
      return runAssetsVerb(p, a, o, out);
    default:
      throw new UsageError(`unknown command ${cmd}`);
  }
}

/** `airless timer-pump`: LocalStack only; interval from AIRLESS_TIMER_PUMP_INTERVAL_S (default 5), one pass with AIRLESS_TIMER_PUMP_ONCE=1. */
async function runTimerPump(ctx: StackContext, environment: Record<string, string | undefined>): Promise<number> {
  const intervalS = Number(environment.AIRLESS_TIMER_PUMP_INTERVAL_S ?? 5);
  if (!Number.isFinite(intervalS) || intervalS <= 0) throw new UsageError(`AIRLESS_TIMER_PUMP_INTERVAL_S must be a positive number, got ${intervalS}`);
  const pump = new TimerPump({
    scheduler: ctx.clients.scheduler, sqs: ctx.clients.sqs,
    groups: [ctx.env.timerGroup, ctx.env.dagScheduleGroup], log: ctx.out,
  });
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    ctx.out(`timer pump on ${ctx.env.timerGroup}, ${ctx.env.dagScheduleGroup} every ${intervalS} s (Ctrl-C stops)`);
    await pump.run({ clock: new SystemClock(), intervalMs: intervalS * 1000, signal: abort.signal, maxCycles: environment.AIRLESS_TIMER_PUMP_ONCE ? 1 : undefined });
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  return 0;
}

/** As the option parser reads it (a date-time without a zone is UTC), not as `Date.parse` (local time). */
function parseLogicalDate(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  try {
    return isoDate(text);
  } catch (e) {
    throw new UsageError(`--logical-date ${(e as Error).message}, got ${JSON.stringify(text)}`);
  }
}

function parsePayload(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // a plain string payload needs no quoting on the command line
  }
}

/** SDK errors (also when an adapter wrapped them) become one explained line. */
function explain(e: unknown): unknown {
  if (e instanceof AwsConfigError) return e;
  if (e instanceof AirlessError) {
    const cause = (e as { cause?: { $metadata?: unknown; name?: string } }).cause;
    if (cause && typeof cause === 'object' && '$metadata' in cause && /AccessDenied|ExpiredToken|Credentials|UnrecognizedClient|InvalidClientTokenId/.test(cause.name ?? '')) {
      return explainAwsError(e.message.split(' failed:')[0], cause);
    }
    return e;
  }
  return explainAwsError('AWS request', e);
}
