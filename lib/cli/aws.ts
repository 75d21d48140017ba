/**
 * Opening a deployed stack for a CLI command. Resources come from the stack's outputs
 * (`--stack`, default `Airless`), region and credentials from the usual AWS environment;
 * `--endpoint` or `AIRLESS_AWS_ENDPOINT` points every client at a rehearsal or LocalStack.
 * AWS errors are explained in one line: exit 2 for setup and input problems, 1 otherwise.
 */
import { SystemClock } from '../adapters/clock.js';
import { awsPorts, type AwsEnv, type AwsPorts } from '../adapters/aws/wiring.js';
import { AirlessError } from '../engine/index.js';
import type { Clock, Log, Metrics } from '../engine/index.js';
import { TimerPump } from '../adapters/aws/eventbridge/timer-pump.js';
import { cmdLogs, syncScheduleState } from './aws-ops.js';
import { AwsConfigError, cliClients, DEFAULT_STACK, envFromOutputs, explainAwsError, stackOutputs, functionLogGroups, type CliClients } from './aws-stack.js';
import type { CliIo } from './io.js';
import { UsageError } from './output.js';
import type { Target } from './target.js';

/** Everything a command needs, built once from the stack's outputs; a {@link Target} for the shared operations. */
export interface StackContext extends Target {
  stackName: string;
  clients: CliClients;
  outputs: Record<string, string>;
  env: AwsEnv;
  ports: AwsPorts;
}

const QUIET_LOG: Log = { info: () => {}, warn: () => {}, error: () => {} };
const NO_METRICS: Metrics = { count: () => {}, timing: () => {} };

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
  const out = opts.out ?? ((line) => void process.stdout.write(`${line}\n`));
  return {
    stackName, clients, outputs, env, ports, out,
    schedules: (dag, paused) => syncScheduleState(clients.scheduler, env.dagScheduleGroup, dag, paused, ports.clock.now()),
    async printTaskLog(q) {
      const groups = await functionLogGroups(clients.cloudformation, stackName, outputs);
      return cmdLogs(ports, clients.logs, { ...q, groups }, out);
    },
  };
}

/**
 * Opens the stack a command names (`--stack`, `--endpoint`) and runs `op` on it; AWS
 * errors come out explained in one line.
 *
 * @example
 * await withStack({ stack: 'Airless' }, STDIO, (ctx) => cmdRuns(ctx.ports, 'etl', ctx.out));
 */
export async function withStack(o: { stack?: string; endpoint?: string }, io: CliIo, op: (ctx: StackContext) => Promise<number>): Promise<number> {
  const environment = o.endpoint ? { ...io.env, AIRLESS_AWS_ENDPOINT: o.endpoint } : io.env;
  try {
    const ctx = await openStack(o.stack ?? DEFAULT_STACK, environment, { clients: io.clients, out: io.out, clock: io.clock });
    return await op(ctx);
  } catch (e) {
    throw explain(e);
  }
}

/** `airless timer-pump`: LocalStack only; interval from AIRLESS_TIMER_PUMP_INTERVAL_S (default 5), one pass with AIRLESS_TIMER_PUMP_ONCE=1. */
export async function runTimerPump(ctx: StackContext, environment: Record<string, string | undefined>): Promise<number> {
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
