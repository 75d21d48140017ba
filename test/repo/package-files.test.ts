/**
 * Every file a module under lib/ loads beside itself by URL (`new URL('./x.mjs',
 * import.meta.url)`) reaches the package: `tsc` emits only .js and .d.ts, so any other
 * file must be copied by the package build (scripts/package-assets.ts RUNTIME_FILES).
 * Before issue 19 the rehearsal's two .mjs thread files were missing from the tarball.
 * The tarball itself is checked by test/e2e/package.test.ts; this is the cheap guard.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUNTIME_FILES } from '../../scripts/package-assets.js';

const ROOT = path.resolve(__dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'dags' ? [] : sources(rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

describe('files loaded at run time', () => {
  it('are each emitted by tsc or copied by the package build', () => {
    const loaded: string[] = [];
    for (const file of sources('lib')) {
      for (const m of readFileSync(path.join(ROOT, file), 'utf8').matchAll(/new URL\(\s*'(\.{1,2}\/[^'`$]*\.[a-z]+)'\s*,\s*import\.meta\.url\s*\)/g)) {
        loaded.push(path.posix.join(path.posix.dirname(file), m[1]!));
      }
    }
    expect(loaded).toContain('lib/rehearsal/sqs-thread.mjs');
    const notEmitted = loaded.filter((f) => !/\.(js|ts)$/.test(f));
    expect(notEmitted.filter((f) => !(RUNTIME_FILES as readonly string[]).includes(f))).toEqual([]);
  });

  it('are in package.json files, as dist/ is', () => {
    const files = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    expect(files).toContain('dist/lib');
    for (const f of ['examples/dags', 'examples/data', 'lib/rehearsal/scenarios/dags']) expect(files).toContain(f);
  });
});
