/**
 * Type-checks DAG files with the TypeScript compiler API before they are bundled, so
 * `ctx.xcom.pul(...)`, `catchupp: true` or `const n: number = ctx.dagId` are refused at
 * build with `file:line:col` rather than failing at run time. It uses the project's
 * tsconfig.json (the nearest one above the DAG folder) or, without one, strict defaults.
 * esbuild only strips types, so this is the one place types are enforced.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidDagError } from '../engine/index.js';

/** A DAG file does not type-check: every diagnostic is listed, one `file:line:col` per line. */
export class TypeCheckError extends InvalidDagError {}

/** Diagnostics shown before "and N more". */
const SHOWN = 20;

/** The SDK's types, for a DAG folder with no tsconfig that cannot resolve `airless` itself. */
function sdkTypesEntry(): string {
  const here = fileURLToPath(import.meta.url);
  const ts = path.join(path.dirname(here), '../sdk/index.ts');
  return existsSync(ts) ? ts : path.join(path.dirname(here), '../sdk/index.d.ts');
}

export interface TypeCheckOptions {
  /** A tsconfig.json to use instead of searching upward from the DAG folder. */
  tsconfig?: string;
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
  const ts = (await import('typescript')).default;
  const configPath = opts.tsconfig ?? ts.findConfigFile(path.resolve(dir), ts.sys.fileExists, 'tsconfig.json');
  let options: import('typescript').CompilerOptions;
  if (configPath) {
    const read = ts.readConfigFile(configPath, ts.sys.readFile);
    if (read.error) throw new TypeCheckError(`cannot read ${configPath}: ${ts.flattenDiagnosticMessageText(read.error.messageText, ' ')}`);
    options = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath), undefined, configPath).options;
  } else {
    options = {
      target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true, skipLibCheck: true, esModuleInterop: true, resolveJsonModule: true, types: ['node'],
    };
  }
  options = { ...options, noEmit: true, declaration: false, composite: false, incremental: false, tsBuildInfoFile: undefined };
  const host = ts.createCompilerHost(options);
  // A DAG folder outside any project (no node_modules/airless) still gets the SDK's types.
  const sdk = sdkTypesEntry();
  const resolveAirless = (containingFile: string) =>
    ts.resolveModuleName('airless', containingFile, options, host).resolvedModule ??
    { resolvedFileName: sdk, extension: sdk.endsWith('.d.ts') ? ts.Extension.Dts : ts.Extension.Ts, isExternalLibraryImport: false };
  host.resolveModuleNameLiterals = (literals, containingFile, _ref, opts2, sourceFile) =>
    literals.map((lit) => (lit.text === 'airless'
      ? { resolvedModule: resolveAirless(containingFile) }
      : ts.resolveModuleName(lit.text, containingFile, opts2, host, undefined, undefined, ts.getModeForUsageLocation(sourceFile, lit, opts2))));
  const program = ts.createProgram({ rootNames: roots, options, host });
  // Only the DAG folder's own files are checked: the SDK and packages are declarations
  // (or, in this repository, sources checked by its own tsc), and checking them on every
  // build would cost seconds.
  const root = `${path.resolve(dir)}${path.sep}`;
  const own = program.getSourceFiles().filter((sf) => sf.fileName.startsWith(root.split(path.sep).join('/')) || path.resolve(sf.fileName).startsWith(root));
  const diagnostics = [
    ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(),
    ...own.flatMap((sf) => [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]),
  ].filter((d) => d.category === ts.DiagnosticCategory.Error && !(d.file && /[\\/]node_modules[\\/]/.test(d.file.fileName)));
  if (diagnostics.length === 0) return;
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
