/**
 * Bundle versions in a local folder (`<root>/<version>/bundle.mjs|manifest.json`): the
 * embedded runtime's `BundleSource`.
 */
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { BundleError, BundleNotFoundError } from '../engine/index.js';
import type { Manifest } from '../engine/index.js';
import type { BundleSource, LoadedBundle } from '../engine/index.js';
import { bundleVersion } from './version.js';
import { parseSources } from './sources.js';
import { loadIsolatedBundle } from '../isolation/isolated-bundle.js';

const VERSION = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Reads bundle versions from `root`; loaded bundles are cached per version (a version's
 * content never changes: its name is its hash).
 *
 * @example
 * const source = new LocalBundleSource('.airless/bundles');
 * const bundle = await source.load(version);
 */
export class LocalBundleSource implements BundleSource {
  private readonly manifests = new Map<string, Promise<Manifest>>();
  private readonly loaded = new Map<string, Promise<LoadedBundle>>();

  constructor(readonly root: string) {}

  private dir(version: string): string {
    if (!VERSION.test(version) || version === '.' || version === '..') {
      throw new BundleError(`invalid bundle version ${JSON.stringify(version)}`);
    }
    return path.join(this.root, version);
  }

  manifest(version: string): Promise<Manifest> {
    return cached(this.manifests, version, async () => {
      const file = path.join(this.dir(version), 'manifest.json');
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (cause) {
        const NotFound = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? BundleNotFoundError : BundleError;
        throw new NotFound(`bundle version "${version}" not found in ${this.root}`, { cause });
      }
      try {
        return JSON.parse(text) as Manifest;
      } catch (cause) {
        throw new BundleError(`manifest of bundle version "${version}" is not valid JSON`, { cause });
      }
    });
  }

  load(version: string): Promise<LoadedBundle> {
    return cached(this.loaded, version, async () =>
      // Each try runs in a worker thread of the version's warm pool (lib/isolation).
      loadIsolatedBundle(path.join(this.dir(version), 'bundle.mjs'), await this.manifest(version)),
    );
  }

  /**
   * Each DAG file's source as the build of `version` read it (`sources.json`); `{}` for a
   * version built before the build kept sources.
   *
   * @example
   * const text = (await source.sources(version))['etl.ts'];
   */
  async sources(version: string): Promise<Record<string, string>> {
    await this.manifest(version); // an unknown version is a BundleNotFoundError, not an empty map
    const text = await readFile(path.join(this.dir(version), 'sources.json'), 'utf8').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return '{}';
      throw new BundleError(`cannot read the sources of bundle version "${version}"`, { cause: e });
    });
    return parseSources(text, version);
  }

  /**
   * Versions present under the root, oldest build first.
   *
   * @example
   * const latest = (await source.listVersions()).at(-1);
   */
  async listVersions(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch {
      return [];
    }
    const found: Array<{ version: string; builtAt: string }> = [];
    for (const name of names) {
      if (!VERSION.test(name) || name.startsWith('.')) continue;
      try {
        found.push({ version: name, builtAt: (await this.manifest(name)).builtAt });
      } catch {
        this.manifests.delete(name);
      }
    }
    return found.sort((a, b) => a.builtAt.localeCompare(b.builtAt) || a.version.localeCompare(b.version)).map((f) => f.version);
  }
}

function cached<T>(map: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let p = map.get(key);
  if (!p) {
    p = make();
    map.set(key, p);
    // A failure is not cached: the version may appear later.
    p.catch(() => map.delete(key));
  }
  return p;
}

/**
 * Builds `dir` into `<root>/<version>`, version = `bundleVersion(manifest)` (bundle and
 * manifest). Building the same code with the same definitions again returns the
 * existing version.
 *
 * @example
 * const { version, manifest } = await buildToLocalVersion('examples/dags', '.airless/bundles');
 */
export async function buildToLocalVersion(
  dir: string, root: string, opts: { typecheck?: boolean; cacheDir?: string } = {},
): Promise<{ version: string; manifest: Manifest; warnings: string[] }> {
  await mkdir(root, { recursive: true });
  const staging = await mkdtemp(path.join(root, '.build-'));
  try {
    // Imported here so that runtimes which only load bundles never load esbuild.
    const { buildBundle } = await import('./bundle.js');
    const { manifest, warnings } = await buildBundle({ dir, outDir: staging, typecheck: opts.typecheck, cacheDir: opts.cacheDir });
    const version = bundleVersion(manifest);
    const target = path.join(root, version);
    if (await exists(path.join(target, 'manifest.json'))) {
      // A version built before the build kept sources gains them (same code, same sources).
      if (!(await exists(path.join(target, 'sources.json')))) await rename(path.join(staging, 'sources.json'), path.join(target, 'sources.json'));
      return { version, manifest: JSON.parse(await readFile(path.join(target, 'manifest.json'), 'utf8')) as Manifest, warnings };
    }
    await rm(target, { recursive: true, force: true });
    await rename(staging, target);
    return { version, manifest, warnings };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

