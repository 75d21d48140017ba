/**
 * `airless init`: writes the scaffold into an empty folder; into a folder with a
 * package.json (what `npm init -y` writes with npm 11) it sets what the scaffold needs
 * and prints each change, refuses (writing nothing, exit 2) with the exact command to
 * run when that would overwrite the user's own choice, and never overwrites other files.
 */
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cmdInit } from '../../lib/cli/init.js';
import { exitCodeFor } from '../../lib/cli/output.js';
import { packageInfo } from '../../lib/package-info.js';

const quiet = () => {};
const read = (dir: string, f: string) => readFileSync(path.join(dir, f), 'utf8');
const folder = () => mkdtempSync(path.join(tmpdir(), 'airless-init-'));

/** Exactly what `npm init -y` writes with npm 11.19 (TOOLCHAIN.md). */
const NPM_INIT_Y = {
  name: 'proj', version: '1.0.0', description: '', main: 'index.js',
  scripts: { test: 'echo "Error: no test specified" && exit 1' },
  keywords: [], author: '', license: 'ISC', type: 'commonjs',
};

async function refusal(dir: string): Promise<Error> {
  try {
    await cmdInit(dir, { out: quiet });
  } catch (e) {
    return e as Error;
  }
  throw new Error('init did not refuse');
}

describe('airless init', () => {
  it('writes a project into an empty folder', async () => {
    const dir = path.join(folder(), 'My Flows');
    expect(await cmdInit(dir, { out: quiet })).toBe(0);
    for (const f of ['package.json', 'tsconfig.json', 'cdk.json', '.gitignore', 'README.md', 'dags/example.ts', 'test/example.test.ts', 'infra/app.ts']) {
      expect(existsSync(path.join(dir, f)), f).toBe(true);
    }
    const pkg = JSON.parse(read(dir, 'package.json'));
    expect(pkg).toMatchObject({ name: 'my-flows', type: 'module', scripts: { test: 'vitest run' } });
    expect(pkg.dependencies.airless).toBe(`^${packageInfo().version}`);
    expect(pkg.dependencies['aws-cdk-lib']).toBe(packageInfo().devDependencies['aws-cdk-lib']);
    expect(pkg.devDependencies).toMatchObject({ typescript: expect.any(String), vitest: expect.any(String), 'aws-cdk': expect.any(String), tsx: expect.any(String) });
    expect(read(dir, 'test/example.test.ts')).toContain("from 'airless/testing'");
    expect(read(dir, 'infra/app.ts')).toContain("from 'airless/infra'");
    expect(read(dir, 'infra/app.ts')).toContain("context('shards')");
    expect(read(dir, '.gitignore')).toContain('.airless/');
  });

  it("makes what npm init -y wrote work: type module and a test script, each change printed", async () => {
    const dir = folder();
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...NPM_INIT_Y, dependencies: { airless: 'file:../airless-0.1.0.tgz' } }, null, 2));
    mkdirSync(path.join(dir, 'node_modules', 'airless'), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules', 'airless', 'index.js'), 'module.exports = {};\n'); // not the project's own code
    const lines: string[] = [];
    expect(await cmdInit(dir, { out: (l) => lines.push(l) })).toBe(0);
    const pkg = JSON.parse(read(dir, 'package.json'));
    expect(pkg).toMatchObject({
      name: 'proj', version: '1.0.0', main: 'index.js', license: 'ISC', type: 'module',
      scripts: { test: 'vitest run', build: 'airless build dags', synth: 'cdk synth' },
      dependencies: { airless: 'file:../airless-0.1.0.tgz', 'aws-cdk-lib': expect.any(String), constructs: expect.any(String) },
      devDependencies: { vitest: expect.any(String), tsx: expect.any(String) },
    });
    expect(lines).toContain('  wrote package.json (merged)');
    expect(lines).toContain('        set "type": "module" (was "commonjs"): the DAGs, tests and CDK app are ES modules');
    expect(lines).toContain('        set scripts.test to "vitest run" (was npm\'s placeholder): npm test runs the DAG tests');
    expect(lines.find((l) => l.includes('added scripts'))).toMatch(/typecheck, build, example, dev, synth, deploy$/);
    expect(lines.find((l) => l.includes('added dependencies'))).toMatch(/aws-cdk-lib@\S+, constructs@\S+$/);
  });

  it('refuses to replace a test script of the user\'s, writes nothing, and the command it prints makes the next init pass', async () => {
    const dir = folder();
    const before = JSON.stringify({ ...NPM_INIT_Y, scripts: { test: 'node --test' } }, null, 2);
    writeFileSync(path.join(dir, 'package.json'), before);
    const e = await refusal(dir);
    expect(exitCodeFor(e)).toBe(2);
    expect(e.message).toContain("npm pkg set scripts.test='node --test && vitest run'");
    expect(e.message).toMatch(/then run npx airless init \S+ again$/);
    expect(read(dir, 'package.json')).toBe(before);
    expect(readdirSync(dir)).toEqual(['package.json']);
    // The user runs exactly the printed command.
    execSync(/npm pkg set .*/.exec(e.message)![0], { cwd: dir, stdio: 'ignore' });
    expect(await cmdInit(dir, { out: quiet })).toBe(0);
    expect(JSON.parse(read(dir, 'package.json')).scripts.test).toBe('node --test && vitest run');
  });

  it('refuses to make a package with CommonJS files ESM, naming them and the two ways out', async () => {
    const dir = folder();
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify(NPM_INIT_Y));
    writeFileSync(path.join(dir, 'index.js'), "module.exports = require('./lib');\n");
    const e = await refusal(dir);
    expect(e.message).toContain('"type": "commonjs" and CommonJS files (index.js)');
    expect(e.message).toContain('npm pkg set type=module');
    expect(e.message).toContain('npx airless init flows');
    expect(existsSync(path.join(dir, 'dags'))).toBe(false);
    expect(e.message).toMatch(/^airless init: nothing written;/);
  });

  it('keeps what the user has: their scripts, dependency specs and files, and says so', async () => {
    const dir = folder();
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'kept', type: 'module', scripts: { test: 'vitest run --coverage', build: 'tsc' }, dependencies: { airless: 'file:../airless.tgz', lodash: '4.17.21' } }));
    writeFileSync(path.join(dir, 'README.md'), 'mine\n');
    const lines: string[] = [];
    await cmdInit(dir, { out: (l) => lines.push(l) });
    const pkg = JSON.parse(read(dir, 'package.json'));
    expect(pkg).toMatchObject({ name: 'kept', type: 'module', scripts: { test: 'vitest run --coverage', build: 'tsc', dev: 'airless dev dags' }, dependencies: { airless: 'file:../airless.tgz', lodash: '4.17.21' } });
    expect(pkg.private).toBeUndefined();
    expect(read(dir, 'README.md')).toBe('mine\n');
    expect(lines).toContain('  kept  README.md (exists)');
    expect(lines).toContain('        kept your scripts build (the scaffold\'s README assumes its own)');
    expect(lines.some((l) => l.includes('"type"') || l.includes('scripts.test'))).toBe(false);
  });

  it('refuses a package.json that is not JSON', async () => {
    const dir = folder();
    writeFileSync(path.join(dir, 'package.json'), '{oops');
    await expect(cmdInit(dir, { out: quiet })).rejects.toThrow(/package\.json is not valid JSON/);
  });
});
