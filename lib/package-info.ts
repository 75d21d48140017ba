/**
 * This package's own package.json (version, and the versions it was built and tested
 * with) and its root folder, found by walking up from this module: the repository in
 * development, `node_modules/airless` when installed (never `dist/`, which is not a root).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PackageInfo {
  version: string;
  /** The folder holding this package's package.json. */
  root: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
}

let cached: PackageInfo | undefined;

/**
 * @example
 * packageInfo().version; // '0.1.0'
 */
export function packageInfo(): PackageInfo {
  if (cached) return cached;
  const start = path.dirname(fileURLToPath(import.meta.url));
  let dir = start;
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const p = JSON.parse(readFileSync(file, 'utf8')) as Partial<PackageInfo> & { name?: string };
      if (p.name === 'airless') {
        cached = { version: p.version ?? '0.0.0', root: dir, dependencies: p.dependencies ?? {}, devDependencies: p.devDependencies ?? {}, peerDependencies: p.peerDependencies ?? {} };
        return cached;
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return { version: '0.0.0', root: path.resolve(start, '..'), dependencies: {}, devDependencies: {}, peerDependencies: {} };
    dir = up;
  }
}
