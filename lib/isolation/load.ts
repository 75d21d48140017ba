/**
 * Loading a built bundle to run its code: workers call task methods, pokers call custom
 * sensor pokes. Implements the `LoadedBundle` port.
 */
import { readFile } from 'node:fs/promises';
import { BundleError } from '../engine/index.js';
import type { DagSpec, Manifest } from '../engine/index.js';
import type { LoadedBundle, SensorPoke, TaskCallable } from '../engine/index.js';
import { sha256Hex } from '../engine/index.js';
import { collectDefinitions, importBundle, type Collected } from './collect.js';
import { poolSpec } from '../sdk/pools.js';

/**
 * Imports `bundle.mjs` and returns its task methods and sensor pokes. With a manifest, the
 * file's sha256 must match `manifest.bundleSha256`; without one, a manifest is rebuilt from
 * the bundle itself.
 *
 * @example
 * const bundle = await loadBundle('/tmp/out/bundle.mjs', manifest);
 * const execute = bundle.taskMethod('etl_daily', 'extract', 'execute');
 * @throws BundleError when the file is missing, its sha256 differs, or it fails to load.
 */
export async function loadBundle(bundlePath: string, manifest?: Manifest): Promise<LoadedBundle> {
  let bytes: Buffer;
  try {
    bytes = await readFile(bundlePath);
  } catch (cause) {
    throw new BundleError(`bundle ${bundlePath} cannot be read: ${(cause as Error).message}`, { cause });
  }
  const sha = sha256Hex(bytes);
  if (manifest && manifest.bundleSha256 !== sha) {
    throw new BundleError(`bundle ${bundlePath} has sha256 ${sha}, but its manifest expects ${manifest.bundleSha256}`);
  }
  let collected: Collected;
  try {
    collected = await collectDefinitions(await importBundle(bundlePath, sha));
  } catch (cause) {
    throw new BundleError(`bundle ${bundlePath} failed to load: ${(cause as Error).message}`, { cause });
  }
  const m: Manifest = manifest ?? {
    formatVersion: 1,
    bundleSha256: sha,
    builtAt: new Date(0).toISOString(),
    dags: [...collected.dags.values()].map(({ def, file }): DagSpec => ({ ...def.spec, file })),
    sensorTypes: [...collected.sensors.keys()].sort(),
    pools: [...(collected.pools?.values() ?? [])].map(({ def }) => poolSpec(def)),
  };
  return {
    manifest: m,
    taskMethod(dagId: string, taskId: string, method: string): TaskCallable | undefined {
      const methods = collected.dags.get(dagId)?.def.tasks.get(taskId);
      return methods && Object.prototype.hasOwnProperty.call(methods, method) ? methods[method] : undefined;
    },
    sensorPoke(type: string): SensorPoke | undefined {
      const def = collected.sensors.get(type)?.def;
      return def ? (pokeContext) => def.poke(pokeContext) : undefined;
    },
  };
}
