/**
 * `airless <cmd> --dev`: commands act on the running `airless dev` of this folder instead
 * of a stack. The dev serves them on its one port, the REST API's (route
 * `POST /api/airless/dev/command`, lib/api/routes-dev.ts, with the API's token), and
 * announces that port and token in `.airless/dev.json`. The command line is sent as it
 * was typed; the dev runs it through the same registry on its own ports ({@link devTarget}).
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AirlessError } from '../engine/index.js';
import type { CliIo, CliResult, DevSide } from './io.js';
import { UsageError } from './output.js';
import type { CommandIo } from './registry.js';
import { devTaskLog } from './sensor-logs.js';
import type { Target } from './target.js';

/** Where a running dev announces its endpoint. */
export const DEV_ANNOUNCE = path.join('.airless', 'dev.json');

/** The path of the control route on the dev's API server. */
export const DEV_COMMAND_PATH = '/api/airless/dev/command';

export interface DevAnnouncement {
  /** The dev's API server (UI, REST API and control on one port). */
  url: string;
  token: string;
  dir: string;
  pid: number;
}

/**
 * A dev's ports as a command's target: logs from the dev's own log lines (a batched
 * sensor's log includes the poker's lines about its target, sensor-logs.ts); no schedules.
 *
 * @example
 * await cmdClear(devTarget(dev, console.log).ports, 'etl', runId, 'load', true, console.log);
 */
export function devTarget(dev: DevSide, out: CliIo['out']): Target {
  return {
    ports: dev.ports,
    out,
    async printTaskLog(q) {
      const lines = devTaskLog(dev.log.lines, q);
      if (lines.length === 0) out(`no log lines for ${q.dagId} ${q.runId} ${q.taskId}${q.tryNumber ? ` try ${q.tryNumber}` : ''} (dev keeps the last 10,000 lines)`);
      for (const { tryNumber, line, target } of lines) {
        const extra = target ? `  ${JSON.stringify(line.fields)}` : '';
        out(`try ${tryNumber}  ${line.level}  ${line.msg}${extra}`);
      }
      return 0;
    },
  };
}

/**
 * Runs `op` on the dev: here when this process is the dev answering a request, else by
 * sending the command line to the dev announced in this folder.
 *
 * @example
 * return onDev(io, (t) => cmdRuns(t.ports, 'etl', t.out));
 */
export function onDev(io: CommandIo, op: (t: Target) => Promise<number>): Promise<number> {
  return io.dev ? op(devTarget(io.dev, io.out)) : sendToDev(io);
}


/**
 * Writes the announcement of a dev serving on `api`; `remove` deletes it (only if it is still this dev's).
 *
 * @example
 * const a = await announceDev(api, 'dags');
 */
export async function announceDev(api: { url: string; token: string }, dir: string): Promise<{ announcement: DevAnnouncement; remove: () => Promise<void> }> {
  const announcement: DevAnnouncement = { url: api.url, token: api.token, dir: path.resolve(dir), pid: process.pid };
  await mkdir(path.dirname(DEV_ANNOUNCE), { recursive: true });
  await writeFile(DEV_ANNOUNCE, `${JSON.stringify(announcement, null, 2)}\n`, { mode: 0o600 });
  return {
    announcement,
    remove: async () => {
      const now = await readFile(DEV_ANNOUNCE, 'utf8').catch(() => '');
      if (now.includes(api.token)) await rm(DEV_ANNOUNCE, { force: true });
    },
  };
}

/**
 * Sends this command line to the dev announced in `.airless/dev.json`; prints its lines.
 *
 * @example
 * process.exitCode = await sendToDev({ ...STDIO, argv: ['runs', 'etl', '--dev'] });
 */
export async function sendToDev(io: CommandIo): Promise<number> {
  const name = io.argv[0] ?? '';
  let a: DevAnnouncement;
  try {
    a = JSON.parse(await readFile(DEV_ANNOUNCE, 'utf8')) as DevAnnouncement;
  } catch {
    throw new UsageError(`airless ${name} --dev: no running \`airless dev\` announced in ${path.resolve(DEV_ANNOUNCE)} (start one from this folder)`);
  }
  let res: Response;
  try {
    res = await fetch(`${a.url}${DEV_COMMAND_PATH}`, {
      method: 'POST', headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ argv: io.argv }),
    });
  } catch (cause) {
    throw new AirlessError(`airless ${name} --dev: the dev at ${a.url} (pid ${a.pid}) does not answer; is it still running?`, { cause });
  }
  if (!res.ok) throw new AirlessError(`airless ${name} --dev: the dev at ${a.url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const body = (await res.json()) as CliResult;
  for (const l of body.stdout) io.out(l);
  for (const l of body.stderr) io.err(l);
  return body.code;
}
