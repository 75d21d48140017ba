/**
 * A BundleSource over DAG definitions already in memory (no esbuild, no files): tests
 * and benchmarks build DAGs with `dag()` and run them directly.
 */
import { BundleNotFoundError, sha256Hex } from '../engine/index.js';
import type { Manifest } from '../engine/index.js';
import type { BundleSource, LoadedBundle, SensorPoke, TaskCallable } from '../engine/index.js';
import type { DagDefinition, PoolDefinition, SensorDefinition } from '../sdk/types.js';
import { poolSpec } from '../sdk/pools.js';

/**
 * @example
 * const bundles = new InlineBundleSource([etlDag]);
 * const runtime = new EmbeddedRuntime({ bundles });
 * await runtime.register(bundles.version);
 */
/**
 * A definition's spec as a bundle carries it (with its file name), made once per definition:
 * sources made again over the same definitions (a runtime per test or per benchmark pass)
 * share the spec objects, and with them the engine's caches of each spec.
 */
const specs = new WeakMap<DagDefinition, DagDefinition['spec']>();
function specOf(d: DagDefinition): DagDefinition['spec'] {
  let s = specs.get(d);
  if (!s) specs.set(d, (s = d.spec.file ? d.spec : { ...d.spec, file: `${d.spec.dagId}.ts` }));
  return s;
}

export class InlineBundleSource implements BundleSource {
  readonly version: string;
  private readonly loaded: LoadedBundle;

  constructor(dags: readonly DagDefinition[], sensors: readonly SensorDefinition<any>[] = [], pools: readonly PoolDefinition[] = []) {
    const specs = dags.map(specOf);
    const allSensors = [...sensors, ...dags.flatMap((d) => d.sensors)];
    const pokes = new Map<string, SensorPoke>(allSensors.map((s) => [s.type, s.poke as SensorPoke]));
    const bundleSha256 = sha256Hex(JSON.stringify(specs));
    const manifest: Manifest = {
      formatVersion: 1,
      bundleSha256,
      builtAt: '1970-01-01T00:00:00.000Z',
      dags: specs,
      sensorTypes: [...pokes.keys()],
    };
    const poolDefs = new Map([...pools, ...dags.flatMap((d) => d.pools ?? [])].map((p) => [p.name, poolSpec(p)]));
    if (poolDefs.size) manifest.pools = [...poolDefs.values()];
    this.version = bundleSha256.slice(0, 12);
    const byDag = new Map(dags.map((d) => [d.spec.dagId, d]));
    this.loaded = {
      manifest,
      taskMethod: (dagId, taskId, method) => byDag.get(dagId)?.tasks.get(taskId)?.[method] as TaskCallable | undefined,
      sensorPoke: (type) => pokes.get(type),
    };
  }

  async manifest(version: string): Promise<Manifest> {
    return (await this.load(version)).manifest;
  }

  async load(version: string): Promise<LoadedBundle> {
    if (version !== this.version) throw new BundleNotFoundError(`unknown bundle version ${version}`);
    return this.loaded;
  }
}
