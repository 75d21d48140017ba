/**
 * The package as a user gets it: `npm pack`, install the tarball into an empty folder
 * outside the repository (dependencies from the local npm cache, --prefer-offline),
 * `npx airless init .`, `npm install`, then the scaffold's `npm test`, `tsc --noEmit`,
 * `airless run`, `cdk synth` (offline), and a DAG type error refused with its position.
 * Slow by nature (two installs, a compile, a synth): about 1-2 minutes on an idle
 * 2-core machine. AIRLESS_SKIP_PACKAGE_TEST=1 skips it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const work = mkdtempSync(path.join(tmpdir(), 'airless-package-'));
const proj = path.join(work, 'proj');
const env = { ...process.env, NO_COLOR: '1', CDK_DISABLE_CLI_TELEMETRY: '1', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

function sh(cmd: string, args: string[], cwd: string, timeoutMs = 300_000) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** Runs concurrently with the other checks; resolves with the exit code and output. */
function shAsync(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('close', (code) => resolve({ code, out }));
  });
}

const timings: Record<string, number> = {};
function timed<T>(name: string, f: () => T): T {
  const t = performance.now();
  const r = f();
  timings[name] = Math.round(performance.now() - t);
  return r;
}

describe.skipIf(process.env.AIRLESS_SKIP_PACKAGE_TEST === '1')('npm package', () => {
  let tarball = '';

  beforeAll(() => {
    const packed = timed('npm pack', () => sh('npm', ['pack', '--silent', '--pack-destination', work], ROOT));
    tarball = path.join(work, packed.stdout.trim().split('\n').pop()!);
    writeFileSync(path.join(work, 'package.json'), '{}\n'); // keeps npm from walking up
    sh('mkdir', ['-p', proj], work);
    writeFileSync(path.join(proj, 'package.json'), `${JSON.stringify({ name: 'proj', private: true })}\n`);
    timed('npm install tarball', () => sh('npm', ['install', '--prefer-offline', tarball], proj));
    timed('airless init', () => sh('npx', ['airless', 'init', '.'], proj));
    timed('npm install scaffold', () => sh('npm', ['install', '--prefer-offline'], proj));
  }, 600_000);

  afterAll(() => {
    const size = tarball ? statSync(tarball).size : 0;
    const installed = spawnSync('du', ['-sk', path.join(proj, 'node_modules')], { encoding: 'utf8' }).stdout.split('\t')[0];
    process.stdout.write(`package test: tarball ${size} bytes, scaffold node_modules ${installed} KiB, timings (ms) ${JSON.stringify(timings)}\n`);
    rmSync(work, { recursive: true, force: true });
  });

  it('packs compiled JavaScript with types, the bin, and no sources or tests', () => {
    const files = sh('tar', ['tzf', tarball], work).stdout.trim().split('\n');
    expect(files).toContain('package/dist/lib/sdk/index.js');
    expect(files).toContain('package/dist/lib/sdk/index.d.ts');
    expect(files).toContain('package/dist/lib/testing/index.d.ts');
    expect(files).toContain('package/dist/lib/exports/infra.js');
    expect(files).toContain('package/bin/airless.mjs');
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('package/test/') || f.startsWith('package/examples/'))).toEqual([]);
    const pkg = JSON.parse(readFileSync(path.join(proj, 'node_modules/airless/package.json'), 'utf8'));
    expect(pkg.peerDependencies).toMatchObject({ 'aws-cdk-lib': expect.any(String), constructs: expect.any(String) });
    expect(statSync(tarball).size).toBeLessThan(1_000_000);
  });

  it('scaffolds a project whose test, type-check, run and synth pass out of the box', async () => {
    expect(readdirSync(proj).sort()).toEqual(expect.arrayContaining(['.gitignore', 'README.md', 'cdk.json', 'dags', 'infra', 'package.json', 'test', 'tsconfig.json']));
    const t = performance.now();
    const [test, tsc, run, synth] = await Promise.all([
      shAsync('npm', ['test'], proj),
      shAsync('npx', ['tsc', '--noEmit'], proj),
      shAsync('npx', ['airless', 'run', 'dags', '--dag', 'example', '--time-warp', '--json'], proj),
      shAsync('npx', ['cdk', 'synth', '-q'], proj),
    ]);
    timings['test+tsc+run+synth'] = Math.round(performance.now() - t);
    expect(test.code, test.out).toBe(0);
    expect(test.out).toMatch(/2 passed/);
    expect(tsc.code, tsc.out).toBe(0);
    expect(run.code, run.out).toBe(0);
    expect(JSON.parse(run.out.trim().split('\n').pop()!)).toMatchObject({ dagId: 'example', state: 'success' });
    expect(synth.code, synth.out).toBe(0);
    const template = JSON.parse(readFileSync(path.join(proj, 'cdk.out', 'Airless.template.json'), 'utf8'));
    expect(Object.values(template.Resources).filter((r: any) => r.Type === 'AWS::Lambda::Function').length).toBeGreaterThanOrEqual(4);
  }, 600_000);

  it('refuses a DAG type error with its file:line:col, exit 2', () => {
    const bad = path.join(proj, 'dags', 'typo.ts');
    writeFileSync(bad, "import { dag } from 'airless';\nexport default dag('typo', { catchupp: true }, () => {});\n");
    try {
      const r = spawnSync('npx', ['airless', 'build', 'dags'], { cwd: proj, env, encoding: 'utf8', timeout: 120_000 });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/dags\/typo\.ts:2:30: error TS\d+: .*'catchupp'/);
    } finally {
      rmSync(bad);
    }
  }, 120_000);
});
