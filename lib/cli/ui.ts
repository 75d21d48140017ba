/**
 * The web UI and REST API from the CLI: `airless dev` serves them over its embedded
 * runtime ({@link attachUi}); `airless ui --stack NAME` serves them on this machine for a
 * deployed stack, reading DynamoDB and CloudWatch Logs with the user's own credentials
 * ({@link cmdUi}).
 */
import { observeStore } from '../adapters/memory/observe.js';
import type { ApiBackend } from '../api/backend.js';
import type { DevControl } from '../api/routes-dev.js';
import { startApiServer, type ApiServer } from '../api/server.js';
import { MemoryTaskLogs, type LogEntry, type TaskLogReader } from '../api/task-logs.js';
import type { Ports } from '../engine/index.js';
import { connectionStore, variableStore } from './api-secrets.js';
import { UsageError } from './output.js';

export interface UiFlags {
  port?: string;
  host?: string;
  token?: string;
}

function serverOptions(f: UiFlags, env: Record<string, string | undefined>) {
  const port = f.port === undefined ? 8080 : Number(f.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number from 0 to 65535, got ${f.port}`);
  const token = f.token ?? env.AIRLESS_API_TOKEN;
  if (token !== undefined && token.length < 8) throw new UsageError('--token (or AIRLESS_API_TOKEN) must be at least 8 characters');
  return { port, host: f.host ?? '127.0.0.1', token };
}

function announce(api: ApiServer, what: string, out: (s: string) => void): void {
  out(`${what}: UI and REST API (Airflow v2 subset) on ${api.url}\n`);
  // In the fragment: a browser never sends it to a server, and the page keeps it in its own tab.
  out(`  open ${api.url}/#token=${api.token}\n`);
  out(`  API: curl -H 'Authorization: Bearer ${api.token}' ${api.url}/api/v2/dags\n`);
}

/**
 * Serves the UI over an embedded runtime's ports: keeps each try's log lines (the
 * runtime's log port is wrapped) and its state changes as log lines too.
 *
 * @example
 * const ui = await attachUi(rt, { port: '0' });
 * // ... rt.runUntil(...)
 * await ui.close();
 */
export async function attachUi(
  rt: { ports: Ports; clock: { now(): number } },
  f: UiFlags,
  opts: { env?: Record<string, string | undefined>; out?: (s: string) => void; name?: string; devControl?: DevControl } = {},
): Promise<ApiServer> {
  const logs = new MemoryTaskLogs(() => rt.clock.now());
  rt.ports.log = logs.wrap(rt.ports.log);
  rt.ports.store = observeStore(rt.ports.store, (e) => {
    if (e.type !== 'task' || e.ti.tryNumber < 1) return;
    const { dagId, runId, taskId, tryNumber } = e.ti;
    logs.append({ dagId, runId, taskId, tryNumber }, {
      timestamp: new Date(rt.clock.now()).toISOString(), level: 'info', event: `state ${e.from ? `${e.from} -> ` : ''}${e.ti.state}`,
    });
  });
  const backend: ApiBackend = { ports: rt.ports, logs, name: opts.name ?? 'local', variables: await variableStore({}, opts.env ?? process.env), connections: await connectionStore({}, opts.env ?? process.env), ...(opts.devControl ? { devControl: opts.devControl } : {}) };
  const api = await startApiServer({ backend, ...serverOptions(f, opts.env ?? process.env), onError: (err) => process.stderr.write(`api error: ${String((err as Error)?.stack ?? err)}\n`) });
  announce(api, 'airless dev', opts.out ?? ((s) => void process.stdout.write(s)));
  return api;
}

/** Reads a try's log from the stack's worker log group in CloudWatch Logs. */
export function cloudWatchLogs(ctx: { clients: { logs: import('@aws-sdk/client-cloudwatch-logs').CloudWatchLogsClient; cloudformation: import('@aws-sdk/client-cloudformation').CloudFormationClient }; stackName: string; outputs: Record<string, string>; ports: Ports }): TaskLogReader {
  let group: Promise<string> | undefined;
  return {
    async read(ref) {
      const { workerLogGroup } = await import('./aws-stack.js');
      const { fetchTaskLogs } = await import('./aws-ops.js');
      group ??= workerLogGroup(ctx.clients.cloudformation, ctx.stackName, ctx.outputs);
      const run = await ctx.ports.store.getRun(ref.dagId, ref.runId);
      const margin = 5 * 60_000;
      const lines = await fetchTaskLogs(ctx.clients.logs, {
        dagId: ref.dagId, runId: ref.runId, taskId: ref.taskId, tryNumber: ref.tryNumber, logGroupName: await group,
        startTime: run ? run.queuedAt - margin : undefined, endTime: run?.endedAt === undefined ? undefined : run.endedAt + margin,
      });
      return lines.map(({ timestamp, level, message, ...rest }): LogEntry => ({
        ...rest, timestamp: String(timestamp ?? ''), level: String(level ?? 'info').toLowerCase(), event: String(message ?? ''),
      }));
    },
  };
}

/**
 * Starts the UI and API for a deployed stack (or a rehearsal): its outputs name the
 * tables, queue and log group; every read and action uses the caller's credentials.
 *
 * @example
 * const api = await startStackUi({ stack: 'Airless', port: '0' }, process.env);
 */
export async function startStackUi(f: UiFlags & { stack?: string }, env: Record<string, string | undefined>, out: (s: string) => void = (s) => void process.stdout.write(s)): Promise<ApiServer> {
  const { openStack } = await import('./aws.js');
  const { DEFAULT_STACK } = await import('./aws-stack.js');
  const options = serverOptions(f, env);
  const ctx = await openStack(f.stack ?? DEFAULT_STACK, env);
  const backend: ApiBackend = { ports: ctx.ports, logs: cloudWatchLogs(ctx), name: `stack ${ctx.stackName}`, variables: await variableStore({ stack: ctx.stackName }, env), connections: await connectionStore({ stack: ctx.stackName }, env) };
  const api = await startApiServer({ backend, ...options, onError: (err) => process.stderr.write(`api error: ${String((err as Error)?.stack ?? err)}\n`) });
  announce(api, `airless ui --stack ${ctx.stackName}`, out);
  return api;
}

/** `airless ui --stack NAME`: {@link startStackUi} until Ctrl-C. Nothing is deployed. */
export async function cmdUi(f: UiFlags & { stack?: string }, env: Record<string, string | undefined> = process.env): Promise<number> {
  const api = await startStackUi(f, env);
  process.stdout.write('Ctrl-C stops.\n');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await api.close();
  return 0;
}
