import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBundle, buildToLocalVersion, bundleVersion, findDagFiles, loadBundle, LocalBundleSource } from '../../lib/build/index.js';
import { BundleError } from '../../lib/engine/index.js';
import type { Manifest } from '../../lib/engine/index.js';

const VALID = fileURLToPath(new URL('../fixtures/valid-dags/', import.meta.url));
const work = await mkdtemp(path.join(tmpdir(), 'airless-build-'));
afterAll(() => rm(work, { recursive: true, force: true }));
const out = (name: string) => path.join(work, name);

const basic = await buildBundle({ dir: path.join(VALID, 'basic'), outDir: out('basic'), now: new Date('2026-05-01T00:00:00Z') });

describe('buildBundle', () => {
  it('writes a manifest with the DAG spec, its file and the sensor types', async () => {
    const m = basic.manifest;
    expect(m).toMatchObject({ formatVersion: 1, builtAt: '2026-05-01T00:00:00.000Z', sensorTypes: ['partition_ready'] });
    expect(m.bundleSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(await readFile(basic.manifestPath, 'utf8'))).toEqual(m);
    expect(m.dags).toHaveLength(1);
    const d = m.dags[0];
    expect(d).toMatchObject({
      dagId: 'etl_daily',
      file: 'etl_daily.ts',
      schedule: { kind: 'cron', expr: '0 2 * * *', timezone: 'Europe/Berlin' },
      maxParallelism: 2,
      maxActiveRuns: 1,
    });
    const byId = Object.fromEntries(d.tasks.map((t) => [t.taskId, t]));
    expect(byId.load).toMatchObject({ triggerRule: 'none_failed', upstream: ['audit', 'transform'], downstream: ['pick'] });
    expect(byId.extract).toMatchObject({ retries: 2, retryDelayMs: 30_000, maxRetryDelayMs: 600_000, executionTimeoutMs: 300_000 });
    expect(byId.audit.retries).toBe(0);
    expect(byId.pick.downstream).toEqual(['delta', 'full']);
  });

  it('bundles into one ES module that needs no package.json next to the DAGs', async () => {
    const code = await readFile(basic.bundlePath, 'utf8');
    expect(code).toMatch(/export\s*\{\s*files\s*\}/);
    expect(code).not.toMatch(/from ["']airless["']/);
  });

  it('gives the same bytes for the same code, wherever it is built', async () => {
    const again = await buildBundle({ dir: path.join(VALID, 'basic'), outDir: out('basic-again') });
    expect(again.manifest.bundleSha256).toBe(basic.manifest.bundleSha256);
  });

  it('finds DAG files in subfolders, skipping _helpers, node_modules, tests and the output folder', async () => {
    const dir = path.join(work, 'tree');
    await cp(path.join(VALID, 'multi'), dir, { recursive: true });
    await cp(path.join(VALID, 'multi', 'nested', 'helper.ts'), path.join(dir, 'node_modules', 'x', 'index.ts'), { recursive: true });
    await writeFile(path.join(dir, 'thing.test.ts'), 'throw new Error("not a DAG")');
    await writeFile(path.join(dir, 'types.d.ts'), 'export {}');
    expect(await findDagFiles(dir, { exclude: [path.join(dir, 'nested')] })).toEqual(['sensors.ts']);
    expect(await findDagFiles(dir)).toEqual(['nested/helper.ts', 'nested/manual.mjs', 'sensors.ts']);
    const built = await buildBundle({ dir, outDir: path.join(dir, 'dist') });
    expect(built.manifest.dags.map((d) => [d.dagId, d.file])).toEqual([
      ['manual_js', 'nested/manual.mjs'],
      ['sensing', 'sensors.ts'],
    ]);
    // the sensor is known although only a _helper exports it: the DAG uses it by object
    expect(built.manifest.sensorTypes).toEqual(['partition_ready']);
    const rebuilt = await buildBundle({ dir, outDir: path.join(dir, 'dist') });
    expect(rebuilt.manifest.bundleSha256).toBe(built.manifest.bundleSha256);
  });
});

describe('loadBundle', () => {
  it('runs task methods, branches and custom sensor pokes', async () => {
    const b = await loadBundle(basic.bundlePath, basic.manifest);
    expect(b.manifest).toBe(basic.manifest);
    const transform = b.taskMethod('etl_daily', 'transform', 'execute')!;
    expect(await transform({ xcom: { pull: async () => ({ rows: 21 }) } })).toBe(42);
    expect(await b.taskMethod('etl_daily', 'pick', 'execute')!({ conf: { full: 1 } })).toEqual(['full']);
    expect(b.taskMethod('etl_daily', 'pick', 'nope')).toBeUndefined();
    expect(b.taskMethod('etl_daily', 'ghost', 'execute')).toBeUndefined();
    expect(b.taskMethod('etl_daily', 'pick', 'toString')).toBeUndefined();
    expect(await b.sensorPoke('partition_ready')!({ table: 'orders', ds: '2026-01-01' }, { now: 0 })).toBe(true);
    expect(b.sensorPoke('file')).toBeUndefined();
  });

  it('calls resume methods of deferrable tasks', async () => {
    const built = await buildBundle({ dir: path.join(VALID, 'multi'), outDir: out('multi') });
    const b = await loadBundle(built.bundlePath);
    expect(b.manifest.dags.map((d) => d.dagId).sort()).toEqual(['manual_js', 'sensing']);
    const check = b.taskMethod('sensing', 'job', 'check')!;
    expect(await check({}, { kwargs: { n: 1 }, event: { reason: 'trigger', firedAt: '' } })).toEqual({
      n: 1, reason: 'trigger', helper: 'from-helper',
    });
    const execute = b.taskMethod('sensing', 'job', 'execute')!;
    const marker = { __airless: 'defer' };
    expect(await execute({ defer: () => marker })).toBe(marker);
  });

  it('refuses a tampered bundle and a missing one', async () => {
    const dir = out('tampered');
    await cp(out('basic'), dir, { recursive: true });
    const file = path.join(dir, 'bundle.mjs');
    await writeFile(file, `${await readFile(file, 'utf8')}\nexport const evil = 1;\n`);
    await expect(loadBundle(file, basic.manifest)).rejects.toThrow(BundleError);
    await expect(loadBundle(file, basic.manifest)).rejects.toThrow(`but its manifest expects ${basic.manifest.bundleSha256}`);
    await expect(loadBundle(path.join(dir, 'missing.mjs'))).rejects.toThrow(BundleError);
  });

  it('loads the new code after a rebuild at the same path', async () => {
    const dir = out('changing-src');
    const file = path.join(dir, 'dag.ts');
    await cp(path.join(VALID, 'multi', 'nested', 'manual.mjs'), file);
    const first = await buildBundle({ dir, outDir: out('changing') });
    const v1 = await loadBundle(first.bundlePath, first.manifest);
    await writeFile(file, (await readFile(file, 'utf8')).replace("async () => 'b'", "async () => 'b2'"));
    const second = await buildBundle({ dir, outDir: out('changing') });
    const v2 = await loadBundle(second.bundlePath, second.manifest);
    expect(await v1.taskMethod('manual_js', 'b', 'execute')!({})).toBe('b');
    expect(await v2.taskMethod('manual_js', 'b', 'execute')!({})).toBe('b2');
  });
});

describe('LocalBundleSource', () => {
  it('stores versions by hash, reads manifests and caches loaded bundles', async () => {
    const root = out('versions');
    const { version, manifest } = await buildToLocalVersion(path.join(VALID, 'basic'), root);
    expect(version).toBe(bundleVersion(manifest));
    expect(version.startsWith(basic.manifest.bundleSha256.slice(0, 12))).toBe(true);
    expect((await buildToLocalVersion(path.join(VALID, 'basic'), root)).version).toBe(version);
    const multi = await buildToLocalVersion(path.join(VALID, 'multi'), root);

    const source = new LocalBundleSource(root);
    expect(await source.manifest(version)).toEqual(manifest);
    const loaded = await source.load(version);
    expect(await source.load(version)).toBe(loaded);
    expect(await loaded.taskMethod('etl_daily', 'full', 'execute')!({})).toBe(1);
    expect((await source.listVersions()).sort()).toEqual([version, multi.version].sort());
    await expect(source.manifest('0123456789ab')).rejects.toThrow('bundle version "0123456789ab" not found');
    await expect(source.load('../escape')).rejects.toThrow(BundleError);
  });

  it('refuses a version whose bundle does not match its manifest', async () => {
    const root = out('versions-bad');
    const { version } = await buildToLocalVersion(path.join(VALID, 'basic'), root);
    const manifestPath = path.join(root, version, 'manifest.json');
    const m = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest;
    await writeFile(manifestPath, JSON.stringify({ ...m, bundleSha256: '0'.repeat(64) }));
    await expect(new LocalBundleSource(root).load(version)).rejects.toThrow(BundleError);
  });
});
