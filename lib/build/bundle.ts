/**
 * `airless build`: bundles a folder of DAG files with esbuild into one ES module
 * (`bundle.mjs`) and writes `manifest.json`, the serialized DAGs schedulers read.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { InvalidDagError } from '../engine/index.js';
import type { DagSpec, Manifest } from '../engine/index.js';
import { BUILTIN_SENSOR_TYPES, checkPools, unknownTriggerTarget, validateDagSpec } from '../engine/index.js';
import { packageInfo } from '../package-info.js';
import { BuildCache, cacheKey, folderListing } from './cache.js';
import { sha256Hex } from '../engine/index.js';
import { collectIsolated } from './collect-isolated.js';
import { checkDeployable } from './deployable.js';
import { typecheckDagFiles } from './typecheck.js';

/** The SDK entry that `import ... from 'airless'` resolves to inside a bundle. */
export const SDK_ENTRY = fileURLToPath(new URL(`../sdk/index.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url));
/** What Airflow's TypeScript SDK names resolve to inside a bundle: its Dag authoring surface on Airless (ADR 0021). */
export const AIRFLOW_SDK_ENTRY = fileURLToPath(new URL(`../sdk/airflow-ts-sdk/index.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url));
/** The package names of Airflow's TypeScript SDK. */
export const AIRFLOW_SDK_NAMES: readonly string[] = ['apache-airflow-ts-sdk', '@apache-airflow/ts-sdk'];

const DAG_FILE = /\.(ts|mts|js|mjs)$/;
const NOT_DAG_FILE = /\.d\.(ts|mts)$|\.(test|spec)\.(ts|mts|js|mjs)$/;

export interface BuildOptions {
  /** Folder of DAG files. */
  dir: string;
  /** Where bundle.mjs and manifest.json are written (created if missing). */
  outDir: string;
  /** Inline source map, so task stack traces name DAG files (default true). */
  sourcemap?: boolean;
  /** Build time written to the manifest (default now). */
  now?: Date;
  /** Type-check the DAG files with TypeScript first (default false here; the CLI turns it on). */
  typecheck?: boolean;
  /** tsconfig.json for the type-check (default: the nearest above the DAG folder, or strict defaults). */
  tsconfig?: string;
  /** How long one DAG file's import may take (default 30 s). */
  importTimeoutMs?: number;
  /**
   * A folder for the build cache (the CLI uses `.airless/cache`): the type-check and the
   * bundle of an unchanged folder are reused, an edit is type-checked incrementally.
   * The DAG files are still imported each build (their definitions may read the
   * environment). @default no cache
   */
  cacheDir?: string;
}

export interface BuildResult {
  manifest: Manifest;
  bundlePath: string;
  manifestPath: string;
  /** `sources.json` beside the bundle: each DAG file's text by its path in the DAG folder (get_dag_source). */
  sourcesPath: string;
  /** Problems that do not stop the build (a DAG built but not exported). */
  warnings: string[];
}

/**
 * DAG files under `dir`, relative with `/` separators, sorted: `*.ts *.mts *.js *.mjs` in
 * `dir` and its subfolders, skipping `node_modules`, hidden entries, and files and folders
 * whose name starts with `_` (helpers imported by DAG files), `cdk.out`, any folder holding
 * a build output (`bundle.mjs` beside `manifest.json`), and the `exclude` paths.
 *
 * @example
 * await findDagFiles('dags'); // ['etl.ts', 'team/report.mjs']
 */
export async function findDagFiles(dir: string, opts: { exclude?: readonly string[] } = {}): Promise<string[]> {
  const out: string[] = [];
  const exclude = new Set((opts.exclude ?? []).map((p) => path.resolve(p)));
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    for (const e of entries) {
      if (e.name.startsWith('_') || e.name.startsWith('.') || e.name === 'node_modules') continue;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (exclude.has(path.resolve(dir, child))) continue;
      if (e.isDirectory()) {
        // A build output (bundle.mjs beside manifest.json) is never DAG source, wherever it was written.
        if (e.name === 'cdk.out' || (existsSync(path.join(dir, child, 'bundle.mjs')) && existsSync(path.join(dir, child, 'manifest.json')))) continue;
        await walk(child);
      }
      else if (e.isFile() && DAG_FILE.test(e.name) && !NOT_DAG_FILE.test(e.name)) out.push(child);
    }
  };
  await walk('');
  return out.sort();
}

