/**
 * The engine decides; adapters do (docs/adr/0001, docs/adr/0009). Checked over the
 * resolved module graph, not file text: dependency-cruiser resolves every import of
 * lib/engine (subfolders included) and applies .dependency-cruiser.cjs (no cycles,
 * nothing outside lib/engine but croner, @cfworker/json-schema and node:crypto); then every engine module in
 * that graph is parsed with the TypeScript compiler and searched for the clock, the
 * environment, randomness, real timers, dynamic imports and I/O globals.
 * A change violates this when any of those appears in lib/engine, however it is spelled.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const config = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs'));

/** Globals whose mere use makes code impure (read through `globalThis.x` too). */
const IMPURE_GLOBALS: Record<string, string> = {
  process: 'reads the environment or the process',
  performance: 'reads the clock',
  setTimeout: 'uses a real timer',
  setInterval: 'uses a real timer',
  setImmediate: 'uses a real timer',
  fetch: 'does I/O',
  XMLHttpRequest: 'does I/O',
  WebSocket: 'does I/O',
  require: 'loads code at run time',
  crypto: 'uses global crypto (randomness)',
};
const RANDOM_NAMES = new Set(['randomUUID', 'randomBytes', 'randomInt', 'getRandomValues', 'randomFillSync', 'randomFill']);
/** The only names the engine may import from node:crypto. */
const CRYPTO_ALLOWED = new Set(['createHash']);

/** Finds impure constructs in one TypeScript source; returns `line: why` entries. */
export function impurities(source: string, file = 'x.ts'): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const declared = declaredNames(sf);
  const at = (n: ts.Node, why: string) => found.push(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${why}`);
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const from = n.moduleSpecifier.text;
      if (from === 'crypto' || from === 'node:crypto') {
        const names = n.importClause?.namedBindings;
        const ok = !n.importClause?.name && names && ts.isNamedImports(names) && names.elements.every((e) => CRYPTO_ALLOWED.has((e.propertyName ?? e.name).text));
        if (!ok) at(n, 'imports from node:crypto beyond hashing (createHash)');
      }
    }
    if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) at(n, 'imports code dynamically');
    if (ts.isPropertyAccessExpression(n)) {
      const obj = n.expression.getText(sf);
      const prop = n.name.text;
      if (obj === 'Date' && prop === 'now') at(n, 'reads the clock (Date.now)');
      if (obj === 'Math' && prop === 'random') at(n, 'uses randomness (Math.random)');
      if (obj === 'globalThis' && IMPURE_GLOBALS[prop]) at(n, `${IMPURE_GLOBALS[prop]} (globalThis.${prop})`);
    }
    if ((ts.isNewExpression(n) || ts.isCallExpression(n)) && n.expression.getText(sf) === 'Date' && (n.arguments?.length ?? 0) === 0) {
      at(n, 'reads the clock (Date without arguments)');
    }
    if (ts.isIdentifier(n)) {
      const parent = n.parent;
      const isMemberName = parent && ts.isPropertyAccessExpression(parent) && parent.name === n;
      const isDeclName = parent && (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent) || ts.isPropertySignature(parent)) && parent.name === n;
      if (!isMemberName && !isDeclName && IMPURE_GLOBALS[n.text] && !declared.has(n.text)) at(n, `${IMPURE_GLOBALS[n.text]} (${n.text})`);
      if (RANDOM_NAMES.has(n.text)) at(n, `uses randomness (${n.text})`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

/** Names the file declares itself (parameters, variables, functions, imports): those shadow a global. */
function declaredNames(sf: ts.SourceFile): Set<string> {
  const out = new Set<string>();
  const visit = (n: ts.Node): void => {
    if ((ts.isParameter(n) || ts.isVariableDeclaration(n) || ts.isFunctionDeclaration(n) || ts.isImportSpecifier(n) || ts.isNamespaceImport(n)) && n.name && ts.isIdentifier(n.name)) {
      out.add(n.name.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('lib/engine stays pure', () => {
  let graph: ICruiseResult;
  beforeAll(async () => {
    const prev = process.cwd();
    process.chdir(ROOT);
    try {
      graph = (await cruise(['lib/engine'], { validate: true, ruleSet: { forbidden: config.forbidden }, ...config.options })).output as ICruiseResult;
    } finally {
      process.chdir(prev);
    }
  }, 60_000);

  it('has no import cycle and reaches nothing outside lib/engine but croner, @cfworker/json-schema and node:crypto', () => {
    const engine = graph.modules.filter((m) => m.source.startsWith('lib/engine/'));
    expect(engine.length).toBeGreaterThan(20);
    const outside = [...new Set(engine.flatMap((m) => m.dependencies.map((d) => d.resolved)).filter((r) => !r.startsWith('lib/engine/')))];
    const lib = (r: string) => (r.startsWith('node_modules/croner/') ? 'croner' : r.startsWith('node_modules/@cfworker/json-schema/') ? '@cfworker/json-schema' : r);
    expect([...new Set(outside.map(lib))].sort()).toEqual(['@cfworker/json-schema', 'crypto', 'croner'].sort());
    const violations = graph.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(' -> ')})` : ''}`);
    expect(violations).toEqual([]);
  });

  it('no engine module reads the clock, the environment or randomness, or does I/O', () => {
    const files = graph.modules.map((m) => m.source).filter((s) => s.startsWith('lib/engine/') && s.endsWith('.ts'));
    const found = files.flatMap((f) => impurities(readFileSync(path.join(ROOT, f), 'utf8'), f));
    expect(found).toEqual([]);
  });

  it('the checker catches each way of spelling an impurity (it tests itself)', () => {
    const bad = [
      'const a = Date.now();',
      'const b = new Date();',
      'const c = performance.now();',
      'const d = Math.random();',
      'const e = process.env.X;',
      'const f = globalThis.process;',
      "import { randomUUID } from 'node:crypto';",
      "import * as c2 from 'crypto';",
      'const g = crypto.randomUUID();',
      "const h = await import('../unit/x.js');",
      'setTimeout(() => {}, 1);',
      "const i = require('fs');",
      "const j = await fetch('http://x');",
    ];
    for (const line of bad) expect(impurities(line), line).not.toEqual([]);
    const fine = [
      "import { createHash } from 'node:crypto';",
      'const a = Date.parse(s); const b = new Date(ms).toISOString();',
      'function f(performance: number) { return performance + 1; }',
      'const o = { process: 1 }; o.process;',
    ];
    for (const line of fine) expect(impurities(line), line).toEqual([]);
  });
});
