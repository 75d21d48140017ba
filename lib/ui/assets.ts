/**
 * The UI's files: the page, its stylesheet and the script, bundled from lib/ui/app.ts by
 * esbuild (already the project's bundler) on first request and kept in memory.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));

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

let script: Promise<string> | undefined;

/** Bundles the UI script (about 0.2 s once; then cached for the process). */
export function uiScript(): Promise<string> {
  script ??= (async () => {
    const { build } = await import('esbuild');
    const out = await build({
      entryPoints: [path.join(here, 'app.ts')], bundle: true, write: false, format: 'iife', platform: 'browser',
      target: 'es2022', minify: true, legalComments: 'none', logLevel: 'silent',
    });
    return out.outputFiles[0].text;
  })();
  script.catch(() => { script = undefined; });
  return script;
}

export async function uiAssets(pathname: string): Promise<Asset | undefined> {
  if (pathname === '/' || pathname === '/index.html') return { type: 'text/html; charset=utf-8', body: PAGE };
  if (pathname === '/assets/app.js') return { type: 'text/javascript; charset=utf-8', body: await uiScript() };
  if (pathname === '/assets/app.css') return { type: 'text/css; charset=utf-8', body: await readFile(path.join(here, 'style.css'), 'utf8') };
  return undefined;
}
