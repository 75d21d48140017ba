/**
 * The local control plane of `airless dev`: an HTTP endpoint on 127.0.0.1 with a random
 * token, announced in `.airless/dev.json` (under the working directory), so that
 * `airless trigger/runs/tasks/clear/pause/unpause/signal/logs --dev` act on the running
 * dev exactly as on a stack. The dev process runs the same operations on its own ports.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { MemoryLog } from '../adapters/memory/observe.js';
import type { AwsPorts } from '../adapters/aws/wiring.js';
import { AirlessError } from '../engine/index.js';
import type { Ports } from '../engine/index.js';
import { setPaused } from '../engine/index.js';
import { cmdClear, cmdRuns, cmdSignal, cmdTasks, cmdTrigger } from './aws-ops.js';
import { cmdBackfillOn } from './backfill.js';
import { isoDate, jsonOrString } from './options.js';
import { devTaskLog } from './sensor-logs.js';
import { exitCodeFor, UsageError } from './output.js';
import { runAssetsVerb } from './assets.js';

/** Where a running dev announces its endpoint. */
export const DEV_ANNOUNCE = path.join('.airless', 'dev.json');

export interface DevAnnouncement {
  url: string;
  token: string;
  dir: string;
  pid: number;
}

export interface ControlRequest {
  command: string;
  args: string[];
  options: Record<string, unknown>;
}

/** Commands a dev answers (the others need a stack). */
export const DEV_COMMANDS = ['trigger', 'runs', 'tasks', 'clear', 'pause', 'unpause', 'signal', 'logs', 'backfill', 'assets'];

async function execute(p: Ports, log: MemoryLog, r: ControlRequest, out: (l: string) => void): Promise<number> {
  const [a0, a1, a2] = r.args;
  // The stack operations type their ports as AWS ones but use only the engine's ports.
  const ports = p as unknown as AwsPorts;
  switch (r.command) {
    case 'trigger':
      return cmdTrigger(ports, a0, r.options.conf === undefined ? undefined : JSON.parse(String(r.options.conf)), out, devLogicalDate(r.options['logical-date']),
        r.options['run-id'] === undefined ? undefined : String(r.options['run-id']));
    case 'runs':
      return cmdRuns(ports, a0, out);
    case 'tasks':
      return cmdTasks(ports, a0, a1, out);
    case 'clear':
      return cmdClear(ports, a0, a1, a2, !r.options['no-downstream'], out);
    case 'pause':
    case 'unpause':
      await setPaused(p, a0, r.command === 'pause');
      out(`${a0} ${r.command}d`);
      return 0;
    case 'signal':
      return cmdSignal(ports, a0, r.options.payload === undefined ? undefined : jsonOrString(String(r.options.payload)), out);
    case 'backfill':
      return cmdBackfillOn(p, r.options, out);
    case 'logs': {
      const tryNumber = r.options.try === undefined ? undefined : Number(r.options.try);
      // A batched sensor's log includes the poker's lines about its target (sensor-logs.ts).
      const lines = devTaskLog(log.lines, { dagId: a0, runId: a1, taskId: a2, tryNumber });
      if (lines.length === 0) out(`no log lines for ${a0} ${a1} ${a2}${tryNumber ? ` try ${tryNumber}` : ''} (dev keeps the last 10,000 lines)`);
      for (const { tryNumber: n, line, target } of lines) {
        const extra = target ? `  ${JSON.stringify(line.fields)}` : '';
        out(`try ${n}  ${line.level}  ${line.msg}${extra}`);
      }
      return 0;
    }
    case 'assets':
      return runAssetsVerb(p, r.args, r.options, out);
    default:
      throw new UsageError(`airless ${r.command} cannot run against a dev (it answers ${DEV_COMMANDS.join(', ')})`);
  }
}

/** `--logical-date` as the dev receives it: checked again here (the request may not come from the CLI). */
function devLogicalDate(text: unknown): number | undefined {
  if (text === undefined) return undefined;
  try {
    return isoDate(String(text));
  } catch (e) {
    throw new UsageError(`--logical-date ${(e as Error).message}, got ${JSON.stringify(text)}`);
  }
}

/**
 * Serves the control endpoint and writes the announcement; `close` removes both.
 *
 * @example
 * const ctl = await startDevControl(rt.ports, log, 'dags');
 */
export async function startDevControl(p: Ports, log: MemoryLog, dir: string): Promise<{ announcement: DevAnnouncement; close: () => Promise<void> }> {
  const token = randomBytes(24).toString('hex');
  const server: Server = createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/command') return reply(404, { error: 'POST /command' });
    if (req.headers.authorization !== `Bearer ${token}`) return reply(401, { error: 'bad token' });
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      const lines: string[] = [];
      let request: ControlRequest;
      try {
        request = JSON.parse(body) as ControlRequest;
      } catch {
        return reply(400, { error: 'body must be JSON' });
      }
      execute(p, log, request, (l) => lines.push(l)).then(
        (code) => reply(200, { code, lines }),
        (e: unknown) => reply(200, { code: exitCodeFor(e), lines, error: (e as Error)?.message ?? String(e) }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const announcement: DevAnnouncement = { url: `http://127.0.0.1:${port}`, token, dir: path.resolve(dir), pid: process.pid };
  await mkdir(path.dirname(DEV_ANNOUNCE), { recursive: true });
  await writeFile(DEV_ANNOUNCE, `${JSON.stringify(announcement, null, 2)}\n`, { mode: 0o600 });
  return {
    announcement,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      const now = await readFile(DEV_ANNOUNCE, 'utf8').catch(() => '');
      if (now.includes(token)) await rm(DEV_ANNOUNCE, { force: true });
    },
  };
}

/**
 * Sends one command to the dev announced in `.airless/dev.json`; prints its lines.
 *
 * @example
 * process.exitCode = await sendToDev({ command: 'runs', args: ['etl'], options: {} });
 */
export async function sendToDev(r: ControlRequest, out: (l: string) => void = (l) => void process.stdout.write(`${l}\n`)): Promise<number> {
  let a: DevAnnouncement;
  try {
    a = JSON.parse(await readFile(DEV_ANNOUNCE, 'utf8')) as DevAnnouncement;
  } catch {
    throw new UsageError(`airless ${r.command} --dev: no running \`airless dev\` announced in ${path.resolve(DEV_ANNOUNCE)} (start one from this folder)`);
  }
  let res: Response;
  try {
    res = await fetch(`${a.url}/command`, { method: 'POST', headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' }, body: JSON.stringify(r) });
  } catch (cause) {
    throw new AirlessError(`airless ${r.command} --dev: the dev at ${a.url} (pid ${a.pid}) does not answer; is it still running?`, { cause });
  }
  const body = (await res.json()) as { code: number; lines?: string[]; error?: string };
  for (const l of body.lines ?? []) out(l);
  if (body.error) {
    process.stderr.write(`airless: ${body.error}\n`);
  }
  return body.code;
}
