/**
 * The functions' bundling keeps class names through minification, so an error raised in
 * Lambda is logged as `InvalidInputError: ...`, not as `p: ...`. Synthesizes one function
 * with the stack's bundling options (the real esbuild run, a few seconds) and runs the
 * minified asset.
 */
import { App, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { copyFile, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLING, PROJECT_ROOT } from '../../lib/infra/functions.js';

let work: string;
let code: string;
let assembly: string;

beforeAll(async () => {
  const app = new App();
  const stack = new Stack(app, 'Bundling');
  new NodejsFunction(stack, 'Poker', {
    entry: `${PROJECT_ROOT}functions/poker.ts`,
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
    runtime: lambda.Runtime.NODEJS_24_X,
    bundling: BUNDLING,
  });
  assembly = app.synth().directory;
  const asset = (await readdir(assembly)).find((d) => d.startsWith('asset.'));
  if (!asset) throw new Error(`no asset in ${assembly}`);
  // Next to a node_modules link, so that the external @aws-sdk/* imports resolve.
  work = await mkdtemp(join(tmpdir(), 'airless-bundle-'));
  await symlink(join(PROJECT_ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
  for (const f of ['index.mjs', 'index.mjs.map']) await copyFile(join(assembly, asset, f), join(work, f));
  code = await readFile(join(work, 'index.mjs'), 'utf8');
}, 120_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
  await rm(assembly, { recursive: true, force: true });
});

describe('function bundling', () => {
  it('is minified', () => {
    // Minified: long lines (the isolation thread's source is a multi-line string literal, so
    // line count alone says nothing), no exported class declarations left as written.
    expect(code.length / code.split('\n').length).toBeGreaterThan(300);
    expect(code).not.toContain('export class InvalidInputError');
  });

  it('keeps error class names: the minified poker rejects a bad event with an InvalidInputError', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      AIRLESS_TABLE_PREFIX: 'bundling-', AIRLESS_QUEUE_URL: 'http://127.0.0.1:1/000000000000/q',
      AIRLESS_QUEUE_ARN: 'arn:aws:sqs:us-east-1:000000000000:q', AIRLESS_BUCKET: 'b', AWS_REGION: 'us-east-1',
      POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'SILENT',
    });
    try {
      const poker = (await import(pathToFileURL(join(work, 'index.mjs')).href)) as { run: (e: unknown) => Promise<unknown> };
      const err = await poker.run({ shard: 'x' }).then(() => undefined, (e: unknown) => e as Error);
      expect(err?.message).toMatch(/^poker needs \{"shard": 0\.\.7\}/);
      expect(err?.name).toBe('InvalidInputError');
      expect(String(err)).toMatch(/^InvalidInputError: poker needs/);
    } finally {
      process.env = saved;
    }
  });
});
