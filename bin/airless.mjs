#!/usr/bin/env node
// The `airless` command. Installed from npm it runs the compiled CLI in dist/; in the
// repository (where bin/airless.ts sits beside this file) it runs the TypeScript
// source through tsx, so `node bin/airless.mjs` works straight after `npm ci`.
import { existsSync } from 'node:fs';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
if (existsSync(new URL('./airless.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./airless.ts');
} else {
  await import('../dist/bin/airless.js');
}
