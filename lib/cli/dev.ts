/**
 * `airless dev`: a long-running local scheduler on real time, until Ctrl-C. With a
 * DynamoDB endpoint its state survives a restart; its tables are per DAG folder (the
 * prefix carries a hash of the folder's path), so two projects never share state.
 */
import path from 'node:path';
import { SystemClock } from '../adapters/memory/clock.js';
import { sha256Hex } from '../engine/hash.js';
import { EmbeddedRuntime } from '../runtime/embedded.js';
import { builtinSensors } from '../sensors/index.js';
import { build, localDynamoStore, scheduleText, terminalLog } from './local.js';
import { eventLine } from './output.js';

/** Table prefix of a DAG folder's dev state: `airless-dev-<8 hex of its absolute path>`. */
export function devTablePrefix(dir: string): string {
  return process.env.AIRLESS_TABLE_PREFIX ?? `airless-dev-${sha256Hex(path.resolve(dir)).slice(0, 8)}`;
}

export interface DevOptions {
  concurrency?: number;
  dynamodbEndpoint?: string;
  typecheck?: boolean;
  tickMs?: number;
}

/**
 * @example
 * await cmdDev('dags', { dynamodbEndpoint: 'http://127.0.0.1:8000' });
 */
export async function cmdDev(dir: string, o: DevOptions): Promise<number> {
  const { version, manifest, bundles } = await build(dir, o.typecheck ?? true);
  const store = o.dynamodbEndpoint ? await localDynamoStore(o.dynamodbEndpoint, { tablePrefix: devTablePrefix(dir) }) : undefined;
  const clock = new SystemClock();
  const rt = new EmbeddedRuntime({
    bundles, clock, schedules: true, sensors: builtinSensors(), store, tickMs: o.tickMs ?? 5_000,
    concurrency: o.concurrency ?? 8, log: terminalLog(false),
    onEvent: (e) => process.stdout.write(`${eventLine(e, clock.now())}\n`),
  });
  const changes = await rt.register(version);
  process.stdout.write(`airless dev: ${manifest.dags.length} DAGs from ${dir} (bundle ${version}; added ${changes.added.length}, updated ${changes.updated.length})\n`);
  for (const d of manifest.dags) process.stdout.write(`  ${d.dagId.padEnd(24)} ${scheduleText(d)}\n`);
  process.stdout.write('Scheduling on real time. Ctrl-C stops.\n');
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
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
  process.stdout.write('stopped\n');
  return 0;
}
