/**
 * Build hygiene and the type-check: a DAG file that hangs, exits or throws at import is
 * reported by name and never ends or hangs the build; a dag() that is not exported is a
 * warning; type errors are refused with file:line:col before anything is bundled.
 * Each case writes its DAG folder to a temporary directory (outside the repository's
 * tsconfig, so the type-check's defaults and SDK fallback are what is exercised).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildBundle } from '../../lib/build/index.js';
import { TypeCheckError } from '../../lib/build/typecheck.js';

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'airless-hygiene-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}
const ok = `import { dag } from 'airless';\nexport default dag('ok', {}, ({ task }) => { task('a', async () => 1); });\n`;
const build = (dir: string, extra: Partial<Parameters<typeof buildBundle>[0]> = {}) =>
  buildBundle({ dir, outDir: path.join(dir, '..', `${path.basename(dir)}-out`), ...extra });

describe('build hygiene', () => {
  it('bounds a DAG file\'s import in time and names the file', async () => {
    // A real (short) timeout: what is under test is a file that never returns.
    const dir = folder({ 'ok.ts': ok, 'spin.ts': `import { dag } from 'airless';\nwhile (true) {}\nexport default dag('spin', {}, () => {});\n` });
    await expect(build(dir, { importTimeoutMs: 300 })).rejects.toThrow(/spin\.ts: importing it did not finish within 0\.3 s/);
  });

  it('reports process.exit at import per file, and the build process survives', async () => {
    const dir = folder({ 'ok.ts': ok, 'quits.ts': `process.exit(3);\n` });
    await expect(build(dir)).rejects.toThrow(/quits\.ts: called process\.exit\(3\) while being imported/);
  });

  it('reports a throw at import with the file', async () => {
    const dir = folder({ 'ok.ts': ok, 'throws.ts': `throw new Error('no config');\n` });
    await expect(build(dir)).rejects.toThrow(/throws\.ts: failed to load: Error: no config/);
  });

  it('warns about a dag() that is built but not exported', async () => {
    const dir = folder({ 'ok.ts': ok, 'hidden.ts': `import { dag } from 'airless';\nconst d = dag('hidden', {}, ({ task }) => { task('a', async () => 1); });\nvoid d;\n` });
    const r = await build(dir);
    expect(r.manifest.dags.map((d) => d.dagId)).toEqual(['ok']);
    expect(r.warnings).toEqual([expect.stringMatching(/^hidden\.ts builds dag "hidden" but does not export it/)]);
  });

  it('never collects build output inside the DAG folder as a DAG file', async () => {
    const dir = folder({ 'ok.ts': ok });
    await buildBundle({ dir, outDir: path.join(dir, 'dist', 'bundle') });
    const again = await buildBundle({ dir, outDir: path.join(dir, '..', `${path.basename(dir)}-elsewhere`) });
    expect(again.manifest.dags.map((d) => d.dagId)).toEqual(['ok']);
  });
});

describe('type-checked builds', () => {
  const bad = `import { dag } from 'airless';
export default dag('typed', { catchupp: true }, ({ task }) => {
  task('a', async (ctx) => { const n: number = ctx.dagId; return n; }, { retry: 3 });
  task('b', async (ctx) => ctx.xcom.pul('a'));
});
`;

  it('refuses type errors with file:line:col, before bundling', async () => {
    const dir = folder({ 'typed.ts': bad });
    const err = await build(dir, { typecheck: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeCheckError);
    const msg = (err as Error).message;
    expect(msg).toMatch(/^4 type errors in DAG files/);
    expect(msg).toMatch(/typed\.ts:2:31: error TS\d+: .*'catchupp' does not exist in type 'DagOptions/);
    expect(msg).toMatch(/typed\.ts:3:36: error TS2322: Type 'string' is not assignable to type 'number'/);
    // TS2561 since TaskOptions has onRetry (TypeScript then suggests it).
    expect(msg).toMatch(/typed\.ts:3:74: error TS\d+: .*'retry' does not exist in type 'TaskOptions'/);
    expect(msg).toMatch(/typed\.ts:4:37: error TS2551: Property 'pul' does not exist/);
  });

  it('builds the same file with typecheck off (esbuild only strips types)', async () => {
    const dir = folder({ 'typed.ts': bad });
    const r = await build(dir, { typecheck: false });
    expect(r.manifest.dags[0].dagId).toBe('typed');
  });

  it('passes well-typed files', async () => {
    const r = await build(folder({ 'ok.ts': ok }), { typecheck: true });
    expect(r.manifest.dags.map((d) => d.dagId)).toEqual(['ok']);
  });
});
