/**
 * `airless init <dir>`: writes a new project (package.json, tsconfig, an example DAG, a
 * test with airless/testing, a CDK app, .gitignore, README). Into a folder that already
 * has a package.json (say after `npm init -y && npm install airless`) it sets what the
 * scaffold needs and prints each change: `"type": "module"` (the DAGs, the tests and the
 * CDK app are ES modules), a `test` script that runs vitest, and the scripts and
 * dependencies it lacks. What the user chose is never overwritten: a `test` script of
 * their own, or `"type": "commonjs"` with CommonJS files beside it, makes init refuse,
 * write nothing, and print the exact command to run. Existing files are never overwritten.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scaffoldFiles } from './init-files.js';
import { UsageError } from './output.js';
import { packageInfo } from '../package-info.js';

type Pkg = Record<string, any>;

/** The `test` script `npm init -y` writes. */
const PLACEHOLDER_TEST = /no test specified/;

/** Folders never searched for the project's own CommonJS files. */
const NOT_SOURCE = new Set(['node_modules', 'cdk.out', 'dist', 'coverage', 'build', 'out']);

/**
 * Up to `limit` files (relative paths) that Node or tsx would load as CommonJS because
 * of the package's `type`: `*.js`, `*.ts`, `*.tsx` (`.cjs`/`.mjs`/`.cts`/`.mts` say
 * their kind themselves), outside node_modules, build output and hidden folders.
 */
function typeDependentFiles(root: string, skip: ReadonlySet<string>, limit = 3): string[] {
  const found: string[] = [];
  const walk = (rel: string, depth: number) => {
    if (found.length >= limit || depth > 4) return;
    let entries;
    try {
      entries = readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.name.startsWith('.') || NOT_SOURCE.has(e.name) || skip.has(child)) continue;
      if (e.isDirectory()) walk(child, depth + 1);
      else if (/\.(js|ts|tsx)$/.test(e.name) && !/\.d\.ts$/.test(e.name)) found.push(child);
      if (found.length >= limit) return;
    }
  };
  walk('', 0);
  return found;
}

