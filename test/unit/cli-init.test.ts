/**
 * `airless init`: writes the scaffold into an empty folder; into a folder with a
 * package.json it merges (existing entries win) and never overwrites other files.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cmdInit } from '../../lib/cli/init.js';
import { packageInfo } from '../../lib/cli/package-info.js';

const quiet = () => {};
const read = (dir: string, f: string) => readFileSync(path.join(dir, f), 'utf8');

describe('airless init', () => {
  it('writes a project into an empty folder', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'airless-init-')), 'My Flows');
    expect(await cmdInit(dir, { out: quiet })).toBe(0);
    for (const f of ['package.json', 'tsconfig.json', 'cdk.json', '.gitignore', 'README.md', 'dags/example.ts', 'test/example.test.ts', 'infra/app.ts']) {
      expect(existsSync(path.join(dir, f)), f).toBe(true);
    }
    const pkg = JSON.parse(read(dir, 'package.json'));
    expect(pkg.name).toBe('my-flows');
    expect(pkg.dependencies.airless).toBe(`^${packageInfo().version}`);
    expect(pkg.dependencies['aws-cdk-lib']).toBe(packageInfo().devDependencies['aws-cdk-lib']);
    expect(pkg.devDependencies).toMatchObject({ typescript: expect.any(String), vitest: expect.any(String), 'aws-cdk': expect.any(String), tsx: expect.any(String) });
    expect(read(dir, 'test/example.test.ts')).toContain("from 'airless/testing'");
    expect(read(dir, 'infra/app.ts')).toContain("from 'airless/infra'");
    expect(read(dir, '.gitignore')).toContain('.airless/');
  });

  it('merges an existing package.json and keeps existing files', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'airless-init-'));
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'kept', scripts: { test: 'node --test' }, dependencies: { airless: 'file:../airless.tgz', lodash: '4.17.21' } }));
    writeFileSync(path.join(dir, 'README.md'), 'mine\n');
    const lines: string[] = [];
    await cmdInit(dir, { out: (l) => lines.push(l) });
    const pkg = JSON.parse(read(dir, 'package.json'));
    expect(pkg).toMatchObject({ name: 'kept', type: 'module', scripts: { test: 'node --test', build: 'airless build dags' }, dependencies: { airless: 'file:../airless.tgz', lodash: '4.17.21' } });
    expect(read(dir, 'README.md')).toBe('mine\n');
    expect(lines).toContain('  kept  README.md (exists)');
    expect(lines).toContain('  wrote package.json (merged)');
  });

  it('refuses a package.json that is not JSON', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'airless-init-'));
    writeFileSync(path.join(dir, 'package.json'), '{oops');
    await expect(cmdInit(dir, { out: quiet })).rejects.toThrow(/package\.json is not valid JSON/);
  });
});
