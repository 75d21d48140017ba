/**
 * Type-checks DAG files with the TypeScript compiler API before they are bundled, so
 * `ctx.xcom.pul(...)`, `catchupp: true` or `const n: number = ctx.dagId` are refused at
 * build with `file:line:col` rather than failing at run time. It uses the project's
 * tsconfig.json (the nearest one above the DAG folder) or, without one, strict defaults.
 * esbuild only strips types, so this is the one place types are enforced.
 *
 * With a build cache (the CLI's `.airless/cache/`) an unchanged folder is not checked
 * again: the verdict is kept with the hash of every file TypeScript read. An edited
 * folder is checked with TypeScript's incremental builder, whose `.tsbuildinfo` (in the
 * cache) keeps each file's diagnostics, so only what the edit can affect is re-checked:
 * a new process cannot reuse a language service's memory, but it can reuse that file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageInfo } from '../package-info.js';
import { InvalidDagError } from '../engine/index.js';
import { cacheKey, folderListing, type BuildCache } from './cache.js';

/** A DAG file does not type-check: every diagnostic is listed, one `file:line:col` per line. */
export class TypeCheckError extends InvalidDagError {}

/** Diagnostics shown before "and N more". */
const SHOWN = 20;

/** The SDK's types, for a DAG folder with no tsconfig that cannot resolve `airless` itself. */
function sdkTypesEntry(entry = 'index'): string {
  const here = fileURLToPath(import.meta.url);
  const ts = path.join(path.dirname(here), `../sdk/${entry}.ts`);
  return existsSync(ts) ? ts : path.join(path.dirname(here), `../sdk/${entry}.d.ts`);
}

/** Airflow's TypeScript SDK names resolve to Airless's module of that surface, as the bundler resolves them (ADR 0021). */
const AIRFLOW_SDK_NAMES = new Set(['apache-airflow-ts-sdk', '@apache-airflow/ts-sdk']);

/**
 * Node's types for a folder with no tsconfig: its own `@types/node` (found upward), else
 * Airless's, else none, so a folder outside any project is not refused with TS2688 for a
 * package it never asked for.
 */
function nodeTypes(dir: string): { types: string[]; typeRoots?: string[] } {
  for (const from of [path.resolve(dir), path.dirname(fileURLToPath(import.meta.url))]) {
    for (let d = from; ; d = path.dirname(d)) {
      const types = path.join(d, 'node_modules', '@types');
      if (existsSync(path.join(types, 'node', 'package.json'))) return { types: ['node'], typeRoots: [types] };
      if (path.dirname(d) === d) break;
    }
  }
  return { types: [] };
}

export interface TypeCheckOptions {
  /** A tsconfig.json to use instead of searching upward from the DAG folder. */
  tsconfig?: string;
  /** Reuse a passed check of unchanged files, and check edits incrementally. */
  cache?: BuildCache;
}

/** The nearest tsconfig.json at or above `dir`, as `ts.findConfigFile` finds it (without loading TypeScript). */
function findTsconfig(dir: string): string | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const f = path.join(d, 'tsconfig.json');
    if (existsSync(f)) return f;
    if (path.dirname(d) === d) return undefined;
  }
}

