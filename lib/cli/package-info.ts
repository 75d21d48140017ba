/**
 * This package's own package.json (version, and the versions it was built and tested
 * with), found by walking up from this module: in the repository and when installed.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PackageInfo {
  version: string;
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
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const p = JSON.parse(readFileSync(file, 'utf8')) as Partial<PackageInfo> & { name?: string };
      if (p.name === 'airless') {
        cached = { version: p.version ?? '0.0.0', dependencies: p.dependencies ?? {}, devDependencies: p.devDependencies ?? {}, peerDependencies: p.peerDependencies ?? {} };
        return cached;
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return { version: '0.0.0', dependencies: {}, devDependencies: {}, peerDependencies: {} };
    dir = up;
  }
}
