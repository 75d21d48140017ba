/**
 * `airless dev`: a long-running local scheduler on real time, until Ctrl-C. With a
 * DynamoDB endpoint its state survives a restart; its tables are per DAG folder (the
 * prefix carries a hash of the folder's path), so two projects never share state.
 */
import { TABLE_PREFIX_ENV } from '../adapters/aws/stack-contract.js';
import { watch } from 'node:fs';
import path from 'node:path';
import { SystemClock } from '../adapters/clock.js';
import { InvalidDagError, sha256Hex } from '../engine/index.js';
import type { ImportErrorStore } from '../engine/index.js';
import { localJobs } from './jobs.js';
import { EmbeddedRuntime } from '../runtime/embedded.js';
import { builtinSensors } from '../sensors/index.js';
import { build, localDynamoStore, scheduleText, terminalLog } from './local.js';
import { announceDev, DEV_ANNOUNCE, DEV_COMMAND_PATH } from './dev-control.js';
import { capture, type CliIo } from './io.js';
import { attachUi, type UiFlags } from './ui.js';
import { eventLine } from './output.js';

/** Calls `onChange` (one at a time, 300 ms after the last event) when a file under `dir` changes. */
function watchDags(dir: string, onChange: () => Promise<void>): { close: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const w = watch(dir, { recursive: true }, (_event, file) => {
    if (file && /(^|[\\/])(\.|node_modules)/.test(String(file))) return;
    clearTimeout(timer);
    timer = setTimeout(() => { running = running.then(onChange); }, 300);
  });
  return { close: () => { clearTimeout(timer); w.close(); } };
}

/**
 * Records a build's outcome as the store's import errors (get_import_errors): a failed
 * build replaces them with the one error it reports, on its file (`.` when it names none),
 * in one line; a build that succeeded clears them. The build stops at its first error, so
 * the records say what the last build reported, not every broken file.
 *
 * @example
 * await recordBuild(rt.ports.store, err, clock.now()); // err undefined: the build succeeded
 */
export async function recordBuild(store: ImportErrorStore, error: unknown, now: number): Promise<void> {
  if (error === undefined) return store.clearImportErrors();
  const file = error instanceof InvalidDagError && error.file ? error.file : '.';
  const message = (error instanceof Error ? error.message : String(error)).split('\n').map((l) => l.trim()).filter(Boolean).join('; ');
  await store.clearImportErrors([file]);
  await store.putImportError(file, message, now);
}

/** Table prefix of a DAG folder's dev state: `airless-dev-<8 hex of its absolute path>`. */
export function devTablePrefix(dir: string): string {
  return process.env[TABLE_PREFIX_ENV] ?? `airless-dev-${sha256Hex(path.resolve(dir)).slice(0, 8)}`;
}

export interface DevOptions {
  concurrency?: number;
  dynamodbEndpoint?: string;
  typecheck?: boolean;
  tickMs?: number;
  /** Where the web UI and REST API listen (default 127.0.0.1:8080). */
  ui?: UiFlags;
}

/**
 * @example
 * await cmdDev('dags', { dynamodbEndpoint: 'http://127.0.0.1:8000' }, main);
 */
export async function cmdDev(dir: string, o: DevOptions, main: (argv: string[], io: CliIo) => Promise<number>): Promise<number> {
  const { version, manifest, bundles } = await build(dir, o.typecheck ?? true);
  const store = o.dynamodbEndpoint ? await localDynamoStore(o.dynamodbEndpoint, { tablePrefix: devTablePrefix(dir) }) : undefined;
  const clock = new SystemClock();
  const log = terminalLog(false);
  let rt: EmbeddedRuntime | undefined;
  const jobs = localJobs(() => rt!);
  rt = new EmbeddedRuntime({
    bundles, clock, schedules: true, sensors: builtinSensors(), store, tickMs: o.tickMs ?? 5_000, jobs: jobs.drivers, config: jobs.config,
    concurrency: o.concurrency ?? 8, log,
    onEvent: (e) => process.stdout.write(`${eventLine(e, clock.now())}\n`),
  });
  const changes = await rt.register(version);
  // The folder built: errors a previous dev of it left in its DynamoDB tables are gone.
  await recordBuild(rt.ports.store, undefined, clock.now());
  process.stdout.write(`airless dev: ${manifest.dags.length} DAGs from ${dir} (bundle ${version}; added ${changes.added.length}, updated ${changes.updated.length})\n`);
  for (const d of manifest.dags) process.stdout.write(`  ${d.dagId.padEnd(24)} ${scheduleText(d)}\n`);
  // `--dev` command lines run here through the CLI's registry, on this dev's ports.
  const devControl = (argv: string[]) => capture(main, argv, { dev: { ports: rt.ports, log } });
  // A port in use ends the command, not a dev half started.
  const ui = await attachUi(rt, o.ui ?? {}, { devControl }).catch((e: unknown) => {
    rt.stop();
    throw e;
  });
  const control = await announceDev(ui, dir);
  process.stdout.write(`control endpoint ${ui.url}${DEV_COMMAND_PATH} (token in ${DEV_ANNOUNCE}): airless trigger|runs|tasks|clear|pause|unpause|signal|logs|backfill|assets ... --dev\n`);
  let current = version;
  const watcher = watchDags(dir, async () => {
    try {
      const next = await build(dir, o.typecheck ?? true);
      await recordBuild(rt.ports.store, undefined, clock.now());
      if (next.version === current) return;
      const c = await rt.register(next.version);
      current = next.version;
      process.stdout.write(`reloaded ${dir}: bundle ${next.version} (added ${c.added.length}, updated ${c.updated.length}, removed ${c.removed.length}); new runs use it, running runs keep theirs\n`);
    } catch (e) {
      // Listed by the API's importErrors until the folder builds again; recorded before the line
      // is printed, so what the user reads is already listed.
      await recordBuild(rt.ports.store, e, clock.now()).catch((err: unknown) => process.stderr.write(`airless dev: import error not recorded: ${(err as Error).message}\n`));
      process.stderr.write(`airless dev: not reloaded, the old version keeps running: ${(e as Error).message}\n`);
    }
  });
  process.stdout.write('Scheduling on real time; reloading on DAG file changes. Ctrl-C stops.\n');
  let stopping = false;
  const stop = () => {
    if (stopping) {
      process.stdout.write('\naborted: running tasks were abandoned (on DynamoDB, reconcile retries them after their lease)\n');
      process.exit(130);
    }
    stopping = true;
    const n = rt.inflightCount;
    process.stdout.write(`\nstopping: ${n ? `waiting for ${n} task(s) in hand to finish` : 'nothing in hand'}; Ctrl-C again aborts\n`);
    rt.stop();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    await rt.runUntil(async () => false);
    await rt.drain();
  } finally {
    watcher.close();
    await control.remove();
    await ui.close();
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  process.stdout.write('stopped\n');
  return 0;
}
