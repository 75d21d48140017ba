/**
 * Reads a freshly built bundle's definitions in a worker thread, so a DAG file can
 * neither hang the build (its import is bounded in time and the worker is terminated)
 * nor end it (`process.exit` in a worker ends only the worker), and each failure names
 * its file. The worker is plain JavaScript evaluated from a string: it imports only
 * bundle.mjs, which carries its own copy of the SDK, so it needs no TypeScript loader.
 */
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { InvalidDagError } from '../engine/index.js';
import type { DagSpec } from '../engine/index.js';
import { BUILTIN_SENSOR_TYPES } from '../engine/index.js';
import { errorInFile } from '../isolation/collect.js';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const mod = await import(workerData.url);
  if (!Array.isArray(mod.files)) throw Object.assign(new Error('not an Airless bundle: it has no files export'), { file: '' });
  const dags = new Map(), sensors = new Map(), pools = new Map(), warnings = [];
  for (const entry of mod.files) {
    parentPort.postMessage({ loading: entry.file });
    globalThis.__airlessDagCalls = [];
    let ns;
    try { ns = await entry.load(); }
    catch (e) { parentPort.postMessage({ failed: { file: entry.file, name: e && e.name, message: e && e.message !== undefined ? String(e.message) : String(e), dagId: e && e.dagId, taskId: e && e.taskId } }); return; }
    const exported = new Set();
    const fail = (message, extra) => { parentPort.postMessage({ failed: { file: entry.file, name: 'InvalidDagError', message, ...extra } }); };
    // A Dag of Airflow's TypeScript SDK is read as Airless's DAG here, so its errors name this file.
    const DEFINITION = Symbol.for('airless.definition');
    const values = [];
    for (const v of Object.values(ns)) {
      if (!v || typeof v[DEFINITION] !== 'function') { values.push(v); continue; }
      try { values.push(v[DEFINITION]()); }
      catch (e) { parentPort.postMessage({ failed: { file: entry.file, name: e && e.name, message: e && e.message !== undefined ? String(e.message) : String(e), dagId: e && e.dagId, taskId: e && e.taskId } }); return; }
    }
    const addSensor = (def) => {
      const seen = sensors.get(def.type);
      if (seen && seen.def === def) return true;
      if (workerData.builtin.includes(def.type)) { fail('sensor type "' + def.type + '" is built in: choose another name for defineSensor'); return false; }
      if (seen) { fail('sensor type "' + def.type + '" is defined twice, in ' + seen.file + ' and in ' + entry.file); return false; }
      sensors.set(def.type, { def, file: entry.file });
      return true;
    };
    const addPool = (def) => {
      const seen = pools.get(def.name);
      if (seen && (seen.slots !== def.slots || seen.description !== def.description)) { fail('pool "' + def.name + '" is declared twice with different settings, in ' + seen.file + ' and in ' + entry.file); return false; }
      if (!seen) pools.set(def.name, { name: def.name, slots: def.slots, description: def.description, file: entry.file });
      return true;
    };
    for (const v of values) {
      if (v && v.__airless === 'pool') { if (!addPool(v)) return; continue; }
      if (v && v.__airless === 'dag') for (const p of v.pools || []) if (!addPool(p)) return;
      if (v && v.__airless === 'dag') {
        const id = v.spec.dagId;
        exported.add(id);
        const seen = dags.get(id);
        if (seen && seen.def !== v) return fail('dag id "' + id + '" is defined twice, in ' + seen.file + ' and in ' + entry.file, { dagId: id });
        if (!seen) dags.set(id, { def: v, file: entry.file });
        for (const s of v.sensors) if (!addSensor(s)) return;
      } else if (v && v.__airless === 'sensor') {
        if (!addSensor(v)) return;
      }
    }
    const hidden = [...new Set(globalThis.__airlessDagCalls)].filter((id) => !exported.has(id) && !dags.has(id));
    if (hidden.length) warnings.push(entry.file + ' builds ' + hidden.map((id) => 'dag "' + id + '"').join(', ') + ' but does not export it: export it (export default dag(...)) or it is not deployed');
  }
  parentPort.postMessage({ done: {
    dags: [...dags.values()].map(({ def, file }) => ({ spec: def.spec, file })),
    sensors: [...sensors.values()].map(({ def, file }) => ({ type: def.type, file })),
    pools: [...pools.values()],
    warnings,
  } });
})().catch((e) => parentPort.postMessage({ failed: { file: '', name: e && e.name, message: String(e && e.message || e) } }));
`;

export interface IsolatedCollection {
  dags: Array<{ spec: DagSpec; file: string }>;
  sensors: Array<{ type: string; file: string }>;
  /** Pools declared with definePool (exported, or used by object). */
  pools: Array<{ name: string; slots: number; description?: string; file: string }>;
  /** Files that build a DAG without exporting it. */
  warnings: string[];
}

/**
 * @example
 * const { dags, warnings } = await collectIsolated('/tmp/out/bundle.mjs', sha, { timeoutMs: 30_000 });
 * @throws InvalidDagError naming the file that threw, exited, hung, or clashed.
 */
export function collectIsolated(bundlePath: string, sha: string, opts: { timeoutMs: number }): Promise<IsolatedCollection> {
  const url = `${pathToFileURL(bundlePath).href}?sha=${sha}`;
  const worker = new Worker(WORKER, { eval: true, workerData: { url, builtin: BUILTIN_SENSOR_TYPES }, stdout: false, stderr: false });
  let current = '';
  return new Promise<IsolatedCollection>((resolve, reject) => {
    let settled = false;
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      f();
    };
    const arm = () => setTimeout(() => finish(() => reject(new InvalidDagError(
      `importing it did not finish within ${opts.timeoutMs / 1000} s (a loop, a pending await or an open connection at the top level?)`,
      { file: current || undefined }))), opts.timeoutMs);
    let timer = arm();
    worker.on('message', (m: { loading?: string; failed?: { file: string; name?: string; message: string; dagId?: string; taskId?: string }; done?: IsolatedCollection }) => {
      if (m.loading !== undefined) {
        current = m.loading;
        clearTimeout(timer);
        timer = arm();
      } else if (m.failed) {
        const f = m.failed;
        const err = Object.assign(new Error(f.message), { name: f.name ?? 'Error', dagId: f.dagId, taskId: f.taskId });
        finish(() => reject(f.file ? errorInFile(err, f.file) : new InvalidDagError(f.message)));
      } else if (m.done) {
        const done = m.done;
        finish(() => resolve(done));
      }
    });
    worker.on('error', (e) => finish(() => reject(current ? errorInFile(e, current) : new InvalidDagError(`bundle failed to load: ${e.message}`, { cause: e }))));
    worker.on('exit', (code) => finish(() => reject(new InvalidDagError(
      `called process.exit(${code}) while being imported: a DAG file must not end the process`, { file: current || undefined }))));
  });
}