/** Generated entry: each file behind a lazy import, so an error is traced to its file. */
function entrySource(files: readonly string[]): string {
  const lines = files.map((f) => `  { file: ${JSON.stringify(f)}, load: () => import(${JSON.stringify(`./${f}`)}) },`);
  return `export const files = [\n${lines.join('\n')}\n];\n`;
}

const airlessPlugin: esbuild.Plugin = {
  name: 'airless-sdk',
  setup(b) {
    b.onResolve({ filter: /^airless$/ }, () => ({ path: SDK_ENTRY }));
    b.onResolve({ filter: /^(apache-airflow-ts-sdk|@apache-airflow\/ts-sdk)$/ }, () => ({ path: AIRFLOW_SDK_ENTRY }));
  },
};

/**
 * Bundles, loads, validates and writes `bundle.mjs` and `manifest.json` to `outDir`.
 *
 * @example
 * const { manifest } = await buildBundle({ dir: 'examples/dags', outDir: 'dist/bundle' });
 * @throws InvalidDagError naming the file (and DAG and task) for a syntax error, an error
 *   while a file is evaluated, or an invalid DAG.
 */
export async function buildBundle(opts: BuildOptions): Promise<BuildResult> {
  const dir = path.resolve(opts.dir);
  const outDir = path.resolve(opts.outDir);
  let files: string[];
  try {
    files = await findDagFiles(dir, { exclude: [outDir] });
  } catch (cause) {
    throw new InvalidDagError(`cannot read DAG folder ${dir}: ${(cause as Error).message}`, { cause });
  }
  if (files.length === 0) throw new InvalidDagError(`no DAG files (*.ts, *.mts, *.js, *.mjs) found in ${dir}`);

  const cache = opts.cacheDir ? new BuildCache(path.resolve(opts.cacheDir)) : undefined;
  if (opts.typecheck) await typecheckDagFiles(dir, files, { tsconfig: opts.tsconfig, cache });
  const bundlePath = path.join(outDir, 'bundle.mjs');
  const code = await cachedBundle(dir, files, opts.sourcemap ?? true, cache);
  await mkdir(outDir, { recursive: true });
  await writeFile(bundlePath, code);
  const sha = sha256Hex(code);

  const collected = await collectIsolated(bundlePath, sha, { timeoutMs: opts.importTimeoutMs ?? 30_000 });
  const sensorTypes = collected.sensors.map((x) => x.type).sort();
  const known = [...BUILTIN_SENSOR_TYPES, ...sensorTypes];
  const dags: DagSpec[] = [];
  for (const { spec: raw, file } of [...collected.dags].sort((a, b) => (a.spec.dagId < b.spec.dagId ? -1 : a.spec.dagId > b.spec.dagId ? 1 : 0))) {
    const spec: DagSpec = structuredClone({ ...raw, file });
    validateDagSpec(spec, { knownSensorTypes: known });
    checkDeployable({ spec }, file);
    dags.push(spec);
  }
  const pools = collected.pools.map(({ file: _file, ...pool }) => pool).sort((a, b) => (a.name < b.name ? -1 : 1));
  checkPools(dags, pools);
  const badTrigger = unknownTriggerTarget(dags);
  if (badTrigger) throw new InvalidDagError(badTrigger.message, { file: badTrigger.dag.file || undefined, dagId: badTrigger.dag.dagId, taskId: badTrigger.taskId });
  const manifest: Manifest = {
    formatVersion: 1,
    bundleSha256: sha,
    builtAt: (opts.now ?? new Date()).toISOString(),
    dags,
    sensorTypes,
    ...(pools.length ? { pools } : {}),
  };
  const manifestPath = path.join(outDir, 'manifest.json');
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  const sourcesPath = await writeSources(dir, outDir, dags);
  return { manifest, bundlePath, manifestPath, sourcesPath, warnings: collected.warnings };
}

