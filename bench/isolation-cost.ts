/**
 * Cost of one isolated try: N trivial tries in a row through a warm pool (thread round trip
 * with the task context cloned in and the value cloned out), against the same task called
 * in process. `npx tsx bench/isolation-cost.ts [N]`.
 */
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { loadBundle } from '../lib/isolation/load.js';
import { closeIsolationPools, loadIsolatedBundle } from '../lib/isolation/isolated-bundle.js';
import { shapeBundle } from './isolated-shapes.js';
import { shapePlans } from './dags.js';
import { mainThreadCpuUs } from './thread-cpu.js';

const n = Number(process.argv[2] ?? 2000);
const { bundles, version } = await shapeBundle(shapePlans(0.1));
const file = `${bundles.root}/${version}/bundle.mjs`;
const manifest = await bundles.manifest(version);
const ctx = {
  dagId: 'chain10', runId: 'r', taskId: 't0', tryNumber: 1, logicalDate: '2026-01-01T00:00:00.000Z',
  dataIntervalStart: '2026-01-01T00:00:00.000Z', dataIntervalEnd: '2026-01-01T00:00:00.000Z', ds: '2026-01-01',
  params: {}, conf: {}, signal: new AbortController().signal,
  xcom: { pull: async () => undefined, push: async () => {} }, log: console, render: (s: string) => s,
};
async function perTry(bundle: Awaited<ReturnType<typeof loadBundle>>, label: string): Promise<number> {
  for (let i = 0; i < 200; i++) { const f = bundle.taskMethod('chain10', 't0', 'execute')!; await f.ready?.(); await f(ctx); }
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpuUs();
  for (let i = 0; i < n; i++) { const f = bundle.taskMethod('chain10', 't0', 'execute')!; await f.ready?.(); await f(ctx); }
  const us = ((performance.now() - t0) * 1000) / n;
  const cpu = process.cpuUsage(cpu0);
  const main = main0 === undefined ? undefined : (mainThreadCpuUs()! - main0) / n;
  // CPU of every thread of the process: what a try costs, apart from waiting for a core.
  const cpuUs = (cpu.user + cpu.system) / n;
  const mainPart = main === undefined ? '' : `, of which ${main.toFixed(1)} µs on the main thread`;
  console.log(`${label}: ${us.toFixed(1)} µs wall, ${cpuUs.toFixed(1)} µs CPU (all threads${mainPart}) per try (${n} tries in a row)`);
  return us;
}
const inProcess = await perTry(await loadBundle(file, manifest), 'in process');
const isolated = await perTry(await loadIsolatedBundle(file, manifest), 'isolated (worker thread)');
console.log(`isolation adds ${(isolated - inProcess).toFixed(1)} µs of wall time per try (load ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores)`);
await closeIsolationPools();
