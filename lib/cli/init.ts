/**
 * `airless init <dir>`: writes a new project (package.json, tsconfig, an example DAG, a
 * test with airless/testing, a CDK app, .gitignore, README). Into a folder that already
 * has a package.json (say after `npm install airless`) it merges: existing fields and
 * dependency specs win, missing scripts and dependencies are added; existing files are
 * never overwritten.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scaffoldFiles } from './init-files.js';
import { UsageError } from './output.js';
import { packageInfo } from './package-info.js';

type Pkg = Record<string, any>;

function merge(existing: Pkg, fresh: Pkg): Pkg {
  const out: Pkg = { ...fresh, ...existing };
  for (const k of ['scripts', 'dependencies', 'devDependencies']) out[k] = { ...fresh[k], ...existing[k] };
  // A dev-only airless would not be found by the CDK app's bundling at deploy: keep one entry.
  if (out.devDependencies.airless && !existing.dependencies?.airless) {
    out.dependencies.airless = out.devDependencies.airless;
    delete out.devDependencies.airless;
  }
  return out;
}

/**
 * @example
 * await cmdInit('my-flows', {});
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
  if (existing) files['package.json'] = `${JSON.stringify(merge(existing, JSON.parse(files['package.json'])), null, 2)}\n`;
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
  for (const f of written) out(`  wrote ${f}`);
  for (const f of kept) out(`  kept  ${f} (exists)`);
  const cd = path.relative(process.cwd(), root);
  out('next:');
  if (cd) out(`  cd ${cd}`);
  out('  npm install');
  out('  npm test && npx airless run dags --dag example --time-warp');
  return 0;
}
