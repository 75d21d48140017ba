/**
 * A process whose pool holds idle threads (a replacement for a killed one, warm ones) ends
 * when its own work ends. Before the fix, a thread that was never lent out kept its message
 * port ref'd and `airless run` alive: the flake of cli-exit.test.ts (it happened when a
 * thread died while no other was idle, which load made likely). A real process: the bound
 * on wall time is generous.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildToLocalVersion, LocalBundleSource } from '../../lib/build/index.js';

const CHILD = path.resolve('test/isolation/idle-exit-child.ts');
let root: string;
let bundlePath: string;
let sha: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'airless-idle-exit-'));
  const { version } = await buildToLocalVersion(path.resolve('test/fixtures/isolation-dags'), root);
  bundlePath = path.join(root, version, 'bundle.mjs');
  sha = (await new LocalBundleSource(root).manifest(version)).bundleSha256;
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('idle isolation threads', () => {
  it('do not keep the process alive: it exits once its work is done', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, bundlePath, sha], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const started = performance.now();
    const stillAlive = setTimeout(() => child.kill('SIGKILL'), 45_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    clearTimeout(stillAlive);
    expect(out).toContain('killed: The operation was aborted due to timeout');
    expect(out).toContain('threads alive: 2');
    expect(code, `the process was still alive after ${Math.round(performance.now() - started)} ms:\n${out}`).toBe(0);
  });
});