/** npm's own quoting for `npm pkg set key=value` in a POSIX shell. */
const shellArg = (s: string) => (/^[\w@./:=^~-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

/**
 * Merges the scaffold's package.json into an existing one. Returns the merged package,
 * the changes made (one line each) and the refusals (each with the command to run).
 */
export function mergePackage(existing: Pkg, fresh: Pkg, o: { root: string; scaffold: readonly string[] }): { pkg: Pkg; changes: string[]; refusals: string[] } {
  const pkg: Pkg = structuredClone(existing);
  const changes: string[] = [];
  const refusals: string[] = [];
  if (pkg.type !== 'module') {
    const cjs = typeDependentFiles(o.root, new Set(o.scaffold));
    if (cjs.length === 0) {
      changes.push(`set "type": "module" (was ${pkg.type === undefined ? 'unset, i.e. CommonJS' : JSON.stringify(pkg.type)}): the DAGs, tests and CDK app are ES modules`);
      pkg.type = 'module';
    } else {
      refusals.push(`package.json has ${pkg.type === undefined ? 'no "type" (CommonJS)' : `"type": ${JSON.stringify(pkg.type)}`} and CommonJS files (${cjs.join(', ')}); the scaffold's DAGs, tests and CDK app are ES modules.\n`
        + '  Make the package ESM (rename CommonJS .js files to .cjs first): npm pkg set type=module\n'
        + '  or keep this package as it is and put the Airless project in a folder of its own: npx airless init flows');
    }
  }
  const scripts: Record<string, string> = { ...(pkg.scripts ?? {}) };
  const test = scripts.test;
  if (test === undefined || PLACEHOLDER_TEST.test(test)) {
    changes.push(`set scripts.test to ${JSON.stringify(fresh.scripts.test)} (was ${test === undefined ? 'unset' : "npm's placeholder"}): npm test runs the DAG tests`);
    scripts.test = fresh.scripts.test;
  } else if (!/\bvitest\b/.test(test)) {
    refusals.push(`package.json's test script is ${JSON.stringify(test)}, which does not run the scaffold's tests (vitest). Run both:\n`
      + `  npm pkg set scripts.test=${shellArg(`${test} && ${fresh.scripts.test}`)}`);
  }
  const added = Object.keys(fresh.scripts).filter((k) => scripts[k] === undefined);
  for (const k of added) scripts[k] = fresh.scripts[k];
  if (added.length) changes.push(`added scripts ${added.join(', ')}`);
  const kept = Object.keys(fresh.scripts).filter((k) => k !== 'test' && !added.includes(k) && scripts[k] !== fresh.scripts[k]);
  if (kept.length) changes.push(`kept your scripts ${kept.join(', ')} (the scaffold's README assumes its own)`);
  pkg.scripts = scripts;
  for (const field of ['dependencies', 'devDependencies'] as const) {
    const have = { ...(pkg[field] ?? {}) };
    // A dev-only airless would not be found by the CDK app's bundling at deploy: keep one entry.
    const elsewhere = field === 'devDependencies' ? pkg.dependencies ?? {} : {};
    const missing = Object.entries(fresh[field] as Record<string, string>).filter(([name]) => have[name] === undefined && elsewhere[name] === undefined);
    for (const [name, spec] of missing) have[name] = spec;
    if (missing.length) changes.push(`added ${field} ${missing.map(([n, v]) => `${n}@${v}`).join(', ')}`);
    pkg[field] = have;
  }
  if (pkg.devDependencies.airless && !pkg.dependencies.airless) {
    pkg.dependencies.airless = pkg.devDependencies.airless;
    delete pkg.devDependencies.airless;
    changes.push('moved airless from devDependencies to dependencies (cdk deploy bundles the functions from it)');
  }
  return { pkg, changes, refusals };
}

/**
 * @example
 * await cmdInit('my-flows', {});
 * @throws UsageError (exit 2) when package.json is not JSON, or when making the project
 *   work would overwrite a choice of the user's: the message names the command to run.
 */
export async function cmdInit(dir: string, o: { airless?: string; out?: (line: string) => void }): Promise<number> {
  const out = o.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const root = path.resolve(dir);
  const pkgPath = path.join(root, 'package.json');
  let existing: Pkg | undefined;
  if (existsSync(pkgPath)) {
    try {
      existing = JSON.parse(await readFile(pkgPath, 'utf8')) as Pkg;
    } catch (cause) {
      throw new UsageError(`airless init: ${pkgPath} is not valid JSON; fix or remove it`, { cause });
    }
  }
  const info = packageInfo();
  const spec = o.airless ?? existing?.dependencies?.airless ?? existing?.devDependencies?.airless ?? `^${info.version}`;
  const name = (existing?.name as string | undefined) ?? (path.basename(root).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+/, '') || 'airless-project');
  const files = scaffoldFiles(name, { airless: spec, dev: { ...info.devDependencies, ...info.dependencies } });
  let changes: string[] = [];
  if (existing) {
    const merged = mergePackage(existing, JSON.parse(files['package.json']), { root, scaffold: Object.keys(files) });
    if (merged.refusals.length) {
      const rel = path.relative(process.cwd(), root);
      const again = rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? root : rel;
      throw new UsageError(`airless init: nothing written; ${merged.refusals.join('\n')}\nthen run npx airless init ${again} again`);
    }
    files['package.json'] = `${JSON.stringify(merged.pkg, null, 2)}\n`;
    changes = merged.changes;
  }
  const written: string[] = [];
  const kept: string[] = [];
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(root, rel);
    if (existsSync(file) && rel !== 'package.json') {
      kept.push(rel);
      continue;
    }
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
    written.push(rel === 'package.json' && existing ? 'package.json (merged)' : rel);
  }
  out(`airless init: ${written.length} file(s) in ${root}`);
  for (const f of written) {
    out(`  wrote ${f}`);
    if (f.startsWith('package.json')) for (const c of changes) out(`        ${c}`);
  }
  for (const f of kept) out(`  kept  ${f} (exists)`);
  const cd = path.relative(process.cwd(), root);
  out('next:');
  if (cd) out(`  cd ${cd}`);
  out('  npm install');
  out('  npm test && npx airless run dags --dag example --time-warp');
  return 0;
}
