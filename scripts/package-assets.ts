/**
 * The part of the package build that `tsc` does not do (`npm run build`, hence `npm pack`):
 * the UI's script and stylesheet, bundled once into dist/lib/ui/public/ so that an
 * installed package serves them without its sources, and the rehearsal's plain
 * JavaScript thread files (loaded by URL beside the compiled modules) copied beside them.
 * Everything a compiled module reads at run time must be listed here; the package test
 * (test/e2e/package.test.ts) checks the tarball holds each.
 *
 * Usage: tsx scripts/package-assets.ts [outDir=dist]
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildUiAssets, PREBUILT_DIR } from '../lib/ui/assets.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Source files (relative to the repository) copied as they are to the same place under dist/. */
export const RUNTIME_FILES = ['lib/rehearsal/sqs-thread.mjs', 'lib/rehearsal/container-bootstrap.mjs'] as const;

/**
 * @example
 * await writePackageAssets('dist'); // ['dist/lib/ui/public/app.js', ...]
 */
export async function writePackageAssets(outDir: string): Promise<string[]> {
  const written: string[] = [];
  const ui = path.join(outDir, 'lib', 'ui', PREBUILT_DIR);
  mkdirSync(ui, { recursive: true });
  const { js, css } = await buildUiAssets(path.join(ROOT, 'lib', 'ui'));
  writeFileSync(path.join(ui, 'app.js'), js);
  writeFileSync(path.join(ui, 'app.css'), css);
  written.push(path.join(ui, 'app.js'), path.join(ui, 'app.css'));
  for (const rel of RUNTIME_FILES) {
    const to = path.join(outDir, rel);
    mkdirSync(path.dirname(to), { recursive: true });
    copyFileSync(path.join(ROOT, rel), to);
    written.push(to);
  }
  return written;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = path.resolve(ROOT, process.argv[2] ?? 'dist');
  for (const f of await writePackageAssets(out)) process.stdout.write(`package asset ${path.relative(ROOT, f)}\n`);
}
