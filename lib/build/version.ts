/**
 * The id of a bundle version: it hashes everything that runs, the bundle's bytes (via
 * its sha256) and the manifest (what schedulers read), so a DAG whose definition changed
 * without its code changing (an environment variable or a config file read at build)
 * still gets a new version. The build time is left out: the same build twice is the
 * same version. Used by the local bundle folder and by `airless push`.
 */
import type { Manifest } from '../engine/index.js';
import { canonicalJson, sha256Hex } from '../engine/index.js';

/**
 * @example
 * bundleVersion(manifest); // 'a1b2c3d4e5f6-0f1e2d3c'
 */
export function bundleVersion(manifest: Manifest): string {
  const { builtAt: _ignored, ...stable } = manifest;
  return `${manifest.bundleSha256.slice(0, 12)}-${sha256Hex(canonicalJson(stable)).slice(0, 8)}`;
}
