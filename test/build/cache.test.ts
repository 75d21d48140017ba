/**
 * The build cache (`buildBundle({ cacheDir })`, what the CLI's run, dev, dags list, tasks
 * test, build and push pass): an unchanged folder reuses its type-check and its bundle
 * (TypeScript and esbuild are not called: spied, not replaced), every input the steps
 * read is covered (a DAG file, a helper, the tsconfig, a new file beside them), an edit
 * is type-checked with TypeScript's incremental builder, an edit made while a step runs
 * is never recorded as built, and two builds of one folder at once both succeed.
 * Folders are written to a temporary directory with their mtimes set in the past, as a
 * file saved before a build has.
 */
import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => ({ esbuild: 0, typescript: 0, buildInfo: [] as (string | undefined)[] }));
vi.mock('esbuild', async (importOriginal) => {
  const real = await importOriginal<typeof import('esbuild')>();
  return { ...real, build: (o: Parameters<typeof real.build>[0]) => { calls.esbuild++; return real.build(o); } };
});
vi.mock('typescript', async (importOriginal) => {
  const real = (await importOriginal<{ default: typeof import('typescript') }>()).default;
  const spied = {
    ...real,
    createProgram: (...a: Parameters<typeof real.createProgram>) => { calls.typescript++; return real.createProgram(...a); },
    createIncrementalProgram: (o: Parameters<typeof real.createIncrementalProgram>[0]) => {
      calls.typescript++;
      calls.buildInfo.push(o.options.tsBuildInfoFile);
      return real.createIncrementalProgram(o);
    },
  };
  return { ...spied, default: spied };
});

const { buildBundle } = await import('../../lib/build/index.js');
const { TypeCheckError } = await import('../../lib/build/typecheck.js');

const PAST = (Date.now() - 60_000) / 1000;
function write(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    const f = path.join(dir, name);
    mkdirSync(path.dirname(f), { recursive: true });
    writeFileSync(f, text);
    utimesSync(f, PAST, PAST);
  }
}
const dag = (id: string, body = "task('a', async () => 1);") => `import { dag } from 'airless';\nimport { OWNER } from './_owner.js';\nexport default dag('${id}', { tags: [OWNER] }, ({ task }) => { ${body} });\n`;

/** Lean settings (no DOM, no @types/node): each check here costs about a second. */
const tsconfig = (extra: Record<string, unknown> = {}) => JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', skipLibCheck: true, types: [], lib: ['ES2022'], ...extra } });

function project(): { root: string; dir: string; cacheDir: string; build: (typecheck?: boolean) => ReturnType<typeof buildBundle> } {
  const root = mkdtempSync(path.join(tmpdir(), 'airless-cache-'));
  const dir = path.join(root, 'dags');
  write(root, { 'tsconfig.json': tsconfig() });
  write(dir, { 'one.ts': dag('one'), 'two.ts': dag('two'), '_owner.ts': "export const OWNER = 'team-a';\n" });
  const cacheDir = path.join(root, '.airless', 'cache');
  return { root, dir, cacheDir, build: (typecheck = true) => buildBundle({ dir, outDir: path.join(root, 'out'), typecheck, cacheDir }) };
}

beforeEach(() => {
  calls.esbuild = 0;
  calls.typescript = 0;
  calls.buildInfo.length = 0;
});

describe('build cache', () => {
  it('reuses the type-check and the bundle of an unchanged folder, and still reads its DAGs', async () => {
    const p = project();
    const first = await p.build();
    expect(calls).toMatchObject({ esbuild: 1, typescript: 1 });
    const second = await p.build();
    expect(calls).toMatchObject({ esbuild: 1, typescript: 1 });
    expect(second.manifest).toEqual({ ...first.manifest, builtAt: second.manifest.builtAt });
    expect(second.manifest.dags.map((d) => d.tags)).toEqual([['team-a'], ['team-a']]);
    expect(readdirSync(p.cacheDir).sort()).toEqual([expect.stringMatching(/^bundle-\w+\.json$/), expect.stringMatching(/^bundle-\w+\.mjs$/), expect.stringMatching(/^typecheck-\w+\.json$/), expect.stringMatching(/^typecheck-\w+\.tsbuildinfo$/)]);
  }, 60_000);

  it('type-checks an edited DAG file again (incrementally, with the .tsbuildinfo in the cache) and refuses its new error', async () => {
    const p = project();
    await p.build();
    write(p.dir, { 'two.ts': dag('two', "task('a', async (ctx) => ctx.xcom.pul('x'));") });
    await expect(p.build()).rejects.toThrow(TypeCheckError);
    expect(calls.typescript).toBe(2);
    expect(path.dirname(calls.buildInfo[0]!)).toBe(p.cacheDir);
    expect(path.basename(calls.buildInfo[0]!)).toMatch(/^typecheck-\w+\.tsbuildinfo$/);
    expect(calls.buildInfo[1]).toBe(calls.buildInfo[0]);
  }, 60_000);

  it('rebundles when a helper the DAGs import changes, and uses the new value', async () => {
    const p = project();
    await p.build(false);
    write(p.dir, { '_owner.ts': "export const OWNER = 'team-b';\n" });
    const r = await p.build(false);
    expect(calls.esbuild).toBe(2);
    expect(r.manifest.dags.map((d) => d.tags)).toEqual([['team-b'], ['team-b']]);
  }, 60_000);

  it('checks again when the tsconfig changes or a file is added beside the DAGs', async () => {
    const p = project();
    await p.build();
    write(p.root, { 'tsconfig.json': tsconfig({ noUnusedLocals: true }) });
    await p.build();
    expect(calls.typescript).toBe(2);
    write(p.dir, { '_unused.ts': 'export {};\n' });
    await p.build();
    expect(calls).toMatchObject({ esbuild: 2, typescript: 3 });
  }, 90_000);

  it('keeps the bundle apart from the type-check: --no-typecheck neither needs nor spoils the verdict', async () => {
    const p = project();
    await p.build(false);
    expect(calls).toMatchObject({ esbuild: 1, typescript: 0 });
    await p.build(true);
    expect(calls).toMatchObject({ esbuild: 1, typescript: 1 });
    await p.build(false);
    await p.build(true);
    expect(calls).toMatchObject({ esbuild: 1, typescript: 1 });
  }, 60_000);

  it('does not record a build whose input changed while it ran (its mtime is not before the build)', async () => {
    const p = project();
    const future = (Date.now() + 60_000) / 1000;
    utimesSync(path.join(p.dir, 'one.ts'), future, future);
    await p.build(false);
    await p.build(false);
    expect(calls.esbuild).toBe(2);
    expect(readdirSync(p.cacheDir).filter((f) => f.endsWith('.json'))).toEqual([]);
  }, 60_000);

  it('serves two builds of one folder at once, and is whole afterwards', async () => {
    const p = project();
    const [a, b] = await Promise.all([p.build(), p.build()]);
    expect(a.manifest.bundleSha256).toBe(b.manifest.bundleSha256);
    const before = { ...calls };
    expect((await p.build()).manifest.bundleSha256).toBe(a.manifest.bundleSha256);
    expect(calls).toEqual(before);
  }, 60_000);
});
