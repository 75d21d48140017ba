/**
 * Reads a built bundle module: evaluates each DAG file's module and collects the
 * DagDefinitions and SensorDefinitions it exports, remembering the file of each.
 * Shared by the bundler (to write the manifest) and the loader (to run tasks).
 */
import { pathToFileURL } from 'node:url';
import { InvalidDagError } from '../engine/index.js';
import { BUILTIN_SENSOR_TYPES } from '../engine/index.js';
import type { DagDefinition, PoolDefinition, SensorDefinition } from '../sdk/types.js';
import { DEFINITION, isSdkDag } from '../sdk/airflow-ts-sdk/dag.js';

/** One entry of the bundle's `files` export; `load` evaluates the file lazily. */
export interface BundleFileEntry {
  file: string;
  load: () => Promise<Record<string, unknown>>;
}

export interface Collected {
  dags: Map<string, { def: DagDefinition; file: string }>;
  sensors: Map<string, { def: SensorDefinition; file: string }>;
  /** Pools declared with definePool (exported, or used by object). */
  pools?: Map<string, { def: PoolDefinition; file: string }>;
}

/**
 * Imports a bundle module natively. The query makes a rebuilt bundle at the same path a
 * new module instead of the cached old one.
 *
 * @example
 * const mod = await importBundle('/tmp/out/bundle.mjs', sha);
 */
export async function importBundle(bundlePath: string, sha: string): Promise<Record<string, unknown>> {
  const url = `${pathToFileURL(bundlePath).href}?sha=${sha}`;
  return (await import(/* @vite-ignore */ url)) as Record<string, unknown>;
}

function isBrand<T>(v: unknown, brand: 'dag' | 'sensor' | 'pool'): v is T {
  return typeof v === 'object' && v !== null && (v as { __airless?: unknown }).__airless === brand;
}

/**
 * Re-raises an error thrown while a DAG file was evaluated as an InvalidDagError naming
 * the file. The bundle carries its own copy of the SDK, so its errors are recognised by
 * name, not by class.
 */
export function errorInFile(e: unknown, file: string): InvalidDagError {
  const err = e as { name?: string; message?: string; dagId?: string; taskId?: string };
  if (err?.name === 'InvalidDagError') {
    const prefix = [err.dagId && `dag ${err.dagId}`, err.taskId && `task ${err.taskId}`].filter(Boolean).join(': ');
    const msg = String(err.message ?? '');
    const raw = prefix && msg.startsWith(`${prefix}: `) ? msg.slice(prefix.length + 2) : msg;
    return new InvalidDagError(raw, { file, dagId: err.dagId, taskId: err.taskId, cause: e });
  }
  const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return new InvalidDagError(`failed to load: ${text}`, { file, cause: e });
}

/**
 * Evaluates every file of a bundle module and collects its definitions.
 *
 * @example
 * const { dags, sensors } = await collectDefinitions(await importBundle(path, sha));
 * @throws InvalidDagError naming the file, for an error in a file or a duplicate DAG id or sensor type.
 */
export async function collectDefinitions(mod: Record<string, unknown>): Promise<Collected> {
  const files = mod.files as BundleFileEntry[] | undefined;
  if (!Array.isArray(files)) throw new InvalidDagError('not an Airless bundle: it has no `files` export');
  const out: Collected = { dags: new Map(), sensors: new Map(), pools: new Map() };
  const addPool = (def: PoolDefinition, file: string) => {
    const seen = out.pools!.get(def.name);
    if (seen && (seen.def.slots !== def.slots || seen.def.description !== def.description)) {
      throw new InvalidDagError(`pool "${def.name}" is declared twice with different settings, in ${seen.file} and in ${file}`, { file });
    }
    if (!seen) out.pools!.set(def.name, { def, file });
  };
  const addSensor = (def: SensorDefinition, file: string) => {
    const seen = out.sensors.get(def.type);
    if (seen?.def === def) return;
    if (BUILTIN_SENSOR_TYPES.includes(def.type)) {
      throw new InvalidDagError(`sensor type "${def.type}" is built in: choose another name for defineSensor`, { file });
    }
    if (seen) {
      throw new InvalidDagError(`sensor type "${def.type}" is defined twice, in ${seen.file} and in ${file}`, { file });
    }
    out.sensors.set(def.type, { def, file });
  };
  for (const entry of files) {
    let ns: Record<string, unknown>;
    try {
      ns = await entry.load();
    } catch (e) {
      throw errorInFile(e, entry.file);
    }
    for (const raw of Object.values(ns)) {
      let value: unknown = raw;
      // A Dag of Airflow's TypeScript SDK is read as Airless's DAG (lib/sdk/airflow-ts-sdk/dag.ts).
      try {
        if (isSdkDag(raw)) value = raw[DEFINITION]();
      } catch (e) {
        throw errorInFile(e, entry.file);
      }
      if (isBrand<DagDefinition>(value, 'dag')) {
        const id = value.spec.dagId;
        const seen = out.dags.get(id);
        if (seen && seen.def !== value) {
          throw new InvalidDagError(`dag id "${id}" is defined twice, in ${seen.file} and in ${entry.file}`, {
            file: entry.file,
            dagId: id,
          });
        }
        if (!seen) out.dags.set(id, { def: value, file: entry.file });
        for (const s of value.sensors) addSensor(s, entry.file);
        for (const p of value.pools ?? []) addPool(p, entry.file);
      } else if (isBrand<SensorDefinition>(value, 'sensor')) {
        addSensor(value, entry.file);
      } else if (isBrand<PoolDefinition>(value, 'pool')) {
        addPool(value, entry.file);
      }
    }
  }
  return out;
}
