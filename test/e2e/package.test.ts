/**
 * The package as a user gets it, step by step as the README tells them, in an empty folder
 * outside the repository (dependencies from the local npm cache, --prefer-offline):
 * `npm pack` (once), `npm init -y` (npm 11: "type": "commonjs" and a placeholder test),
 * `npm install <tarball>`, `npx airless init .`, `airless rehearse` (which names the
 * optional peers to install), the install it prints (with what init added), then the
 * scaffold's `npm test`, `tsc`, `airless run` (twice: the second from the build cache),
 * `cdk synth`, a CommonJS `require` of each entry point, `airless tasks test`, a DAG file
 * written against Airflow's TypeScript SDK (tsc and run), `airless
 * dev` with its grid drawn in headless Chromium, a DAG type error refused, and `airless
 * rehearse --scenario readme --json` against the scaffold's own CDK app. One pack, two
 * installs, shared by every step; each step's time is printed at the end.
 * AIRLESS_SKIP_PACKAGE_TEST=1 skips it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../ui/chromium.js';

const ROOT = path.resolve(__dirname, '../..');
const work = mkdtempSync(path.join(tmpdir(), 'airless-package-'));
const proj = path.join(work, 'proj');
const env = { ...process.env, NO_COLOR: '1', CDK_DISABLE_CLI_TELEMETRY: '1', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
const SKIP = process.env.AIRLESS_SKIP_PACKAGE_TEST === '1';

function sh(cmd: string, args: string[], cwd: string, timeoutMs = 300_000) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** Runs concurrently with other steps; resolves with the exit code, stdout and both streams. */
function shAsync(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env });
    let out = '';
    let stdout = '';
    child.stdout.on('data', (d) => { out += d; stdout += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('close', (code) => resolve({ code, stdout, out }));
  });
}

const timings: Record<string, number> = {};
async function timed<T>(name: string, f: () => T | Promise<T>): Promise<T> {
  const t = performance.now();
  try {
    return await f();
  } finally {
    timings[name] = Math.round(performance.now() - t);
  }
}

const readPkg = () => JSON.parse(readFileSync(path.join(proj, 'package.json'), 'utf8'));

