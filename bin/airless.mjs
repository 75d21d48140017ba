#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx airless` works straight after `npm ci`.
import { register } from 'tsx/esm/api';

register();
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
await import('./airless.ts');
