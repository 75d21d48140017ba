/**
 * One size of the scale scenario (bench/scenarios/scale.ts), in a process of its own so
 * that its peak memory is its own: one run of N independent tasks, built as `airless build`
 * builds a DAG folder and run as `airless run --time-warp` runs it (embedded runtime,
 * virtual clock, concurrency 8, each try in a worker thread, DAG defaults: maxActiveTasks
 * 16). Prints one JSON line.
 *
 * npx tsx bench/scale-child.ts 10000
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { VirtualClock } from '../lib/adapters/clock.js';
import { MemoryLog } from '../lib/adapters/memory/observe.js';
import { buildToLocalVersion, LocalBundleSource } from '../lib/build/index.js';
import { EmbeddedRuntime } from '../lib/runtime/embedded.js';

const SDK = fileURLToPath(new URL('../lib/sdk/index.ts', import.meta.url));
const n = Number(process.argv[2]);
if (!Number.isInteger(n) || n < 1) {
  console.error('usage: scale-child.ts N');
  process.exit(2);
}
const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10;

const work = await mkdtemp(join(tmpdir(), 'airless-bench-scale-'));
try {
  await writeFile(join(work, 'wide.ts'), `import { dag } from ${JSON.stringify(SDK)};
const noop = async () => undefined;
export const wide = dag('wide', {}, ({ task }) => { for (let i = 0; i < ${n}; i++) task('t' + i, noop); });
`);
  const root = join(work, 'bundles');
  const { version } = await buildToLocalVersion(work, root, { typecheck: false });
  const rt = new EmbeddedRuntime({
    bundles: new LocalBundleSource(root), clock: new VirtualClock(Date.UTC(2026, 0, 1)), schedules: false,
    concurrency: 8, log: new MemoryLog(undefined, 100),
  });
  await rt.register(version);
  const baseRss = process.memoryUsage().rss;
  const t0 = performance.now();
  const run = await rt.trigger('wide', { runId: 'r1' });
  const outcome = await rt.runToCompletion('wide', run.runId);
  const wallMs = performance.now() - t0;
  const final = await rt.ports.store.getRun('wide', run.runId);
  console.log(JSON.stringify({
    tasks: n, outcome, state: final?.state, wallMs: Math.round(wallMs),
    baseRssMb: mb(baseRss), peakRssMb: Math.round(process.resourceUsage().maxRSS / 102.4) / 10,
  }));
} finally {
  await rm(work, { recursive: true, force: true });
}
process.exit(0);