describe.skipIf(SKIP)('npm package', () => {
  let tarball = '';
  let initOut = '';
  let peersHint = '';

  beforeAll(async () => {
    const packed = await timed('npm pack', () => sh('npm', ['pack', '--silent', '--pack-destination', work], ROOT));
    tarball = path.join(work, packed.stdout.trim().split('\n').pop()!);
    writeFileSync(path.join(work, 'package.json'), '{}\n'); // keeps npm from walking up
    mkdirSync(proj);
    await timed('npm init -y', () => sh('npm', ['init', '-y'], proj));
    expect(readPkg()).toMatchObject({ type: 'commonjs', scripts: { test: expect.stringContaining('no test specified') } });
    await timed('npm install tarball', () => sh('npm', ['install', '--prefer-offline', tarball], proj));
    initOut = (await timed('airless init .', () => sh('npx', ['airless', 'init', '.'], proj))).stdout;
    // Before its peers are installed, rehearse names them (exit 2); the user runs what it printed.
    const bare = spawnSync('npx', ['airless', 'rehearse', '--scenario', 'readme'], { cwd: proj, env, encoding: 'utf8' });
    expect(bare.status, bare.stderr).toBe(2);
    peersHint = /npm install -D .*/.exec(bare.stderr)?.[0] ?? '';
    // The peers' install also installs what init added to package.json, as `npm install` would.
    const [npm, ...args] = peersHint.split(' ');
    await timed('npm install (scaffold + rehearsal peers)', () => sh(npm, [...args, '--prefer-offline'], proj));
  }, 900_000);

  afterAll(() => {
    const size = tarball && existsSync(tarball) ? statSync(tarball).size : 0;
    const installed = spawnSync('du', ['-sk', path.join(proj, 'node_modules')], { encoding: 'utf8' }).stdout.split('\t')[0];
    process.stdout.write(`package test: tarball ${size} bytes, node_modules ${installed} KiB, timings (ms) ${JSON.stringify(timings)}\n`);
    rmSync(work, { recursive: true, force: true });
  });

  it('packs compiled JavaScript with types, the prebuilt UI, the runtime files and the scenario DAGs, and no tests', () => {
    const files = sh('tar', ['tzf', tarball], work).stdout.trim().split('\n');
    for (const f of ['dist/lib/sdk/index.js', 'dist/lib/sdk/index.d.ts', 'dist/lib/testing/index.d.ts', 'dist/lib/exports/infra.js', 'bin/airless.mjs',
      'dist/lib/ui/public/app.js', 'dist/lib/ui/public/app.css', 'dist/lib/rehearsal/sqs-thread.mjs', 'dist/lib/rehearsal/container-bootstrap.mjs',
      'examples/dags/reports.ts', 'examples/data/2026-01-01.csv', 'lib/rehearsal/scenarios/dags/long_wait.ts']) {
      expect(files).toContain(`package/${f}`);
    }
    // TypeScript sources only where the rehearsal pushes them as a user pushes a DAG folder.
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !/^package\/(examples\/dags|lib\/rehearsal\/scenarios\/dags)\//.test(f))).toEqual([]);
    expect(files.filter((f) => f.startsWith('package/test/') || f.startsWith('package/scripts/'))).toEqual([]);
    const pkg = JSON.parse(readFileSync(path.join(proj, 'node_modules/airless/package.json'), 'utf8'));
    expect(pkg.peerDependencies).toMatchObject({ 'aws-cdk-lib': expect.any(String), constructs: expect.any(String) });
    expect(statSync(tarball).size).toBeLessThan(1_000_000);
  });

  it("makes npm init -y's package.json work and says what it changed; rehearse named its pinned peers", () => {
    expect(readPkg()).toMatchObject({ type: 'module', scripts: { test: 'vitest run' } });
    expect(initOut).toContain('set "type": "module" (was "commonjs")');
    expect(initOut).toContain("set scripts.test to \"vitest run\" (was npm's placeholder)");
    expect(peersHint).toMatch(/^npm install -D @cloud-copilot\/iam-simulate@\S+ @sinonjs\/fake-timers@\S+ local-aws-sqs@\S+ s3rver@\S+$/);
  });

  it('scaffolds a project whose test, type-check, run, synth and CommonJS require pass, and whose second run is cached', async () => {
    expect(readdirSync(proj).sort()).toEqual(expect.arrayContaining(['.gitignore', 'README.md', 'cdk.json', 'dags', 'infra', 'package.json', 'test', 'tsconfig.json']));
    const requireAll = "for (const m of ['airless', 'airless/infra', 'airless/testing']) if (Object.keys(require(m)).length === 0) process.exit(1)";
    const [test, tsc, run, synth, cjs] = await timed('test+tsc+run+synth+require (parallel)', () => Promise.all([
      shAsync('npm', ['test'], proj),
      shAsync('npx', ['tsc', '--noEmit'], proj),
      timed('airless run (first)', () => shAsync('npx', ['airless', 'run', 'dags', '--dag', 'example', '--time-warp', '--json'], proj)),
      shAsync('npx', ['cdk', 'synth', '-q'], proj),
      shAsync('node', ['-e', requireAll], proj),
    ]));
    expect(test.code, test.out).toBe(0);
    expect(test.out).toMatch(/2 passed/);
    expect(tsc.code, tsc.out).toBe(0);
    expect(run.code, run.out).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toMatchObject({ dagId: 'example', state: 'success' });
    expect(synth.code, synth.out).toBe(0);
    expect(cjs.code, cjs.out).toBe(0);
    const template = JSON.parse(readFileSync(path.join(proj, 'cdk.out', 'Airless.template.json'), 'utf8'));
    expect(Object.values(template.Resources).filter((r: any) => r.Type === 'AWS::Lambda::Function').length).toBeGreaterThanOrEqual(4);
    // The second run of the unchanged folder reuses the type-check: its cache entry is not written again.
    const cache = path.join(proj, '.airless', 'cache');
    const entries = () => readdirSync(cache).filter((f) => f.endsWith('.json')).map((f) => `${f} ${statSync(path.join(cache, f)).mtimeMs}`).sort();
    const before = entries();
    expect(before.some((e) => e.startsWith('typecheck-')) && before.some((e) => e.startsWith('bundle-'))).toBe(true);
    const again = await timed('airless run (second)', () => shAsync('npx', ['airless', 'run', 'dags', '--dag', 'example', '--time-warp', '--json'], proj));
    expect(again.code, again.out).toBe(0);
    expect(entries()).toEqual(before);
  }, 600_000);

  it('tests one task, and refuses a DAG type error with its file:line:col, exit 2', async () => {
    const task = await timed('airless tasks test', () => shAsync('npx', ['airless', 'tasks', 'test', 'dags', 'example', 'extract'], proj));
    expect(task.code, task.out).toBe(0);
    expect(task.stdout).toContain('example.extract succeeded, returned {"rows":21}');
    // A DAG file written against Airflow's TypeScript SDK: the user's tsc (the scaffold maps the
    // name to the package's types) and airless run (bundler and type-check resolve it) both take it.
    const sdk = path.join(proj, 'dags', 'airflow_sdk.ts');
    writeFileSync(sdk, [
      "import { Dag, getClient } from 'apache-airflow-ts-sdk';",
      "export const dag = new Dag('ts_sdk_example', { schedule: '@daily' });",
      "const extract = dag.task('extract', async () => ({ rows: Number((await getClient().getVariable('rows')) ?? 2) }));",
      "const load = dag.task('load', async ({ data }: { data: { rows: number } }) => data.rows * 10);",
      'load({ data: extract() });',
      '',
    ].join('\n'));
    try {
      const [tsc, run] = await timed('tsc + airless run (Airflow TS SDK DAG)', () => Promise.all([
        shAsync('npx', ['tsc', '--noEmit'], proj),
        shAsync('npx', ['airless', 'run', 'dags', '--dag', 'ts_sdk_example', '--time-warp', '--json'], proj),
      ]));
      expect(tsc.code, tsc.out).toBe(0);
      expect(run.code, run.out).toBe(0);
      expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toMatchObject({ dagId: 'ts_sdk_example', state: 'success', tasks: [{ taskId: 'extract', state: 'success' }, { taskId: 'load', state: 'success', xcom: 20 }] });
    } finally {
      rmSync(sdk);
    }
    const bad = path.join(proj, 'dags', 'typo.ts');
    writeFileSync(bad, "import { dag } from 'airless';\nexport default dag('typo', { catchupp: true }, () => {});\n");
    try {
      const r = await timed('airless build (type error)', () => spawnSync('npx', ['airless', 'build', 'dags'], { cwd: proj, env, encoding: 'utf8', timeout: 120_000 }));
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/dags\/typo\.ts:2:30: error TS\d+: .*'catchupp'/);
    } finally {
      rmSync(bad);
    }
  }, 240_000);

  it('airless dev serves the UI and its grid draws in Chromium', async () => {
    let dev: ChildProcess | undefined;
    const browser = await launchChromium();
    try {
      await timed('airless dev + grid in Chromium', async () => {
        let out = '';
        // Its own process group: npx, node and the dev server are stopped together.
        dev = spawn('npx', ['airless', 'dev', 'dags', '--port', '0'], { cwd: proj, env, detached: true });
        dev.stdout!.on('data', (d) => { out += d; });
        dev.stderr!.on('data', (d) => { out += d; });
        const deadline = Date.now() + 120_000;
        while (!/control endpoint/.test(out)) {
          if (Date.now() > deadline || dev.exitCode !== null) throw new Error(`airless dev did not start:\n${out}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        const url = /open (http\S+)/.exec(out)![1];
        const trigger = await shAsync('npx', ['airless', 'trigger', 'example', '--dev'], proj);
        expect(trigger.code, trigger.out).toBe(0);
        const page = await browser.newPage();
        const errors: Error[] = [];
        page.on('pageerror', (e) => errors.push(e));
        await page.goto(url);
        // The prebuilt files of the package (before the fix: 500, built from sources the tarball lacks).
        const assets = await Promise.all(['/assets/app.js', '/assets/app.css'].map((p) => page.request.get(new URL(p, url).href)));
        expect(assets.map((a) => a.status())).toEqual([200, 200]);
        expect(await assets[0].text()).toBe(readFileSync(path.join(proj, 'node_modules/airless/dist/lib/ui/public/app.js'), 'utf8'));
        await page.evaluate(() => { location.hash = '#/dags/example/grid'; });
        await page.waitForFunction(() => document.querySelectorAll('[data-testid=grid] .row.task i[data-state=success]').length >= 3, undefined, { timeout: 60_000 });
        expect(await page.$$eval('[data-testid=grid] .row.task .name', (n) => n.map((x) => x.textContent))).toEqual(['extract', 'transform', 'load']);
        expect(errors).toEqual([]);
      });
    } finally {
      await browser.close();
      if (dev?.pid && dev.exitCode === null) process.kill(-dev.pid, 'SIGKILL');
    }
  }, 240_000);

  it('rehearses the scaffold\'s own CDK app: the readme scenario passes with no call denied and leaves the project clean', async () => {
    const r = await timed('airless rehearse --scenario readme --json', () => shAsync('npx', ['airless', 'rehearse', '--scenario', 'readme', '--json'], proj));
    expect(r.code, r.out.slice(-4000)).toBe(0);
    const summary = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(summary).toMatchObject({ scenarios: [{ name: 'readme', ok: true }], accessDenied: 0 });
    expect(readdirSync(proj).filter((f) => !['.airless', '.gitignore', 'README.md', 'cdk.json', 'cdk.out', 'dags', 'infra', 'node_modules', 'package-lock.json', 'package.json', 'test', 'tsconfig.json'].includes(f))).toEqual([]);
  }, 600_000);
});