/**
 * Writes `sources.json`: the text of each file that defines a DAG, as the build read it.
 * Kept beside the bundle rather than in the manifest, which schedulers read on every tick.
 */
async function writeSources(dir: string, outDir: string, dags: readonly DagSpec[]): Promise<string> {
  const files = [...new Set(dags.map((d) => d.file).filter((f): f is string => !!f))].sort();
  const sources: Record<string, string> = {};
  for (const f of files) sources[f] = await readFile(path.join(dir, f), 'utf8');
  const sourcesPath = path.join(outDir, 'sources.json');
  await writeFile(sourcesPath, `${JSON.stringify(sources)}\n`);
  return sourcesPath;
}

/** The bundle's bytes: from the cache when no file esbuild read has changed, else built (and kept). */
async function cachedBundle(dir: string, files: readonly string[], sourcemap: boolean, cache: BuildCache | undefined): Promise<Uint8Array> {
  if (!cache) return (await bundleCode(dir, files, sourcemap)).code;
  const name = `bundle-${cacheKey(dir).slice(0, 16)}`;
  const key = cacheKey({
    step: 'bundle', airless: packageInfo().version, self: await cache.hashFile(fileURLToPath(import.meta.url)), esbuild: esbuild.version,
    dir, files, listing: folderListing(dir), sourcemap, sdk: SDK_ENTRY,
  });
  const hit = await cache.lookup<{ sha256: string }>(name, key);
  if (hit) {
    const bytes = await readFile(cache.file(name, '.mjs')).catch(() => undefined);
    if (bytes && sha256Hex(bytes) === hit.sha256) return bytes;
  }
  const since = Date.now();
  const { code, inputs } = await bundleCode(dir, files, sourcemap);
  await cache.writeAtomic(cache.file(name, '.mjs'), code);
  await cache.store(name, key, inputs, since, { sha256: sha256Hex(code) });
  return code;
}

/** Bundles the DAG files; `inputs` are the absolute paths of every file esbuild read. */
async function bundleCode(dir: string, files: readonly string[], sourcemap: boolean): Promise<{ code: Uint8Array; inputs: string[] }> {
  try {
    const result = await esbuild.build({
      stdin: { contents: entrySource(files), resolveDir: dir, sourcefile: '<airless-entry>', loader: 'js' },
      absWorkingDir: dir,
      bundle: true,
      write: false,
      // A virtual output path inside the DAG folder: source-map paths then depend only on
      // the sources, so the same code gives the same bytes (and version) wherever it is built.
      outfile: path.join(dir, 'bundle.mjs'),
      format: 'esm',
      platform: 'node',
      target: 'node20',
      keepNames: true,
      sourcemap: sourcemap ? 'inline' : false,
      // The sources travel in the map: a worker's stack traces show DAG code, and loaders
      // that read the map (vitest) find nothing missing.
      sourcesContent: true,
      logLevel: 'silent',
      metafile: true,
      plugins: [airlessPlugin],
      // Bundled CommonJS packages call require() for built-ins; ESM has none.
      banner: { js: "import { createRequire as __airlessCreateRequire } from 'node:module';\nconst require = __airlessCreateRequire(import.meta.url);" },
    });
    // Metafile paths are relative to absWorkingDir; the generated entry is not a file.
    const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('<')).map((f) => path.resolve(dir, f));
    return { code: result.outputFiles[0].contents, inputs };
  } catch (e) {
    const errors = (e as { errors?: esbuild.Message[] }).errors;
    if (!errors?.length) throw new InvalidDagError(`bundling failed: ${(e as Error).message}`, { cause: e });
    const first = errors[0];
    const loc = first.location;
    const file = loc?.file ? path.relative(dir, path.resolve(dir, loc.file)).split(path.sep).join('/') : undefined;
    const where = loc ? ` (line ${loc.line}, column ${loc.column + 1}: ${loc.lineText.trim()})` : '';
    const more = errors.length > 1 ? ` [and ${errors.length - 1} more error(s)]` : '';
    throw new InvalidDagError(`${first.text}${where}${more}`, { file, cause: e });
  }
}
