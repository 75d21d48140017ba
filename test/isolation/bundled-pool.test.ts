/**
 * The pool must work from inside a Lambda bundle: esbuild with the functions' own options
 * (lib/infra/functions.ts BUNDLING: ESM, minify, keepNames, the require banner). The
 * thread's code used to be sent as `threadMain.toString()`, which the minifier had
 * rewritten to call its module-level helpers (`__require`, `__name`) under minified
 * names: every try in the rehearsed worker Lambda failed with `ReferenceError: ti is not
 * defined`, while the tests, run unbundled, passed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLING } from '../../lib/infra/functions.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'airless-bundled-pool-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the isolation pool inside an esbuild-bundled function', () => {
  it('runs a task in a thread when pool.ts is bundled as the Lambda functions are', async () => {
    const out = path.join(dir, 'index.mjs');
    await build({
      entryPoints: [path.resolve('lib/isolation/pool.ts')],
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: BUNDLING.target,
      minify: BUNDLING.minify,
      keepNames: BUNDLING.keepNames,
      banner: { js: BUNDLING.banner! },
      logLevel: 'silent',
    });
    // A bundle as the build writes it: `files`, each loading a module with a DAG.
    const bundlePath = path.join(dir, 'bundle.mjs');
    await writeFile(bundlePath, [
      'const dag = { __airless: "dag", spec: { dagId: "d" }, tasks: new Map([["t", {',
      '  execute: async (ctx) => { await ctx.xcom.push("k", 1); return { got: ctx.taskId, n: 41 + 1 }; },',
      '}]]) };',
      'export const files = [{ load: async () => ({ dag }) }];',
    ].join('\n'));

    const { IsolationPool } = await import(pathToFileURL(out).href);
    const pool = new IsolationPool({ bundlePath, sha: 'x', memoryMb: 64 });
    const pushed: unknown[] = [];
    const host = {
      taskId: 't',
      xcom: { pull: async () => undefined, push: async (k: string, v: unknown) => void pushed.push([k, v]) },
      log: { info() {}, warn() {}, error() {} },
      render: (s: string) => s,
    };
    try {
      const value = await pool.run({ t: 'run', dagId: 'd', taskId: 't', method: 'execute', ctx: { taskId: 't' } }, host);
      expect(value).toEqual({ got: 't', n: 42 });
      expect(pushed).toEqual([['k', 1]]);
    } finally {
      await pool.close();
    }
  });
});