/** The installed TypeScript's version, read without loading the compiler (about 0.4 s). */
function typescriptVersion(): string {
  try {
    const require = createRequire(import.meta.url);
    return (JSON.parse(readFileSync(require.resolve('typescript/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/**
 * Type-checks `files` (relative to `dir`; `.js`/`.mjs` files are left to esbuild).
 *
 * @example
 * await typecheckDagFiles('dags', ['etl.ts']);
 * @throws TypeCheckError listing `file:line:col: message` for each error.
 */
export async function typecheckDagFiles(dir: string, files: readonly string[], opts: TypeCheckOptions = {}): Promise<void> {
  const roots = files.filter((f) => /\.(ts|mts|tsx)$/.test(f)).map((f) => path.resolve(dir, f));
  if (roots.length === 0) return;
  const configPath = opts.tsconfig ? path.resolve(opts.tsconfig) : findTsconfig(dir);
  const cache = opts.cache;
  const name = `typecheck-${cacheKey(path.resolve(dir)).slice(0, 16)}`;
  // This module's own hash too: in the repository the version stays while the checker's code changes.
  const key = cacheKey({
    step: 'typecheck', airless: packageInfo().version, self: await cache?.hashFile(fileURLToPath(import.meta.url)), typescript: typescriptVersion(),
    dir: path.resolve(dir), roots, configPath, listing: folderListing(dir),
  });
  if (cache && (await cache.lookup<boolean>(name, key))) return;
  const since = Date.now();
  const ts = (await import('typescript')).default;
  // Every file TypeScript reads (sources, declarations, package.json files, tsconfigs): the cache's inputs.
  const read = new Set<string>();
  const sys = {
    ...ts.sys,
    readFile: (f: string, enc?: string) => {
      const text = ts.sys.readFile(f, enc);
      if (text !== undefined) read.add(path.resolve(f));
      return text;
    },
  };
  let options: import('typescript').CompilerOptions;
  if (configPath) {
    const config = ts.readConfigFile(configPath, sys.readFile);
    if (config.error) throw new TypeCheckError(`cannot read ${configPath}: ${ts.flattenDiagnosticMessageText(config.error.messageText, ' ')}`);
    options = ts.parseJsonConfigFileContent(config.config, sys, path.dirname(configPath), undefined, configPath).options;
  } else {
    options = {
      target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true, skipLibCheck: true, esModuleInterop: true, resolveJsonModule: true, ...nodeTypes(dir),
    };
  }
  options = {
    ...options, noEmit: true, declaration: false, composite: false,
    ...(cache ? { incremental: true, tsBuildInfoFile: cache.file(name, '.tsbuildinfo') } : { incremental: false, tsBuildInfoFile: undefined }),
  };
  const host = cache ? ts.createIncrementalCompilerHost(options, sys) : ts.createCompilerHost(options);
  host.readFile = sys.readFile;
  // .tsbuildinfo is the only file written (noEmit): renamed into place, for concurrent builds.
  const writes: Promise<void>[] = [];
  if (cache) host.writeFile = (file, text) => void writes.push(cache.writeAtomic(file, text));
  // A DAG folder outside any project (no node_modules/airless) still gets the SDK's types.
  const sdk = sdkTypesEntry();
  const resolveAirless = (containingFile: string) =>
    ts.resolveModuleName('airless', containingFile, options, host).resolvedModule ??
    { resolvedFileName: sdk, extension: sdk.endsWith('.d.ts') ? ts.Extension.Dts : ts.Extension.Ts, isExternalLibraryImport: false };
  const airflowSdk = sdkTypesEntry('airflow-ts-sdk/index');
  const airflowModule = { resolvedFileName: airflowSdk, extension: airflowSdk.endsWith('.d.ts') ? ts.Extension.Dts : ts.Extension.Ts, isExternalLibraryImport: false };
  host.resolveModuleNameLiterals = (literals, containingFile, _ref, opts2, sourceFile) =>
    literals.map((lit) => (lit.text === 'airless'
      ? { resolvedModule: resolveAirless(containingFile) }
      : AIRFLOW_SDK_NAMES.has(lit.text)
        ? { resolvedModule: airflowModule }
        : ts.resolveModuleName(lit.text, containingFile, opts2, host, undefined, undefined, ts.getModeForUsageLocation(sourceFile, lit, opts2))));
  const program = cache ? ts.createIncrementalProgram({ rootNames: roots, options, host }) : ts.createProgram({ rootNames: roots, options, host });
  // Only the DAG folder's own files are checked: the SDK and packages are declarations
  // (or, in this repository, sources checked by its own tsc), and checking them on every
  // build would cost seconds.
  const root = `${path.resolve(dir)}${path.sep}`;
  const own = program.getSourceFiles().filter((sf) => sf.fileName.startsWith(root.split(path.sep).join('/')) || path.resolve(sf.fileName).startsWith(root));
  const diagnostics = [
    ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(),
    ...own.flatMap((sf) => [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]),
  ].filter((d) => d.category === ts.DiagnosticCategory.Error && !(d.file && /[\\/]node_modules[\\/]/.test(d.file.fileName)));
  if (cache) {
    // Writes the .tsbuildinfo, errors or not: the next check after a fix re-checks only what it touches.
    program.emit();
    await Promise.all(writes);
  }
  if (diagnostics.length === 0) {
    await cache?.store(name, key, [...read, ...program.getSourceFiles().map((sf) => path.resolve(sf.fileName))], since, true);
    return;
  }
  const lines = diagnostics.slice(0, SHOWN).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (!d.file || d.start === undefined) return `error TS${d.code}: ${text}`;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    const rel = path.relative(process.cwd(), d.file.fileName) || d.file.fileName;
    return `${rel}:${line + 1}:${character + 1}: error TS${d.code}: ${text}`;
  });
  if (diagnostics.length > SHOWN) lines.push(`... and ${diagnostics.length - SHOWN} more`);
  const n = diagnostics.length;
  throw new TypeCheckError(`${n} type error${n === 1 ? '' : 's'} in DAG files (--no-typecheck skips this check):\n${lines.join('\n')}`);
}
