/**
 * The UI's files: the page, its stylesheet and the script. The installed package ships
 * them prebuilt in `public/` beside this module (`npm pack` runs the build, see
 * scripts/package-assets.ts); in the repository, where `public/` is absent, the script
 * is bundled from lib/ui/app.ts by esbuild (already the project's bundler) on first
 * request and the stylesheet read from style.css. Either way they are kept in memory.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Where the prebuilt files sit, relative to this module (dist/lib/ui/public in the package). */
export const PREBUILT_DIR = 'public';

export interface Asset {
  type: string;
  body: string;
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Airless</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/assets/app.css"></head>
<body><header><a href="#/">Airless</a><a href="#/assets" class="nav">Assets</a><span class="backend" id="backend"></span></header>
<div id="flash" class="flash" data-testid="flash"></div>
<main id="main"></main>
<script src="/assets/app.js"></script></body></html>`;

/**
 * Bundles the UI script and reads the stylesheet from the sources (about 0.2 s):
 * what the package build writes to `public/`, and what the repository serves.
 *
 * @example
 * const { js, css } = await buildUiAssets('lib/ui');
 */
export async function buildUiAssets(sourceDir = here): Promise<{ js: string; css: string }> {
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [path.join(sourceDir, 'app.ts')], bundle: true, write: false, format: 'iife', platform: 'browser',
    target: 'es2022', minify: true, legalComments: 'none', logLevel: 'silent',
  });
  return { js: out.outputFiles[0].text, css: await readFile(path.join(sourceDir, 'style.css'), 'utf8') };
}

let assets: Promise<{ js: string; css: string }> | undefined;

/**
 * The script and stylesheet: the prebuilt files when present, else built from sources
 * (only where the sources are, i.e. the repository). Cached for the process.
 *
 * @example
 * const { js } = await uiFiles(); // the bundled app.js
 */
export function uiFiles(dir = here): Promise<{ js: string; css: string }> {
  if (dir !== here) return loadUiFiles(dir);
  assets ??= loadUiFiles(dir);
  assets.catch(() => { assets = undefined; });
  return assets;
}

async function loadUiFiles(dir: string): Promise<{ js: string; css: string }> {
  const prebuilt = path.join(dir, PREBUILT_DIR);
  if (existsSync(path.join(prebuilt, 'app.js'))) {
    const [js, css] = await Promise.all([readFile(path.join(prebuilt, 'app.js'), 'utf8'), readFile(path.join(prebuilt, 'app.css'), 'utf8')]);
    return { js, css };
  }
  return buildUiAssets(dir);
}

/**
 * The asset at a URL path, or undefined when it is not one.
 *
 * @example
 * const page = await uiAssets('/'); // { type: 'text/html; charset=utf-8', body: '<!doctype html>...' }
 */
export async function uiAssets(pathname: string): Promise<Asset | undefined> {
  if (pathname === '/' || pathname === '/index.html') return { type: 'text/html; charset=utf-8', body: PAGE };
  if (pathname === '/assets/app.js') return { type: 'text/javascript; charset=utf-8', body: (await uiFiles()).js };
  if (pathname === '/assets/app.css') return { type: 'text/css; charset=utf-8', body: (await uiFiles()).css };
  return undefined;
}
