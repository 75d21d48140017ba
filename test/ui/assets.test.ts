/**
 * The UI's files: the package build writes the script and stylesheet prebuilt (and the
 * rehearsal's thread files) into dist; a server over dist serves those files without
 * any source beside it; the repository, with no prebuilt files, builds from lib/ui.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { uiAssets, uiFiles } from '../../lib/ui/assets.js';
import { RUNTIME_FILES, writePackageAssets } from '../../scripts/package-assets.js';

const ROOT = path.resolve(__dirname, '../..');

describe('UI assets', () => {
  it('are written by the package build and served from there, with no sources beside them', async () => {
    const dist = mkdtempSync(path.join(tmpdir(), 'airless-dist-'));
    await writePackageAssets(dist);
    const ui = path.join(dist, 'lib', 'ui');
    expect(existsSync(path.join(ui, 'app.ts'))).toBe(false);
    const served = await uiFiles(ui);
    expect(served.js).toBe(readFileSync(path.join(ui, 'public', 'app.js'), 'utf8'));
    expect(served.js.length).toBeGreaterThan(10_000);
    expect(served.css).toBe(readFileSync(path.join(ROOT, 'lib', 'ui', 'style.css'), 'utf8'));
    for (const f of RUNTIME_FILES) expect(readFileSync(path.join(dist, f), 'utf8')).toBe(readFileSync(path.join(ROOT, f), 'utf8'));
  });

  it('prefer the prebuilt files to building', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'airless-ui-'));
    mkdirSync(path.join(dir, 'public'));
    writeFileSync(path.join(dir, 'public', 'app.js'), 'prebuilt();');
    writeFileSync(path.join(dir, 'public', 'app.css'), 'main{}');
    writeFileSync(path.join(dir, 'app.ts'), 'this is not TypeScript (;');
    expect(await uiFiles(dir)).toEqual({ js: 'prebuilt();', css: 'main{}' });
  });

  it('are built from the sources in the repository, where nothing is prebuilt', async () => {
    expect(existsSync(path.join(ROOT, 'lib', 'ui', 'public'))).toBe(false);
    const js = await uiAssets('/assets/app.js');
    expect(js?.type).toBe('text/javascript; charset=utf-8');
    expect(js?.body).toMatch(/^"use strict";\(\(\)=>\{/);
    expect((await uiAssets('/assets/app.css'))?.body).toContain('{');
  });
});
